# berth plan on a program with more methods than fit a fixed table (70): every method gets
# its side-by-side line for every algorithm (it used to print "rejected" past the 64th).
. "$(dirname "$0")/lib.inc"
f=/tmp/berth_many_methods.$$.bir
for i in $(seq 1 70); do
  printf 'func @m%d(%%x : f32[4]) -> (f32[4]) {\n  %%y = add(%%x, %%x) : f32[4]\n  %%z = mul(%%y, %%x) : f32[4]\n  return %%z\n}\n' "$i"
done >"$f"
expect_out "70 methods, no rejected line" "0" sh -c "\"$BERTH\" plan \"$f\" | grep -c rejected || true"
expect_out "method 70 greedy" "  greedy             48" sh -c "\"$BERTH\" plan \"$f\" | grep -A7 '^method m70:' | grep greedy | cut -c1-23"
expect_out "method 70 in json" '"algorithms":{"naive":48,"greedy":48,"search":48,"exact":48}' \
  sh -c "\"$BERTH\" plan \"$f\" --json | grep -o '\"algorithms\":{[^}]*}' | tail -1"
rm -f "$f"
finish
