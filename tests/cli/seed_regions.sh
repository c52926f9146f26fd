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
finish
