# Dependency graphs: dot text always; SVG/PDF when Graphviz is installed.
source "$(dirname "$0")/lib.sh"

sample="$SRC/src/formats/chakra/testdata/sample.0.et"
"$SNR" et visualize "$sample" -o "$WORK/g.dot" | grep -q "6 node(s)"
expect_contains "$WORK/g.dot" 'n5 [label="5: optimizer_step\nCOMP_NODE\n35 us"'
expect_contains "$WORK/g.dot" "n2 -> n5 [style=dashed"
expect_contains "$WORK/g.dot" "n1 -> n5;"
"$SNR" et visualize "$sample" -o "$WORK/g2.dot" >/dev/null
cmp -s "$WORK/g.dot" "$WORK/g2.dot" || fail "visualize output is not deterministic"

expect_fail "$SNR" et visualize "$sample" -o "$WORK/big.dot" --max-nodes 3
expect_contains "$WORK/expect_fail.out" "more than 3 nodes; raise --max-nodes"
[[ ! -e "$WORK/big.dot" ]] || fail "output written despite the guard"
expect_fail "$SNR" et visualize "$sample" -o "$WORK/g.png"
expect_contains "$WORK/expect_fail.out" 'unsupported output extension ".png"'

if command -v dot >/dev/null; then
  "$SNR" et visualize "$sample" -o "$WORK/g.svg" >/dev/null
  expect_contains "$WORK/g.svg" "<svg"
  "$SNR" et visualize "$sample" -o "$WORK/g.pdf" >/dev/null
  [[ "$(head -c 4 "$WORK/g.pdf")" == "%PDF" ]] || fail "not a PDF"
  # Without dot on PATH the error says what to install.
  expect_fail env PATH=/nonexistent "$SNR" et visualize "$sample" -o "$WORK/n.svg"
  expect_contains "$WORK/expect_fail.out" "Graphviz \`dot\` not found on PATH"
fi
if [[ -d "$DATA/astra-sim" ]]; then
  "$SNR" et visualize "$DATA/astra-sim/system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et" \
    -o "$WORK/ring.dot" | grep -q "35 node(s)"
fi
echo "et core visualize ok"
