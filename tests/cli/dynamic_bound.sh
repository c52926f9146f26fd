# Results whose shape depends on data, bounded by --dynamic-bound N: the real shape reaches
# every consumer of outputs (printed, --json, .npy, a compiled file, --reference,
# --sanitize, caller output buffers), a call whose data yields more than N fails with the
# node and the bound and a non-zero exit, and the official ONNX folders of NonZero, Compress,
# Unique and NonMaxSuppression pass through the bounded kernels (onnx-test --dynamic-bound
# does not specialize the model on their input values). The ONNX part uses ../shared/data
# and is left out (with a note) when it is absent.
BERTH=$1
. tests/cli/lib.inc
B=tests/bir/dynamic_bound.bir
F=/tmp/berth_dynbound.$$.berth
D=/tmp/berth_dynbound.$$.d
for mode in "" --reference --sanitize "--alloc-inputs 0 --alloc-outputs 0 --sanitize"; do
  expect_out "bounded output $mode" "idx = i64[2,3] [[0, 1, 1], [1, 0, 2]] y = f32[2,3] [[0, 1, 0], [2, 0, 3]] idx = i64[2,0] [[], []] y = f32[2,3] [[0, 0, 0], [0, 0, 0]]" \
    sh -c "\"$BERTH\" run $B $mode --call 'f32[2,3]:0,1,0,2,0,3' --call 'f32[2,3]:0,0,0,0,0,0' | sed -n 's/^ *%//p' | tr '\\n' ' ' | sed 's/ $//'"
  expect_status "over the bound $mode" 1 "run-time check failed .*: NonZero 'nz': yields more than --dynamic-bound 4 results$" \
    "$BERTH" run $B $mode --call 'f32[2,3]:1,1,1,0,1,1'
done
expect_out "bounded output --json" '{"calls":[{"outputs":[{"dtype":"i64","shape":[2,3],"data":[0,1,1,1,0,2]},{"dtype":"f32","shape":[2,3],"data":[0.0,1.0,0.0,2.0,0.0,3.0]}]}]}' \
  "$BERTH" run $B --json --call 'f32[2,3]:0,1,0,2,0,3'
mkdir -p $D
expect_out "bounded output .npy" "ok" sh -c "\"$BERTH\" run $B --out-dir $D --call 'f32[2,3]:0,1,0,2,0,3' >/dev/null &&
  head -c 128 $D/call1_out0.npy | grep -q \"'shape': (2, 3)\" && [ \$(wc -c < $D/call1_out0.npy) -eq \$(( \$(head -c 10 $D/call1_out0.npy | tail -c 2 | od -An -tu2 | tr -d ' ') + 10 + 48 )) ] && echo ok"
rm -rf $D
expect_out "compiled" "ok" sh -c "\"$BERTH\" compile $B -o $F >/dev/null && echo ok"
expect_out "compiled file runs bounded" "idx = i64[2,1] [[1], [2]] y = f32[2,3] [[0, 0, 0], [0, 0, 7]]" sh -c \
  "\"$BERTH\" run $F --call 'f32[2,3]:0,0,0,0,0,7' | sed -n 's/^ *%//p' | tr '\\n' ' ' | sed 's/ $//'"
expect_status "compiled file over the bound" 1 "NonZero 'nz': yields more than --dynamic-bound 4 results$" \
  "$BERTH" run $F --sanitize --call 'f32[2,3]:1,1,1,1,1,1'
expect_out "dis shows the bound" "output 0  %idx              i64[2,4]       v1  axis 1 bounded, extent v2" sh -c \
  "\"$BERTH\" dis $F | grep -F 'output 0' | sed 's/^ *//'"
rm -f $F
expect_status "--dynamic-bound 0" 2 "--dynamic-bound '0': expected a positive integer" "$BERTH" check $B --dynamic-bound 0
expect_status "--dynamic-bound on a .bir" 1 "--dynamic-bound apply to ONNX models only" "$BERTH" check $B --dynamic-bound 3
expect_status "onnx-test --dynamic-bound x" 2 "--dynamic-bound expects a positive integer" "$BERTH" onnx-test --dynamic-bound x .

N=${BERTH_DATA_DIR:-../shared/data}/onnx-backend-tests/node
if [ -d "$N/test_nonzero_example" ]; then
  dirs=$(echo $(ls -d $N/test_nonzero_* $N/test_compress_* $N/test_unique_* $N/test_nonmaxsuppression_*))
  n=$(echo $dirs | wc -w)
  for mode in "" --sanitize; do
    expect_out "onnx-test --dynamic-bound 64 $mode ($n folders)" "$n passed, 0 failed, 0 unsupported" sh -c \
      "\"$BERTH\" onnx-test --dynamic-bound 64 $mode $dirs | tail -1"
  done
  expect_out "onnx-test --dynamic-bound runs the bounded kernels" "21" sh -c \
    "\"$BERTH\" onnx-test --dynamic-bound 64 --print-ir $dirs 2>&1 | grep -cE '= (nonzero|compress|unique|nms)_bounded\('"
  NZ=$N/test_nonzero_example/model.onnx
  for mode in "" --reference --sanitize; do
    expect_out "nonzero bounded $mode" "result = i64[2,3] [[0, 1, 1], [0, 0, 1]]" sh -c \
      "\"$BERTH\" run $NZ --dynamic-bound 4 $mode --call 'bool[2,2]:1,0,1,1' | sed -n 's/^ *%//p'"
    expect_status "nonzero over the bound $mode" 1 "NonZero with output 'result': yields more than --dynamic-bound 2 results$" \
      "$BERTH" run $NZ --dynamic-bound 2 $mode --call 'bool[2,2]:1,0,1,1'
  done
  expect_out "compress bounded" "output = f32[2,2] [[3, 4], [5, 6]] output = f32[0,2] []" sh -c \
    "\"$BERTH\" run $N/test_compress_0/model.onnx --dynamic-bound 3 --call 'f32[3,2]:1,2,3,4,5,6 bool[3]:0,1,1' --call 'f32[3,2]:1,2,3,4,5,6 bool[3]:0,0,0' | sed -n 's/^ *%//p' | tr '\\n' ' ' | sed 's/ $//'"
else
  echo "note: $N not found; the ONNX part is left out (the suites live in ../shared/data)"
fi
finish
