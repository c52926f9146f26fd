# Helpers for the command-line tests: each test script sources this with the berth binary
# as $1. expect_out NAME EXPECTED CMD... compares stdout; expect_fail NAME PATTERN CMD...
# requires a non-zero exit and a stderr line matching PATTERN (grep -E).
BERTH=$1
failures=0
expect_out() {
  name=$1; want=$2; shift 2
  got=$("$@" 2>/tmp/berth_cli_err.$$) || { echo "FAIL $name: exit $?: $(cat /tmp/berth_cli_err.$$)"; failures=$((failures+1)); return; }
  if [ "$got" != "$want" ]; then
    echo "FAIL $name"; echo "  want: $want"; echo "  got:  $got"; failures=$((failures+1))
  else echo "ok   $name"; fi
}
expect_fail() {
  name=$1; pattern=$2; shift 2
  if "$@" >/dev/null 2>/tmp/berth_cli_err.$$; then
    echo "FAIL $name: succeeded, expected failure"; failures=$((failures+1)); return
  fi
  if grep -Eq "$pattern" /tmp/berth_cli_err.$$; then echo "ok   $name"
  else echo "FAIL $name: stderr does not match '$pattern':"; cat /tmp/berth_cli_err.$$; failures=$((failures+1)); fi
}
finish() {
  rm -f /tmp/berth_cli_err.$$
  [ $failures -eq 0 ] || { echo "$failures failed"; exit 1; }
  echo "all passed"
}
