# The planner at scale (issue 18): 69 time-disjoint copies of Pangu's trace (1,289,748
# buffers) through `berth plan --csv --algo greedy`:
#  - the time line splits into 69 parts, each planned alone, so the arena is the lower bound;
#  - the whole process peaks under 400 MB (measured 277 MB: 220 bytes a buffer; the planner
#    before the segment split and the freed sort keys took 664 MB, 527 bytes a buffer);
#  - search with a 100 ms budget says that the budget could not be met at this size.
# Skips without the trace, without GNU time, and in sanitizer builds (ASan's memory).
. "$(dirname "$0")/lib.inc"
trace=${BERTH_DATA_DIR:-../shared/data}/traces/pangu_2.6B.csv
[ -f "$trace" ] || { echo "skip: no $trace"; exit 77; }
[ -x /usr/bin/time ] || { echo "skip: no /usr/bin/time (apt-get install time)"; exit 77; }
if nm "$BERTH" 2>/dev/null | grep -q __asan_init; then echo "skip: sanitizer build"; exit 77; fi
tmp=$(mktemp -d /tmp/berth_plan_scale.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
awk -F, -v copies=69 'NR == 1 { print; next } { row[NR] = $0; lo[NR] = $2; hi[NR] = $3; sz[NR] = $4;
  if (hi[NR] > span) span = hi[NR] }
  END { id = 0; for (r = 0; r < copies; r++) for (i = 2; i <= NR; i++)
          printf "%d,%d,%d,%d\n", id++, lo[i] + r * span, hi[i] + r * span, sz[i] }' "$trace" > "$tmp/p69.csv"
/usr/bin/time -f '%M' -o "$tmp/rss" "$BERTH" plan --csv "$tmp/p69.csv" --algo greedy --json > "$tmp/out.json" 2>"$tmp/err" ||
  { echo "FAIL plan: $(cat "$tmp/err")"; exit 1; }
rss=$(tail -1 "$tmp/rss")
arena=$(sed 's/.*"arena_bytes": *\([0-9]*\).*/\1/' "$tmp/out.json")
lb=$(sed 's/.*"lower_bound_bytes": *\([0-9]*\).*/\1/' "$tmp/out.json")
expect_true "69 Pangu copies at the lower bound ($arena of $lb)" test "$arena" = "$lb"
expect_true "peak RSS ${rss} KB under 400 MB" test "$rss" -lt 409600
expect_out "search says the 100 ms budget was missed" "1" sh -c \
  "\"$BERTH\" plan --csv \"$tmp/p69.csv\" --algo search --budget-ms 100 --json | grep -c '\"budget_exceeded\": *true'"
finish
