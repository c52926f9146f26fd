# No function in src/ is longer than about 120 lines (STYLE.md; issue 12): each top-level
# function body, from its signature to its closing brace, is counted, in every folder of
# src/ (kernels and the ONNX op families too).
# KNOWN lists "FILE NAME LINES" for a function that is over the limit and waits to be split:
# it may not grow, and an entry no longer over the limit must be removed. It is empty now
# (dfs_build and berth_alloc_solve were the last); keep it that way.
. "$(dirname "$0")/lib.inc"
MAX=120
KNOWN='
'

# long_functions ROOT: "FILE NAME LINES" for every function over MAX lines under ROOT/src.
long_functions() {
  for f in "$1"/src/*/*.c; do
    awk -v max=$MAX -v file="${f#"$1"/}" '
      FNR == 1 { infn = 0; pend = 0 }
      !infn && !pend && /^[A-Za-z_][A-Za-z0-9_ \t\*]*[A-Za-z0-9_]+\(/ { pend = 1; start = FNR; name = $0 }
      pend && !infn {
        if ($0 ~ /;[ \t]*$/ || $0 ~ /^#/ || $0 ~ /\{.*\}[ \t]*$/) pend = 0
        else if ($0 ~ /\{[ \t]*$/ || $0 ~ /^\{/) { infn = 1; pend = 0 }
        next
      }
      infn && /^\}/ {
        n = FNR - start + 1
        if (n > max) { nm = name; sub(/\(.*/, "", nm); sub(/.*[ \t\*]/, "", nm); print file, nm, n }
        infn = 0
      }' "$f"
  done
}

# check ROOT: one line per problem.
check() {
  long_functions "$1" | while read -r file name n; do
    known=$(printf '%s\n' "$KNOWN" | awk -v f="$file" -v nm="$name" '$1 == f && $2 == nm { print $3 }')
    if [ -z "$known" ]; then echo "$file: $name() is $n lines (at most $MAX: split it into named steps)"
    elif [ "$n" -gt "$known" ]; then echo "$file: $name() grew to $n lines (at most $known while it waits to be split)"; fi
  done
  printf '%s\n' "$KNOWN" | while read -r file name n; do
    [ -n "$file" ] || continue
    long_functions "$1" | grep -q "^$file $name " || echo "$file: $name() is no longer over $MAX lines: remove it from KNOWN"
  done
}

out=$(check .)
if [ -z "$out" ]; then echo "ok   no function in src/ over $MAX lines but the known ones, none grown"
else echo "FAIL function length:"; printf '%s\n' "$out" | sed 's/^/  /'; failures=$((failures+1)); fi

# The checker itself, on a made-up file with a 130-line function and a short one.
t=$(mktemp -d)
mkdir -p "$t/src/plan"
{ printf 'static int short_one(int x) { return x; }\n\nstatic int long_one(int a,\n                    int b) {\n'
  i=0; while [ $i -lt 126 ]; do printf '  a += b;\n'; i=$((i+1)); done
  printf '  return a;\n}\n'; } > "$t/src/plan/made_up.c"
got=$(long_functions "$t")
rm -rf "$t"
if [ "$got" = "src/plan/made_up.c long_one 130" ]; then echo "ok   the checker finds a 130-line function"
else echo "FAIL the checker reports '$got' for a made-up 130-line function"; failures=$((failures+1)); fi
finish
