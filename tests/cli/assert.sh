# assert, the run-time check: a true check passes, a false one fails the call with its
# message, a non-zero exit and no outputs, in the planned runtime (also from a compiled
# file and under the sanitizer) and in the reference interpreter alike. An ONNX Loop bounded
# by --max-trip-count checks at run time that the bound was enough, instead of cutting the
# loop short.
BERTH=$1
. tests/cli/lib.inc
A=tests/bir/assert.bir
F=/tmp/berth_assert.$$.berth
for mode in "" --reference --sanitize "--alloc-inputs 0 --alloc-outputs 0"; do
  expect_out "assert passes $mode" "y = f64[1] [6] m = i64[] 4 y = f64[1] [2] m = i64[] 7" sh -c \
    "\"$BERTH\" run $A $mode --call 'f64[1]:3 i64[]:-4' --call 'f64[1]:1 i64[]:7' | sed -n 's/^ *%//p' | tr '\\n' ' ' | sed 's/ $//'"
  expect_fail_quiet "assert fails $mode" "call 1: .*run-time check failed .*\(%small is false\): x must be at most 10$" \
    "$BERTH" run $A $mode --call 'f64[1]:11 i64[]:5'
  expect_fail_quiet "assert in a branch fails $mode" "call 1: .*\(%under is false\): n must be below 100 \(a \"large\" n\)$" \
    "$BERTH" run $A $mode --call 'f64[1]:2 i64[]:100'
done
expect_fail_quiet "assert planned names the instruction" \
  "^berth: call 1: method forward: run-time check failed at instruction 1 \(%small is false\)" \
  "$BERTH" run $A --call 'f64[1]:11 i64[]:5'
expect_fail_quiet "assert reference names the node" \
  "^berth: call 1: node assert \(line 13\) in func @forward: run-time check failed \(%small is false\)" \
  "$BERTH" run $A --reference --call 'f64[1]:11 i64[]:5'
# a later call that fails prints the earlier call's outputs only
expect_out "assert stops at the failing call" "call 1: %y = f64[1] [6] %m = i64[] 4" sh -c \
  "\"$BERTH\" run $A --call 'f64[1]:3 i64[]:-4' --call 'f64[1]:11 i64[]:5' 2>/dev/null | tr '\\n' ' ' | sed 's/  */ /g; s/ $//'"
expect_out "assert compiles" "ok" sh -c "\"$BERTH\" compile $A -o $F >/dev/null && echo ok"
expect_out "assert compiled passes" "y = f64[1] [6] m = i64[] 4" sh -c \
  "\"$BERTH\" run $F --call 'f64[1]:3 i64[]:-4' | sed -n 's/^ *%//p' | tr '\\n' ' ' | sed 's/ $//'"
expect_fail_quiet "assert compiled fails" "run-time check failed at instruction 1 \(%small is false\): x must be at most 10$" \
  "$BERTH" run $F --call 'f64[1]:11 i64[]:5'
expect_out "assert in dis" '1     assert             %small  {message = "x must be at most 10"}' sh -c \
  "\"$BERTH\" dis $F | grep -F 'assert             %small' | sed 's/^ *//'"
rm -f $F

# ONNX Loop with a trip count M given at run time, bounded by --max-trip-count 5
L=tests/onnx/loop_no_cond_scan/model.onnx
expect_out "loop within the bound" "vf = f32[1] [42] ys = f32[5,1] [[1], [3], [8], [19], [42]]" sh -c \
  "\"$BERTH\" run $L --max-trip-count 5 --call 'i64[]:5 f32[1]:0.5' | sed -n 's/^ *%//p' | tr '\\n' ' ' | sed 's/ $//'"
expect_out "loop within a larger bound" "vf = f32[1] [42] ys = f32[8,1] [[1], [3], [8], [19], [42], [0], [0], [0]]" sh -c \
  "\"$BERTH\" run $L --max-trip-count 8 --call 'i64[]:5 f32[1]:0.5' | sed -n 's/^ *%//p' | tr '\\n' ' ' | sed 's/ $//'"
for mode in "" --reference --sanitize; do
  expect_fail_quiet "loop over the bound $mode" "Loop 'vf' needs more than --max-trip-count 5 iterations$" \
    "$BERTH" run $L --max-trip-count 5 $mode --call 'i64[]:6 f32[1]:0.5'
done
finish
