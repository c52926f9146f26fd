# berth plan --csv: a standalone allocation problem, planned and checked independently.
. "$(dirname "$0")/lib.inc"
csv=/tmp/berth_plan_csv.$$.csv
printf 'id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n' > $csv
expect_out "exact reaches the optimum 12" "12" sh -c "$BERTH plan --csv $csv --algo exact --json | sed 's/.*\"arena_bytes\": *\([0-9]*\).*/\1/'"
expect_out "lower bound 12" "12" sh -c "$BERTH plan --csv $csv --json | sed 's/.*\"lower_bound_bytes\": *\([0-9]*\).*/\1/'"
printf 'id,lower,upper,size\nb1,0,3,4\nb2,5,2,4\n' > $csv
expect_fail "bad row names its line" "csv:3: lower 5" $BERTH plan --csv $csv
expect_fail "missing file" "cannot|No such" $BERTH plan --csv /nonexistent.csv
rm -f $csv
finish
