# Kernel scratch planned in the arena (issue 15): tests/bir/conv_scratch.bir has three convs
# (one in a scan body that runs three times, one in each branch of a cond). Each gets a
# scratch value of its own in the plan and in the compiled file; the planned runtime under
# the sanitizer (which fills every scratch with ones before its call and tags its bytes)
# gives the reference interpreter's outputs bit for bit, for both branches; every planner
# algorithm and both planned-input/output options are verified.
BERTH=$1
. tests/cli/lib.inc
A=tests/bir/conv_scratch.bir
F=/tmp/berth_scratch.$$.berth
X=$(awk 'BEGIN { for (i = 0; i < 384; i++) printf "%s%.3f", i ? "," : "", sin(i * 1.7) }')
C1="f32[3,1,2,64]:$X bool[1]:1"
C0="f32[3,1,2,64]:$X bool[1]:0"
expect_out "plan counts the scratch" "  kernel scratch: 3 calls, 4800 bytes (each a value of its own at its node's position, packed with the rest)" \
  sh -c "\"$BERTH\" plan $A | grep 'kernel scratch'"
expect_out "compiled file carries it" "3" sh -c "\"$BERTH\" compile $A -o $F >/dev/null && \"$BERTH\" dis $F | grep -c 'kernel conv .* scratch %'"
"$BERTH" run $A --reference --call "$C1" --call "$C0" --json >/tmp/berth_scratch_ref.$$ 2>&1
for mode in "--sanitize" "--sanitize --algo naive" "--sanitize --algo exact" "--sanitize --alloc-inputs 1 --alloc-outputs 0" ""; do
  expect_out "planned = reference $mode" "same" sh -c \
    "\"$BERTH\" run $A $mode --call '$C1' --call '$C0' --json | cmp -s - /tmp/berth_scratch_ref.$$ && echo same"
done
expect_out "compiled file = reference" "same" sh -c \
  "\"$BERTH\" run $F --sanitize --call '$C1' --call '$C0' --json | cmp -s - /tmp/berth_scratch_ref.$$ && echo same"
rm -f $F /tmp/berth_scratch_ref.$$
finish
