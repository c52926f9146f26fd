# Concats in place (issue 15, DESIGN rule 7): tests/bir/concat_in_place.bir has two Concats
# whose operands the planner computes in their slots (JOIN, no work) and two it cannot. The
# compiled file carries two joins; the planned runtime under the sanitizer gives the
# reference interpreter's outputs bit for bit, with joins, without them
# (--no-concat-in-place) and under every algorithm; the fuzzer's replay checks every plan
# and rejects a mutant that moves a part out of its slot.
BERTH=$1
. tests/cli/lib.inc
A=tests/bir/concat_in_place.bir
F=/tmp/berth_concat.$$.berth
X=$(awk 'BEGIN { for (i = 0; i < 32; i++) printf "%s%.3f", i ? "," : "", sin(i * 1.7) }')
C="f32[1,8,4]:$X"
expect_out "plan counts the joins" "  concats in place: 2 Concat calls whose operands were computed in their slots of the result (no work at run time)" \
  sh -c "\"$BERTH\" plan $A | grep 'concats in place'"
expect_out "json counts them" '"concats_in_place":2' sh -c "\"$BERTH\" plan $A --json | grep -o '\"concats_in_place\":2'"
expect_out "--no-concat-in-place: none" "0" sh -c "\"$BERTH\" plan $A --no-concat-in-place | grep -c 'concats in place' || true"
expect_out "compiled file carries them" "2" sh -c "\"$BERTH\" compile $A -o $F >/dev/null && \"$BERTH\" dis $F | grep -c ' join '"
"$BERTH" run $A --reference --call "$C" --json >/tmp/berth_concat_ref.$$ 2>&1
for mode in "--sanitize" "--sanitize --algo naive" "--sanitize --algo exact" "--sanitize --alloc-inputs 1 --alloc-outputs 0" \
    "--sanitize --no-concat-in-place" ""; do
  expect_out "planned = reference $mode" "same" sh -c \
    "\"$BERTH\" run $A $mode --call '$C' --json | cmp -s - /tmp/berth_concat_ref.$$ && echo same"
done
expect_out "compiled file = reference" "same" sh -c \
  "\"$BERTH\" run $F --sanitize --call '$C' --json | cmp -s - /tmp/berth_concat_ref.$$ && echo same"
expect_out "fuzz replay" "ok" sh -c "\"$BERTH\" fuzz --replay $A --seed 1 | grep -o ': ok'| tr -d ': '"
rm -f $F /tmp/berth_concat_ref.$$
finish
