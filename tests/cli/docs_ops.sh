# docs/ops.md lists exactly the ONNX ops `berth ops` prints, and (with the shared suite in
# ../shared/data) is exactly what tools/docs/gen-ops.sh writes: an op added, or a suite
# result changed, without regenerating the page fails here.
. "$(dirname "$0")/lib.inc"
want=$("$BERTH" ops | sed '/^#/d' | awk '{print $1}')
got=$(grep -v '^| op |' docs/ops.md | sed -n 's/^| \([A-Za-z0-9]*\) | [a-z]* |.*/\1/p')
expect_out "docs/ops.md lists the ops berth ops prints" "$want" printf '%s\n' "$got"
DATA=${BERTH_DATA_DIR:-../shared/data}
if [ -d "$DATA/onnx-node-tests" ] && [ -d "$DATA/onnx-backend-tests" ]; then
  expect_out "docs/ops.md is up to date (sh tools/docs/gen-ops.sh build/berth > docs/ops.md)" "same" \
    sh -c "sh tools/docs/gen-ops.sh '$BERTH' '$DATA' | cmp -s - docs/ops.md && echo same"
else
  echo "note: $DATA absent; the suite columns are not checked"
fi
finish
