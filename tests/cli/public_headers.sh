# tools/, bench/ and fuzz/ use only the public headers in include/berth/ (STYLE.md "Layers";
# issue 12): a quoted #include there names berth/*.h or a header of its own folder (the
# tool's cli.h, an example's vad_stream.h), never a folder of src/, a generated header or a
# test's. What the tool needs goes through berth/compiler.h (sources, compilations, plan
# reports), berth/inspect.h and berth/testing.h (the runner, the ONNX backend-test runner).
# KNOWN lists exceptions: none are left, and none may appear (an entry that is gone must be
# removed, so the list only shrinks).
. "$(dirname "$0")/lib.inc"
KNOWN='
'

# internal_includes ROOT: "FILE HEADER" for every quoted include under tools/, bench/ and
# fuzz/ that is neither berth/*.h nor a plain file name found in the includer's folder or an
# example library's (examples/vad/vad_stream.h).
internal_includes() {
  for f in "$1"/tools/*/*.[ch] "$1"/bench/*.[ch] "$1"/fuzz/*.[ch]; do
    [ -f "$f" ] || continue
    d=$(dirname "$f")
    awk '/^[ \t]*#[ \t]*include[ \t]*"/ { s = $0; sub(/^[^"]*"/, "", s); sub(/".*$/, "", s); print s }' "$f" |
    while read -r h; do
      case $h in
        berth/*) continue ;;
        */*) ;;
        *) [ -f "$d/$h" ] && continue
           ls "$1"/examples/*/"$h" >/dev/null 2>&1 && continue ;; # an example library's header
      esac
      echo "${f#"$1"/} $h"
    done
  done
}

check() {
  have=$(internal_includes "$1")
  printf '%s\n' "$have" | while read -r f h; do
    [ -n "$f" ] || continue
    printf '%s\n' "$KNOWN" | grep -qxF "$f $h" || echo "$f includes \"$h\": only include/berth/*.h (extend the public API)"
  done
  printf '%s\n' "$KNOWN" | while read -r f h; do
    [ -n "$f" ] || continue
    printf '%s\n' "$have" | grep -qxF "$f $h" || echo "$f no longer includes \"$h\": remove it from KNOWN"
  done
}

out=$(check .)
if [ -z "$out" ]; then echo "ok   tools, bench and fuzz include no internal header but the known ones"
else echo "FAIL public headers:"; printf '%s\n' "$out" | sed 's/^/  /'; failures=$((failures+1)); fi

# The checker itself, on a made-up tree.
t=$(mktemp -d)
mkdir -p "$t/tools/x" "$t/bench"
printf '#include "berth/runtime.h"\n#include "local.h"\n#include "plan/plan.h"\n' > "$t/tools/x/a.c"
: > "$t/tools/x/local.h"
printf '#include "ir.h"\n' > "$t/bench/b.c"
got=$(internal_includes "$t" | sort | tr '\n' ';')
rm -rf "$t"
if [ "$got" = "bench/b.c ir.h;tools/x/a.c plan/plan.h;" ]; then echo "ok   the checker finds internal includes"
else echo "FAIL the checker reports '$got'"; failures=$((failures+1)); fi
finish
