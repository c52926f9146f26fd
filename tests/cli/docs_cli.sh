# docs/cli.md is the tool's own help (tools/docs/gen-cli.sh): a help text changed without
# regenerating the page fails here.
. "$(dirname "$0")/lib.inc"
got=$(sh tools/docs/gen-cli.sh "$BERTH") || { echo "FAIL gen-cli.sh"; exit 1; }
if printf '%s\n' "$got" | diff -u docs/cli.md - > /tmp/berth_cli_out.$$; then echo "ok   docs/cli.md is up to date"
else echo "FAIL docs/cli.md is out of date (sh tools/docs/gen-cli.sh build/berth > docs/cli.md):"; head -20 /tmp/berth_cli_out.$$; failures=$((failures+1)); fi
finish
