# `berth onnx-test` never reports success for a folder it did not test: a folder without any
# model.onnx, a test_data_set_* without its model, a file instead of a folder and an
# input_N.pb with no graph input to bind to are failures (exit 1, a FAIL line saying why).
# `--input NAME:DTYPE[]=V` values that are no value of the dtype are refused.
BERTH=$1
. tests/cli/lib.inc
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/empty/sub" "$T/lost/test_data_set_0"
cp -r tests/onnx/loop_no_cond "$T/extra"
n=$(ls "$T/extra/test_data_set_0" | grep -c '^input_')
cp "$T/extra/test_data_set_0/input_0.pb" "$T/extra/test_data_set_0/input_$n.pb"
ot() { "$BERTH" onnx-test "$@" >/tmp/berth_ot_out.$$ 2>&1; rc=$?; cat /tmp/berth_ot_out.$$ >&2; rm -f /tmp/berth_ot_out.$$; return $rc; }
expect_fail ot_empty "^FAIL empty: no model.onnx in it or in its sub-folders" ot "$T/empty"
expect_fail ot_lost "^FAIL test_data_set_0|^FAIL lost: it has test_data_set_\* folders but no model.onnx" ot "$T/lost"
expect_fail ot_file "^FAIL model.onnx: not a folder" ot tests/onnx/loop_no_cond/model.onnx
expect_fail ot_extra_input "^FAIL extra: input_$n.pb has no graph input to bind to \(the model has $n\)" ot "$T/extra"
expect_fail ot_missing "^FAIL nothing_here: no such folder" ot "$T/nothing_here"
expect_out ot_still_passes "1 passed, 0 failed, 0 unsupported" sh -c "\"$BERTH\" onnx-test tests/onnx/loop_no_cond | tail -n 1"
# --input values: an integer that does not fit its dtype (or is no integer) is refused, not
# wrapped to its low bytes or cut at the point
expect_fail input_i32_3e9 "value 0 is not a i32 \\('3000000000'\\)" "$BERTH" run tests/onnx/loop_no_cond/model.onnx --input 'M:i32[]=3000000000' --call 'f32[1]:2'
expect_fail input_i64_2p63 "value 0 is not a i64 \\('9223372036854775808'\\)" "$BERTH" run tests/onnx/loop_no_cond/model.onnx --input 'M:i64[]=9223372036854775808' --call 'f32[1]:2'
expect_fail input_i64_frac "value 0 is not a i64 \\('2.5'\\)" "$BERTH" run tests/onnx/loop_no_cond/model.onnx --input 'M:i64[]=2.5' --call 'f32[1]:2'
# a 34 KB model that calls a function (an If of 1,000 nodes inside) 300 times: refused at the
# cap on nodes expanded from functions, sub-graphs counted, in well under a second (without
# the cap it became a 300,000-node program that took minutes to verify)
expect_fail "function expansion capped" "cap of 262144 nodes expanded from functions" \
  $BERTH check fuzz/corpus/onnx/err_function_expands_to_too_many_nodes.onnx
finish
