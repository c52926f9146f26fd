# Pins the ONNX conformance results folder by folder: every folder named in
# tests/onnx_expected/*.txt (one file per op family, one folder name per line, as
# `berth onnx-test -v` prints it) must PASS, so a change that breaks a folder that passed
# fails here even if the totals still look fine. Runs the whole shared suite once (normal
# build, about 1 s) and allows no FAIL beyond the MAX_FAILED known ones. Skips (77) when the
# data is absent.
BERTH=$1
SRC=${2:-.}
MAX_FAILED=0
DATA=${BERTH_DATA_DIR:-../shared/data}
if [ ! -d "$DATA/onnx-node-tests" ] || [ ! -d "$DATA/onnx-backend-tests" ]; then
  echo "skipped: $DATA/onnx-node-tests or onnx-backend-tests not found (the ONNX suites live in ../shared/data)"
  exit 77
fi
set -- "$DATA/onnx-node-tests"/*
for d in node pytorch-converted pytorch-operator simple light-tests; do
  [ -d "$DATA/onnx-backend-tests/$d" ] && set -- "$@" "$DATA/onnx-backend-tests/$d"/*
done
log=$(mktemp)
want=$(mktemp)
trap 'rm -f "$log" "$want"' EXIT
"$BERTH" onnx-test -v "$@" >"$log" 2>&1
grep -E '^FAIL ' "$log"
tail -n 1 "$log"
status=0
cat "$SRC"/tests/onnx_expected/*.txt | sed '/^#/d;/^$/d' | sort -u >"$want"
missing=$(sed -n 's/^PASS //p' "$log" | sort | comm -23 "$want" -)
if [ -n "$missing" ]; then
  echo "FAIL: folders expected to pass did not:"
  for t in $missing; do grep -E "^(FAIL|UNSUPPORTED) $t:" "$log" || echo "$t: not run (folder missing from the data?)"; done
  status=1
fi
failed=$(grep -c '^FAIL ' "$log")
if [ "$failed" -gt "$MAX_FAILED" ]; then
  echo "FAIL: $failed folders failed, more than the $MAX_FAILED known"
  status=1
fi
[ $status -eq 0 ] && echo "ok: all $(wc -l <"$want") expected folders pass, at most $MAX_FAILED known FAILs"
exit $status
