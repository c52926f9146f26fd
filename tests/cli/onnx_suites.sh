# The whole shared ONNX conformance suite (../shared/data/onnx-node-tests and
# onnx-backend-tests/{node,pytorch-converted,pytorch-operator,simple,light-tests}) through
# `berth onnx-test --sanitize`. In the sanitizer build (ASan + UBSan, -fno-sanitize-recover)
# an out-of-range conversion or any other undefined behaviour on the way stops berth: the
# test fails on a crash, a sanitizer report, a missing summary, or more FAILs than the
# known ones (MAX_FAILED, lowered as they are fixed). Skips (77) when the data is absent.
BERTH=$1
MAX_FAILED=0
DATA=${BERTH_DATA_DIR:-../shared/data}
if [ ! -d "$DATA/onnx-node-tests" ] || [ ! -d "$DATA/onnx-backend-tests" ]; then
  echo "skipped: $DATA/onnx-node-tests or onnx-backend-tests not found (the ONNX suites live in ../shared/data)"
  exit 77
fi
set -- "$DATA/onnx-node-tests"
for d in node pytorch-converted pytorch-operator simple light-tests; do
  [ -d "$DATA/onnx-backend-tests/$d" ] && set -- "$@" "$DATA/onnx-backend-tests/$d"
done
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=halt_on_error=1:detect_leaks=1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$BERTH" onnx-test --sanitize "$@" >"$log" 2>&1
rc=$?
grep -E '^FAIL ' "$log"
summary=$(tail -n 1 "$log")
echo "$summary"
if grep -Eq 'runtime error:|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer' "$log"; then
  echo "FAIL: a sanitizer report:"; grep -E -A12 'runtime error:|Sanitizer' "$log" | head -40; exit 1
fi
set -- $(echo "$summary" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) unsupported$/\1 \2 \3/p')
if [ $# -ne 3 ]; then echo "FAIL: no summary line (exit $rc): berth stopped"; tail -n 20 "$log"; exit 1; fi
if [ "$rc" -gt 1 ]; then echo "FAIL: exit $rc"; exit 1; fi
if [ "$2" -gt "$MAX_FAILED" ]; then echo "FAIL: $2 folders failed, more than the $MAX_FAILED known"; exit 1; fi
echo "ok: $1 passed, $2 failed (at most $MAX_FAILED known), $3 unsupported; no sanitizer report"
