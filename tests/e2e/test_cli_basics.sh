source "$(dirname "$0")/lib.sh"
"$SNR" version | grep -q '^snr '
expect_fail "$SNR"
expect_fail "$SNR" no-such-verb
"$SNR" --help >"$WORK/help.txt"
expect_contains "$WORK/help.txt" "version"
expect_contains "$WORK/help.txt" "Usage: snr [OPTIONS] SUBCOMMAND"
# A verb's usage line is the command to type, with the program's name.
"$SNR" et convert --help >"$WORK/convert_help.txt"
expect_contains "$WORK/convert_help.txt" "Usage: snr et convert [OPTIONS]"
"$SNR" help collective >"$WORK/collective_help.txt"
expect_contains "$WORK/collective_help.txt" "Usage: snr collective [OPTIONS]"
echo "cli basics ok"
