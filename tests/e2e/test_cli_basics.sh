source "$(dirname "$0")/lib.sh"
"$SNR" version | grep -q '^snr '
expect_fail "$SNR"
expect_fail "$SNR" no-such-verb
"$SNR" --help >"$WORK/help.txt"
expect_contains "$WORK/help.txt" "version"
echo "cli basics ok"
