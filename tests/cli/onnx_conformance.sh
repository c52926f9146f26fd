# The ONNX backend node tests (../shared/data/onnx-node-tests) through `berth onnx-test`:
# every If, Loop, Scan and Range test without sequence or optional types must pass, nothing
# may fail, and at least 90 % of the folder must pass. Skips (77) when the data is absent.
BERTH=$1
DIR=${BERTH_DATA_DIR:-../shared/data}/onnx-node-tests
if [ ! -d "$DIR" ]; then
  echo "skipped: $DIR not found (the ONNX backend node tests live in ../shared/data)"
  exit 77
fi
out=$("$BERTH" onnx-test "$DIR"/* 2>&1)
rc=$?
echo "$out" | grep -E '^(FAIL|UNSUPPORTED) ' || true
summary=$(echo "$out" | tail -n 1)
echo "$summary"
set -- $(echo "$summary" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) unsupported$/\1 \2 \3/p')
if [ $# -ne 3 ]; then echo "FAIL: no summary line"; exit 1; fi
passed=$1 failed=$2 unsupported=$3
total=$((passed + failed + unsupported))
status=0
if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ]; then echo "FAIL: $failed tests failed (exit $rc)"; status=1; fi
if [ $((passed * 100)) -lt $((total * 90)) ]; then echo "FAIL: pass rate $passed/$total is under 90%"; status=1; fi
# control flow and Range: each test named if/loop/scan/range must pass unless it uses sequences or optionals
for t in $(echo "$out" | sed -n 's/^\(FAIL\|UNSUPPORTED\) \([^:]*\):.*/\2/p'); do
  case "$t" in
    *_seq|*_seq_*|*_opt|*_opt_*) ;;
    test_if*|test_loop*|test_scan*|test_range*) echo "FAIL: control-flow/Range test $t did not pass"; status=1 ;;
  esac
done
[ $status -eq 0 ] && echo "ok: $passed/$total passed"
exit $status
