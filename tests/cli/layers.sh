# The folders of src/ are layers (STYLE.md "Layers", README "Layout"): every `#include "..."`
# in src/ names a header of its own folder or of a folder below it in the table, and the
# include graph between folders has no cycle. Public headers count as the layer that
# implements them (berth/runtime.h: runtime; compiler.h, inspect.h, profile.h: compiler; onnx_model.h: onnx; alloc.h: plan;
# testing.h: fuzzgen; outfile.h: host; memory.h: sys; ops.h: kernels; status.h, types.h, kernels.h, version.h, checksum.h: base). A new
# folder must be placed in the table. The checker is run once on the tree and once on a
# made-up tree with an upward include, a cycle and an unplaced folder, which it must reject.
. "$(dirname "$0")/lib.inc"

# folder: the folders below it that it may include (runtime side, then compiler side, then
# the testing machinery on top of both).
LAYERS='
base:
kernels: base
program: base kernels
format: base kernels program
runtime: base kernels program format
sys:
ir: base kernels
passes: base kernels ir
onnx: base kernels ir passes
plan: base kernels program format sys ir
writer: base kernels program format sys ir plan
compiler: base kernels program format runtime sys ir passes onnx plan writer
reference: base kernels program runtime ir
host: base kernels program format runtime sys
fuzzgen: base kernels program format runtime sys ir passes onnx plan compiler reference host
'

# check_tree ROOT: prints one line per problem under ROOT/src; the last line is "problems N".
check_tree() {
  root=$1
  for f in "$root"/src/*/*.c "$root"/src/*/*.h; do
    [ -f "$f" ] || continue
    rel=${f#"$root"/}
    awk -v file="$rel" '
      /^[ \t]*#[ \t]*include[ \t]*"/ {
        s = $0; sub(/^[^"]*"/, "", s); sub(/".*$/, "", s); print file ":" FNR ":" s }' "$f"
  done | awk -v layers="$LAYERS" '
    BEGIN {
      n = split(layers, rows, "\n")
      for (i = 1; i <= n; i++) {
        if (rows[i] !~ /:/) continue
        split(rows[i], kv, ":"); name = kv[1]; gsub(/ /, "", name)
        known[name] = 1
        m = split(kv[2], deps, " ")
        for (j = 1; j <= m; j++) allowed[name, deps[j]] = 1
      }
      pub["berth/status.h"] = "base"; pub["berth/types.h"] = "base"; pub["berth/kernels.h"] = "base"; pub["berth/checksum.h"] = "base"; pub["berth/version.h"] = "base"; pub["berth/ops.h"] = "kernels"
      pub["berth/runtime.h"] = "runtime"; pub["berth/compiler.h"] = "compiler"; pub["berth/onnx_model.h"] = "onnx"; pub["berth/inspect.h"] = "compiler"; pub["berth/profile.h"] = "compiler"; pub["berth/alloc.h"] = "plan"; pub["berth/testing.h"] = "fuzzgen"; pub["berth/outfile.h"] = "host"; pub["berth/memory.h"] = "sys"
      problems = 0
    }
    {
      split($0, a, ":"); file = a[1]; line = a[2]; hdr = a[3]
      split(file, p, "/"); from = p[2]
      if (!(from in known)) {
        if (!(from in told)) { print "src/" from "/ is not placed in the layer table of tests/cli/layers.sh"; problems++ }
        told[from] = 1; next
      }
      if (hdr !~ /\//) to = from
      else if (hdr in pub) to = pub[hdr]
      else { to = hdr; sub(/\/.*/, "", to) }
      if (to == "berth") { print file ":" line ": includes \"" hdr "\", not a public header berth knows"; problems++; next }
      if (!(to in known)) { print file ":" line ": includes \"" hdr "\" from an unknown folder"; problems++; next }
      if (to == from) next
      if (!((from, to) in allowed)) {
        print file ":" line ": includes \"" hdr "\": " from "/ may not include " to "/ (not below it)"
        problems++
      }
      if (!((from, to) in edge)) { edge[from, to] = 1; nout[from]++; out[from, nout[from]] = to; nodes[from] = 1; nodes[to] = 1 }
    }
    END {
      # Folder cycles in the include graph as it is (independent of the table): peel off
      # folders that include no remaining folder; whatever is left lies on a cycle.
      do {
        changed = 0
        for (f in nodes) {
          if (f in gone) continue
          live = 0
          for (k = 1; k <= nout[f]; k++) if (!(out[f, k] in gone)) live = 1
          if (!live) { gone[f] = 1; changed = 1 }
        }
      } while (changed)
      left = ""
      for (f in nodes) if (!(f in gone)) left = left " " f
      if (left != "") { print "folders on an include cycle (or including one):" left; problems++ }
      print "problems " problems
    }'
}

out=$(check_tree .)
count=$(printf '%s\n' "$out" | sed -n 's/^problems //p')
if [ "$count" = 0 ]; then
  echo "ok   src/ includes only downwards, no folder cycle"
else
  echo "FAIL src/ layering:"; printf '%s\n' "$out" | sed '$d' | sed 's/^/  /'; failures=$((failures+1))
fi

# The checker itself: a made-up tree it must reject, naming each problem.
t=$(mktemp -d)
mkdir -p "$t/src/base" "$t/src/runtime" "$t/src/kernels" "$t/src/gadgets"
printf '#include "runtime/interp.h"\n' > "$t/src/base/up.c"
printf '#include "kernels/k.h"\n#include "berth/runtime.h"\n' > "$t/src/runtime/ok.c"
printf '#include "runtime/interp.h"\n' > "$t/src/kernels/cycle.c"
printf '#include "base/x.h"\n' > "$t/src/gadgets/g.c"
bad=$(check_tree "$t")
rm -rf "$t"
for want in 'src/base/up.c:1: includes "runtime/interp.h": base/ may not include runtime/' \
            'src/kernels/cycle.c:1: includes "runtime/interp.h": kernels/ may not include runtime/' \
            'folders on an include cycle' 'src/gadgets/ is not placed' 'problems 4'; do
  if printf '%s\n' "$bad" | grep -qF "$want"; then echo "ok   the checker reports: $want"
  else echo "FAIL the checker does not report '$want':"; printf '%s\n' "$bad"; failures=$((failures+1)); fi
done
if printf '%s\n' "$bad" | grep -q 'runtime/ok.c'; then
  echo "FAIL the checker rejects a downward include"; failures=$((failures+1))
fi
finish
