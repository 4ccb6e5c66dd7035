#!/usr/bin/env python3
"""Broken variants of a trace (plain or gzip) for bench/link/compare.sh.

  broken_inputs.py --list
  broken_inputs.py VARIANT TRACE OUT

Each variant damages the document (or its gzip stream) in one way a reader
must report: cut short, gzip damage of every kind, JSON errors 4 MB in and at
the 4 MiB window boundary of the big list, duplicate keys, out-of-range
numbers, invalid UTF-8, bad escapes, trailing content.
"""
import gzip
import json
import sys
import zlib

WINDOW_BYTES = 4 << 20
VARIANTS = [
    "empty", "cut_in_string", "gzip_cut_in_stream", "gzip_cut_before_trailer", "gzip_flipped_deflate_byte",
    "gzip_flipped_crc_byte", "gzip_bare_header", "gzip_two_members", "gzip_two_documents", "syntax_4mb_plain",
    "syntax_4mb_gzip", "window_boundary_no_comma", "window_boundary_garbage", "duplicate_key", "number_1e400",
    "invalid_utf8", "bad_escape", "trailing_content", "cut_near_end",
]


def gz(data):
    return gzip.compress(data, compresslevel=1, mtime=0)


def elements(text):
    """(begin, end) of each element of the root's big list."""
    for key in (b'"traceEvents"', b'"nodes"'):
        at = text.find(key)
        if at >= 0:
            break
    start = text.index(b"[", at) + 1
    decoder = json.JSONDecoder()
    body = text.decode("utf-8")
    # Character offsets equal byte offsets only for ASCII; map through bytes.
    if len(body) != len(text):
        raise SystemExit("non-ASCII trace: element offsets would not be byte offsets")
    out = []
    pos = start
    while True:
        while body[pos] in " \t\r\n,":
            pos += 1
        if body[pos] == "]":
            return out
        _, end = decoder.raw_decode(body, pos)
        out.append((pos, end))
        pos = end


def insert_field(text, field):
    """`field` added first in the middle element of the big list."""
    spans = elements(text)
    begin, _ = spans[len(spans) // 2]
    return text[: begin + 1] + field + text[begin + 1 :]


def window_boundary_comma(text):
    spans = elements(text)
    window_begin = spans[0][0]
    for begin, end in spans:
        if end - window_begin >= WINDOW_BYTES:
            return text.index(b",", end)
    raise SystemExit("the list is shorter than one window")


def make(variant, text):
    if variant == "empty":
        return b""
    if variant == "cut_in_string":
        return text[: text.index(b'"', len(text) // 2) + 3]
    if variant == "gzip_cut_in_stream":
        data = gz(text)
        return data[: len(data) // 2]
    if variant == "gzip_cut_before_trailer":
        return gz(text)[:-8]
    if variant == "gzip_flipped_deflate_byte":
        data = bytearray(gz(text))
        data[len(data) // 2] ^= 0xFF
        return bytes(data)
    if variant == "gzip_flipped_crc_byte":
        data = bytearray(gz(text))
        data[-6] ^= 0x01
        return bytes(data)
    if variant == "gzip_bare_header":
        return gz(text)[:10]
    if variant == "gzip_two_members":
        half = len(text) // 2
        return gz(text[:half]) + gz(text[half:])
    if variant == "gzip_two_documents":
        return gz(text) + gz(text)
    if variant in ("syntax_4mb_plain", "syntax_4mb_gzip"):
        at = text.index(b":", 4_000_000)
        broken = text[:at] + b" " + text[at + 1 :]
        return broken if variant.endswith("plain") else gz(broken)
    if variant == "window_boundary_no_comma":
        at = window_boundary_comma(text)
        return text[:at] + b" " + text[at + 1 :]
    if variant == "window_boundary_garbage":
        at = window_boundary_comma(text)
        return text[: at + 1] + b"x" + text[at + 1 :]
    if variant == "duplicate_key":
        return insert_field(text, b'"name": "duplicate", ')
    if variant == "number_1e400":
        return insert_field(text, b'"snr_big": 1e400, ')
    if variant == "invalid_utf8":
        return insert_field(text, b'"snr_bad": "\xff\xfe", ')
    if variant == "bad_escape":
        return insert_field(text, b'"snr_escape": "\\q", ')
    if variant == "trailing_content":
        return text + b" x"
    if variant == "cut_near_end":
        return text[:-100]
    raise SystemExit(f"unknown variant {variant}")


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(VARIANTS))
        return
    variant, source, out = sys.argv[1:]
    with open(source, "rb") as f:
        data = f.read()
    text = zlib.decompress(data, 16 + zlib.MAX_WBITS) if data[:2] == b"\x1f\x8b" else data
    with open(out, "wb") as f:
        f.write(make(variant, text))


if __name__ == "__main__":
    main()
