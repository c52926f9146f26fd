# ExecuTorch's scheme (--strategy regions) on the seed: the verifier rejects it; run without
# the verifier it returns ExecuTorch's wrong (7, 7) on the second call, and the sanitizer
# names the overwrite.
. "$(dirname "$0")/lib.inc"
expect_fail "regions rejected by the verifier" "%result1" \
  $BERTH run examples/seed/seed.bir --strategy regions --call 'f64[1]:5.0' --call 'f64[1]:6.0'
expect_fail "regions rejected by berth plan" "%result1" $BERTH plan examples/seed/seed.bir --strategy regions
expect_out "regions unverified gives ExecuTorch's (7, 7)" '{"calls":[{"outputs":[{"dtype":"f64","shape":[1],"data":[5.0]},{"dtype":"f64","shape":[1],"data":[5.0]}]},{"outputs":[{"dtype":"f64","shape":[1],"data":[7.0]},{"dtype":"f64","shape":[1],"data":[7.0]}]}]}' \
  $BERTH run examples/seed/seed.bir --strategy regions --no-verify --call 'f64[1]:5.0' --call 'f64[1]:6.0' --json
expect_fail "sanitizer names the overwrite" "read of %result1 .*last written by %" \
  $BERTH run examples/seed/seed.bir --strategy regions --no-verify --sanitize --call 'f64[1]:5.0' --call 'f64[1]:6.0'
# The seed as PyTorch's exporter writes it (tests/onnx/torch_seed: branches as model-local
# functions, clones as Identity, the buffer functionalized into the b_state/copy pair):
# the same verdicts with the state pair as a mutable buffer.
T="tests/onnx/torch_seed/model.onnx --state b_state=copy --input b_state:f64[1]=nan"
expect_out "exported seed: (5, 5) (6, 7)" '{"calls":[{"outputs":[{"dtype":"f64","shape":[1],"data":[5.0]},{"dtype":"f64","shape":[1],"data":[5.0]}]},{"outputs":[{"dtype":"f64","shape":[1],"data":[6.0]},{"dtype":"f64","shape":[1],"data":[7.0]}]}]}' \
  $BERTH run $T --call 'f64[1]:5.0' --call 'f64[1]:6.0' --json
expect_fail "exported seed: regions rejected by the verifier" "read of %getitem .*may see %getitem_1" \
  $BERTH run $T --strategy regions --call 'f64[1]:5.0' --call 'f64[1]:6.0'
expect_out "exported seed: regions unverified gives ExecuTorch's (7, 7)" '{"calls":[{"outputs":[{"dtype":"f64","shape":[1],"data":[5.0]},{"dtype":"f64","shape":[1],"data":[5.0]}]},{"outputs":[{"dtype":"f64","shape":[1],"data":[7.0]},{"dtype":"f64","shape":[1],"data":[7.0]}]}]}' \
  $BERTH run $T --strategy regions --no-verify --call 'f64[1]:5.0' --call 'f64[1]:6.0' --json
expect_fail "exported seed: the sanitizer names the overwrite" "read of %getitem .*last written by %getitem_1" \
  $BERTH run $T --strategy regions --no-verify --sanitize --call 'f64[1]:5.0' --call 'f64[1]:6.0'
finish
