# Progress on stderr for long work (onnx-test, fuzz, search/exact with long budgets) only
# when stderr is a terminal: never an escape sequence in a pipe or a file, and a progress
# line on a terminal (through script(1), from util-linux, when it is installed).
. "$(dirname "$0")/lib.inc"
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$BERTH" fuzz --count 20 --seed 5 >/dev/null 2>"$err"
expect_out "fuzz: no progress into a file" "clean" sh -c "grep -q \"\$(printf '\\033')\" '$err' && echo dirty || echo clean"
"$BERTH" plan tests/bir/nested.bir --algo exact --budget-ms 1000 >/dev/null 2>"$err"
expect_out "plan: no progress into a file" "clean" sh -c "grep -q \"\$(printf '\\033')\" '$err' && echo dirty || echo clean"
if command -v script >/dev/null 2>&1; then
  expect_out "fuzz: progress on a terminal" "yes" sh -c "script -qc '$BERTH fuzz --count 20 --seed 5' /dev/null | grep -q 'fuzz: 20 of 20 programs, 0 failing' && echo yes"
  expect_out "plan: a note before a long exact search" "yes" sh -c "script -qc '$BERTH plan tests/bir/nested.bir --algo exact --budget-ms 1000' /dev/null | grep -q 'planning with exact, up to 1.0 s' && echo yes"
else
  echo "note: script(1) not installed; the terminal side is not checked"
fi
finish
