"""Checks a suggestions table (suggestions.json) from `snr analyze`/`snr demo`:
every suggestion verified as legal has a predicted saving within 25% of the
verified one, and the verified suggestions come first, ranked by verified
saving. Usage: check_suggestions.py TABLES_DIR [MIN_VERIFIED]"""
import json
import sys

tables = sys.argv[1]
min_verified = int(sys.argv[2]) if len(sys.argv) > 2 else 1
suggestions = json.load(open(f"{tables}/suggestions.json"))
verified = [s for s in suggestions if s["verification_attempted"] and s["verification_legal"]]
assert len(verified) >= min_verified, f"{len(verified)} suggestions verified as legal, expected {min_verified}"
for s in verified:
    predicted, measured = s["predicted_saving_cycles"], s["measured_saving_cycles"]
    print(f"#{s['rank']} {s['kind']} {s['op']}: predicted {predicted}, verified {measured}")
    assert abs(predicted - measured) <= 0.25 * abs(measured), (
        f"#{s['rank']} ({s['op']}): predicted {predicted} vs verified {measured} is more than 25% off")
ranks = [s["rank"] for s in verified]
assert ranks == list(range(1, len(verified) + 1)), f"verified suggestions are not ranked first: {ranks}"
savings = [s["measured_saving_cycles"] for s in verified]
assert savings == sorted(savings, reverse=True), f"verified suggestions not ranked by verified saving: {savings}"
