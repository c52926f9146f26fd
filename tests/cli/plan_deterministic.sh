# Deterministic planner budgets (--budget-work): search and exact stop after a number of
# work units instead of milliseconds, so the same problem gives the same plan (every
# offset, and the same program file bytes) however loaded the machine is. Each pair below
# runs once alone and once beside two busy loops. Uses minimalloc's D (../shared/data) when
# present, else a generated problem.
. "$(dirname "$0")/lib.inc"
dir=$(mktemp -d)
trap 'rm -rf "$dir"; kill $busy1 $busy2 2>/dev/null' EXIT
csv=${BERTH_DATA_DIR:-../shared/data}/minimalloc/D.1048576.csv
if [ ! -f "$csv" ]; then
  csv=$dir/gen.csv
  awk 'BEGIN{print "id,lower,upper,size"; s=7; for(i=0;i<160;i++){s=(s*1103515245+12345)%2147483648;
       l=s%400; s=(s*1103515245+12345)%2147483648; u=l+1+s%60; s=(s*1103515245+12345)%2147483648;
       printf "b%d,%d,%d,%d\n", i, l, u, 16*(1+s%64)}}' > "$csv"
fi
run_pair() { # NAME ARGS...: plans twice (quiet machine, then loaded) and compares the offsets
  name=$1; shift
  "$BERTH" plan --csv "$csv" "$@" --out "$dir/a.csv" --json > "$dir/a.json" || { echo "FAIL $name: exit $?"; failures=$((failures+1)); return; }
  sh -c 'while :; do :; done' & busy1=$!
  sh -c 'while :; do :; done' & busy2=$!
  "$BERTH" plan --csv "$csv" "$@" --out "$dir/b.csv" --json > "$dir/b.json"
  kill $busy1 $busy2; wait $busy1 $busy2 2>/dev/null
  if cmp -s "$dir/a.csv" "$dir/b.csv"; then echo "ok   $name: $(grep -o '"arena_bytes": [0-9]*' "$dir/a.json")"
  else echo "FAIL $name: the two plans differ"; failures=$((failures+1)); fi
}
run_pair "search, 300000 work units" --algo search --budget-work 300000
run_pair "exact, 300000 work units" --algo exact --budget-work 300000
# the work spent is reported and never passes the budget by more than one step
expect_out "work reported" "ok" sh -c "$BERTH plan --csv '$csv' --algo search --budget-work 300000 --json |
  sed -n 's/.*\"work\": \([0-9]*\).*/\1/p' | awk '{print (\$1 >= 300000 && \$1 < 400000) ? \"ok\" : \$1}'"
# compile: the same program file bytes
for k in 1 2; do
  "$BERTH" compile tests/bir/nested.bir -o "$dir/p$k.berth" --algo exact --budget-work 50000 >/dev/null ||
    { echo "FAIL compile $k"; failures=$((failures+1)); }
done
expect_out "compile with a work budget: identical files" "same" sh -c "cmp -s '$dir/p1.berth' '$dir/p2.berth' && echo same"
expect_fail "--budget-work 0 refused" "budget-work takes a positive integer" "$BERTH" compile tests/bir/nested.bir -o "$dir/x.berth" --budget-work 0
expect_fail "--budget-work -5 refused" "budget-work takes a positive integer" "$BERTH" compile tests/bir/nested.bir -o "$dir/x.berth" --budget-work -5
finish
