# berth plan --json: the versioned document of docs/json.md (schema "berth-plan", version 2),
# valid JSON (checked by python's json module when python3 is there), with every value's id,
# dtype, shape, storage and lifetime, and the plan's headline numbers.
. "$(dirname "$0")/lib.inc"
py=/usr/bin/python3
[ -x $py ] || py=$(command -v python3 || true)
[ -n "$py" ] || { echo "skip: no python3 to parse the JSON"; exit 77; }
check() { # NAME PYTHON-EXPRESSION-ON-d PROGRAM ARGS...
  name=$1; expr=$2; shift 2
  got=$("$BERTH" plan "$@" --json 2>&1 | $py -c "import json,sys; d=json.load(sys.stdin); print(bool($expr))" 2>&1)
  if [ "$got" = True ]; then echo "ok   $name"; else echo "FAIL $name: $got"; failures=$((failures+1)); fi
}
S=examples/seed/seed.bir
check "schema and version" "d['schema'] == 'berth-plan' and d['schema_version'] == 2" $S
check "seed headline: 24 bytes, 3 copies, 4 coalesced, 4 views" \
  "[(m['arena_bytes'], m['lower_bound_bytes'], m['copies'], m['coalesced'], m['views']) for m in d['methods']] == [(24, 24, 3, 4, 4)]" $S
check "values carry id, dtype, shape and lifetime" \
  "all(v['id'] == i and v['dtype'] == 'f64' and v['shape'] in ([1], []) and isinstance(v['lifetime'], list) for i, v in enumerate(d['methods'][0]['values']) if v['dtype'] == 'f64')" $S
check "arena values have a lifetime inside the timeline" \
  "all(0 <= a <= b < d['methods'][0]['timeline_positions'] for v in d['methods'][0]['values'] if v['storage'] == 'arena' for a, b in v['lifetime'])" $S
check "algorithms side by side" "sorted(d['methods'][0]['algorithms']) == ['exact', 'greedy', 'naive', 'search']" $S
check "windowed scan outputs name their parent by id" \
  "any('window_of' in v and isinstance(v['window_of'], int) for v in d['methods'][0]['values'])" examples/scan/scan.bir
finish
