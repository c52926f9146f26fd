# The examples of examples/ under the planned runtime (default: global strategy, verified),
# every algorithm, the sanitizer, and the reference interpreter.
. "$(dirname "$0")/lib.inc"
for mode in "" "--reference" "--algo naive --sanitize" "--algo greedy --sanitize" "--algo search --sanitize" "--algo exact --sanitize" "--alloc-inputs 1 --alloc-outputs 0 --sanitize" "--alloc-inputs 0 --alloc-outputs 0 --sanitize" "--alignment 1 --sanitize"; do
  expect_out "seed $mode" '{"calls":[{"outputs":[{"dtype":"f64","shape":[1],"data":[5.0]},{"dtype":"f64","shape":[1],"data":[5.0]}]},{"outputs":[{"dtype":"f64","shape":[1],"data":[6.0]},{"dtype":"f64","shape":[1],"data":[7.0]}]}]}' \
    $BERTH run examples/seed/seed.bir --call 'f64[1]:5.0' --call 'f64[1]:6.0' --json $mode
  expect_out "three buffers $mode" '{"calls":[{"outputs":[{"dtype":"i64","shape":[],"data":[1]},{"dtype":"f64","shape":[1],"data":[0.0]},{"dtype":"f64","shape":[1],"data":[5.0]}]},{"outputs":[{"dtype":"i64","shape":[],"data":[2]},{"dtype":"f64","shape":[1],"data":[5.0]},{"dtype":"f64","shape":[1],"data":[6.0]}]},{"outputs":[{"dtype":"i64","shape":[],"data":[4]},{"dtype":"f64","shape":[1],"data":[5.0]},{"dtype":"f64","shape":[1],"data":[6.0]}]},{"outputs":[{"dtype":"i64","shape":[],"data":[5]},{"dtype":"f64","shape":[1],"data":[6.0]},{"dtype":"f64","shape":[1],"data":[8.0]}]}]}' \
    $BERTH run examples/three_buffers/three_buffers.bir --call 'f64[2]:5,1' --call 'f64[2]:6,1' --call 'f64[2]:7,-1' --call 'f64[2]:8,1' --json $mode
  expect_out "while $mode" '{"calls":[{"outputs":[{"dtype":"i64","shape":[],"data":[0]},{"dtype":"f32","shape":[2],"data":[3.0,6.0]}]},{"outputs":[{"dtype":"i64","shape":[],"data":[0]},{"dtype":"f32","shape":[2],"data":[0.0,0.0]}]}]}' \
    $BERTH run examples/while_loop/countdown.bir --call 'i64[]:3 f32[2]:1,2' --call 'i64[]:0 f32[2]:1,2' --json $mode
  expect_out "scan $mode" '{"calls":[{"outputs":[{"dtype":"f32","shape":[],"data":[10.0]},{"dtype":"f32","shape":[],"data":[26.0]},{"dtype":"f32","shape":[4],"data":[1.0,3.0,6.0,10.0]},{"dtype":"f32","shape":[4],"data":[1.0,4.0,11.0,26.0]}]}]}' \
    $BERTH run examples/scan/scan.bir --call 'f32[4]:1,2,3,4' --json $mode
  expect_out "map $mode" '{"calls":[{"outputs":[{"dtype":"f32","shape":[3,2],"data":[11.0,22.0,13.0,24.0,15.0,26.0]},{"dtype":"f32","shape":[2],"data":[110.0,420.0]}]}]}' \
    $BERTH run examples/map/map.bir --call 'f32[3,2]:1,2,3,4,5,6 f32[2]:10,20' --json $mode
  expect_out "passthrough $mode" '{"calls":[{"outputs":[{"dtype":"f32","shape":[2],"data":[1.0,-2.0]}]},{"outputs":[{"dtype":"f32","shape":[2],"data":[-1.0,2.0]}]}]}' \
    $BERTH run examples/passthrough/passthrough.bir --call 'bool[]:1 f32[2]:1,-2' --call 'bool[]:0 f32[2]:1,-2' --json $mode
done
finish
