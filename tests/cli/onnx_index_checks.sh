# Indices read from data (Gather, GatherND, ScatterND, ScatterElements, ReverseSequence) are checked
# at run time: an index out of range fails the call with a message naming the node and the
# range, in the planned runtime, the reference and under the sanitizer, never a read or write
# out of bounds; in range (negative indices counting from the end) the call succeeds. K of
# TopK past the axis is refused at compile time. Ops whose result shape depends on data
# (Compress, NonZero, Unique) work when that data folds to a constant (--input NAME=...),
# and are refused naming the input and --dynamic-bound otherwise (tests/cli/dynamic_bound.sh
# runs them bounded). Uses the official ONNX node-test models of
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
# Gather: a run-time index outside [-dim, dim) fails the call (it used to read as a slice of zeros)
G=${BERTH_DATA_DIR:-../shared/data}/onnx-node-tests/test_gather_negative_indices/model.onnx
if [ -f "$G" ]; then
  X='f32[10]:0,1,2,3,4,5,6,7,8,9'
  for mode in "" --reference --sanitize; do
    expect_out "gather in range $mode" "y = f32[3] [0, 1, 0]" sh -c \
      "\"$BERTH\" run $G $mode --call '$X i64[3]:0,-9,-10' | sed -n 's/^ *%//p'"
    expect_fail_quiet "gather out of range $mode" "Gather with output 'y': indices holds a value outside \[-10, 10\)$" \
      "$BERTH" run $G $mode --call "$X i64[3]:0,10,1"
    expect_fail_quiet "gather below range $mode" "Gather with output 'y': indices holds a value outside" \
      "$BERTH" run $G $mode --call "$X i64[3]:0,-11,1"
  done
fi
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
C=$N/test_compress_0/model.onnx
expect_out "compress on a constant condition" "output = f32[2,2] [[3, 4], [5, 6]]" sh -c \
  "\"$BERTH\" run $C --input 'condition:bool[3]=0,1,1' --call 'f32[3,2]:1,2,3,4,5,6' | sed -n 's/^ *%//p'"
expect_fail "compress on a run-time condition" \
  "\(Compress, opset [0-9]+\): the condition of Compress \(it sets the result's shape; or bound it with --dynamic-bound N\) must be known at compile time, but it depends on graph input 'condition'" \
  "$BERTH" run $C --call "f32[3,2]:1,2,3,4,5,6 bool[3]:0,1,1"
expect_out "nonzero of a constant" "result = i64[2,3] [[0, 1, 1], [0, 0, 1]]" sh -c \
  "\"$BERTH\" run $N/test_nonzero_example/model.onnx --input 'condition:bool[2,2]=1,0,1,1' --call '' | sed -n 's/^ *%//p'"
expect_fail "nonzero at run time" "the input of NonZero \(it sets the result's shape; or bound it with --dynamic-bound N\) must be known at compile time" \
  "$BERTH" run $N/test_nonzero_example/model.onnx --call "bool[2,2]:1,0,1,1"
expect_out "unique of a constant" "Y = f32[2,3] [[1, 0, 0], [2, 3, 4]] indices = i64[2] [0, 2] inverse_indices = i64[3] [0, 0, 1] counts = i64[2] [2, 1]" sh -c \
  "\"$BERTH\" run $N/test_unique_sorted_with_axis/model.onnx --input 'X:f32[3,3]=1,0,0,1,0,0,2,3,4' --call '' | sed -n 's/^ *%//p' | tr '\\n' ' ' | sed 's/ $//'"
finish
