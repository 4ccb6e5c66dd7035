# Reads an `snr disasm -s <op>` listing and prints one move (moves file of
# `snr rewrite --moves`) taking the first GROUPS DMA issues of the op, each
# with the scalar address computation right before it, to BEFORE (a pc):
# the shape of a far prefetch suggestion. Usage:
#   awk -v GROUPS=60 -v BEFORE=0x3a5a8 -f prefetch_moves.awk listing.txt
/^ *[0-9a-f]+:/ {
  addr = "0x" substr($1, 1, length($1) - 1)
  if ($3 == "dma.issue") {
    if (found < GROUPS) { pcs = pcs pending (pcs == "" && pending == "" ? "" : ", ") "\"" addr "\""; found++ }
    pending = ""
  } else if ($3 ~ /^(lui|addi|addiw|slli|li|mv|add|ld)$/) {
    pending = pending (pcs == "" && pending == "" ? "" : ", ") "\"" addr "\""
  } else {
    pending = ""
  }
}
END { printf "{\"moves\": [{\"pcs\": [%s], \"before_pc\": \"%s\"}]}\n", pcs, BEFORE }
