# Indices read from data (GatherND, ScatterND, ScatterElements, ReverseSequence) are checked
# at run time: an index out of range fails the call with a message naming the node and the
# range, in the planned runtime, the reference and under the sanitizer, never a read or write
# out of bounds; in range (negative indices counting from the end) the call succeeds. K of
# TopK past the axis is refused at compile time. Uses the official ONNX node-test models of
# ../shared/data; skips (77) when they are absent.
BERTH=$1
. tests/cli/lib.inc
N=${BERTH_DATA_DIR:-../shared/data}/onnx-backend-tests/node
if [ ! -d "$N/test_gathernd_example_float32" ]; then
  echo "skipped: $N not found (the ONNX suites live in ../shared/data)"
  exit 77
fi
X='f32[2,2,2]:1,2,3,4,5,6,7,8'
G=$N/test_gathernd_example_float32/model.onnx
for mode in "" --reference --sanitize; do
  expect_out "gathernd in range $mode" "output = f32[2,1,2] [[[1, 2]], [[5, 6]]]" sh -c \
    "\"$BERTH\" run $G $mode --call '$X i64[2,1,2]:0,-2,-1,0' | sed -n 's/^ *%//p'"
  expect_fail_quiet "gathernd out of range $mode" \
    "run-time check failed .*GatherND with output 'output': indices holds a value outside the data's dims$" \
    "$BERTH" run $G $mode --call "$X i64[2,1,2]:0,1,2,0"
  expect_fail_quiet "gathernd below range $mode" "GatherND with output 'output': indices holds a value outside" \
    "$BERTH" run $G $mode --call "$X i64[2,1,2]:0,-3,1,0"
done
S=$N/test_scatter_elements_with_axis/model.onnx
expect_out "scatter_elements negative index" "y = f32[1,5] [[8, 9, 3, 4, 5]]" sh -c \
  "\"$BERTH\" run $S --call 'f32[1,5]:1,2,3,4,5 i64[1,2]:1,-5 f32[1,2]:9,8' | sed -n 's/^ *%//p'"
expect_fail_quiet "scatter_elements out of range" "ScatterElements with output 'y': indices holds a value outside \[-5, 5\)$" \
  "$BERTH" run $S --sanitize --call "f32[1,5]:1,2,3,4,5 i64[1,2]:1,-6 f32[1,2]:9,9"
z64=$(seq -s, 64 | sed 's/[0-9][0-9]*/0/g')
o32=$(seq -s, 32 | sed 's/[0-9][0-9]*/1/g')
expect_fail_quiet "scatternd out of range" "ScatterND with output 'y': indices holds a value outside \[-4, 4\)$" \
  "$BERTH" run $N/test_scatternd/model.onnx --call "f32[4,4,4]:$z64 i64[2,1]:0,4 f32[2,4,4]:$o32"
R=$N/test_reversesequence_time/model.onnx
expect_fail_quiet "reversesequence length past the time steps" \
  "ReverseSequence with output 'y': sequence_lens holds a value outside \[0, 5\)$" \
  "$BERTH" run $R --call "f32[4,4]:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 i64[4]:4,3,5,1"
expect_fail_quiet "reversesequence negative length" "sequence_lens holds a value outside \[0, 5\)$" \
  "$BERTH" run $R --reference --call "f32[4,4]:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 i64[4]:4,3,-1,1"
expect_fail "topk K past the axis" "\(TopK, opset [0-9]+\): K is 5, expected 0 to 4 \(the size of axis 1\)" \
  "$BERTH" run $N/test_top_k/model.onnx --input 'k:i64[1]=5' --call "f32[3,4]:1,2,3,4,5,6,7,8,9,10,11,12"
finish
