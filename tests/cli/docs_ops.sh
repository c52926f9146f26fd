# One table says what the shared conformance suite verifies of each ONNX op berth imports:
# src/onnx/onnx_op_support.c, generated from `berth onnx-test --per-op` (tools/docs/gen-ops.sh
# table). `berth ops` prints it, docs/ops.md is generated from `berth ops`. Fails when the page
# differs from what `berth ops` gives, and (with the shared suite in ../shared/data) when the
# table differs from what the suite gives now: an op added, or a suite result changed, without
# regenerating both.
. "$(dirname "$0")/lib.inc"
expect_out "docs/ops.md is up to date (sh tools/docs/gen-ops.sh page build/berth > docs/ops.md)" "same" \
  sh -c "sh tools/docs/gen-ops.sh page '$BERTH' | cmp -s - docs/ops.md && echo same"
n=$("$BERTH" ops | sed '/^#/d' | wc -l | tr -d ' ')
expect_out "berth ops --json lists the $n ops berth ops prints" "$n" sh -c "'$BERTH' ops --json | grep -c '\"op\": '"
expect_out "berth ops states that the types and opsets are what the suite verifies" "1" \
  sh -c "'$BERTH' ops | grep -c '^# opsets and input types: what the shared ONNX conformance suite verifies'"
expect_out "berth ops: an op the suite verifies, and one it does not cover" "TfIdfVectorizer sequence 9 int32 7 0 0
GlobalLpPool nn - - 0 0 0" sh -c "'$BERTH' ops | grep -E '^(TfIdfVectorizer|GlobalLpPool) ' | sort -r"
expect_fail "berth ops --kernels --json is refused" "not --kernels" "$BERTH" ops --kernels --json
DATA=${BERTH_DATA_DIR:-../shared/data}
if [ -d "$DATA/onnx-node-tests" ] && [ -d "$DATA/onnx-backend-tests" ]; then
  expect_out "src/onnx/onnx_op_support.c is up to date (sh tools/docs/gen-ops.sh table build/berth > src/onnx/onnx_op_support.c, rebuild, then the page)" "same" \
    sh -c "sh tools/docs/gen-ops.sh table '$BERTH' '$DATA' | cmp -s - src/onnx/onnx_op_support.c && echo same"
else
  echo "note: $DATA absent; the table src/onnx/onnx_op_support.c is not checked against the suite"
fi
finish
