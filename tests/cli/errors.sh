# Wrong or missing arguments fail with one line and a non-zero exit, never a crash.
. "$(dirname "$0")/lib.inc"
S=examples/seed/seed.bir
expect_fail "no command" "usage" $BERTH
expect_fail "unknown command" "unknown command" $BERTH frobnicate
expect_fail "missing program" "missing PROGRAM" $BERTH run
expect_fail "missing file" "cannot open" $BERTH run /nonexistent.bir
expect_fail "unknown method" "no method 'nope'" $BERTH run $S --method nope --call 'f64[1]:1'
expect_fail "too few inputs" "takes 1 input, got 0" $BERTH run $S --call ''
expect_fail "too many inputs" "takes 1 input, got 2" $BERTH run $S --call 'f64[1]:1 f64[1]:2'
expect_fail "wrong type" "expected f64\[1\], got f32\[1\]" $BERTH run $S --call 'f32[1]:1'
expect_fail "wrong shape" "expected f64\[1\], got f64\[2\]" $BERTH run $S --call 'f64[2]:1,2'
expect_fail "bad literal" "call 1, argument 1" $BERTH run $S --call 'f64[1]:abc'
expect_fail "count mismatch" "call 1, argument 1" $BERTH run $S --call 'f64[2]:1'
expect_fail "missing npy" "call 1, argument 1" $BERTH run $S --call '@/nonexistent.npy'
expect_fail "unknown option" "unknown option" $BERTH run $S --frob
expect_fail "bad algo" "unknown algorithm" $BERTH run $S --algo magic --call 'f64[1]:1'
expect_fail "bad strategy" "unknown strategy" $BERTH run $S --strategy magic --call 'f64[1]:1'
expect_fail "call without value" "needs a value" $BERTH run $S --call
expect_fail "check usage" "usage" $BERTH check
finish
