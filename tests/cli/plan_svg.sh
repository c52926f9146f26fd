# berth plan --svg: a picture a person can read (tools/berth/plan_svg.c). Checks, on the
# example programs, that every method and pool gets a panel, both axes have ticks, blocks
# carry labels and tooltips, copies are hatched and in-place hand-overs outlined where the
# plan has them, bodies of control-flow ops are labelled, and that the SVG renders
# (rsvg-convert from Debian's librsvg2-bin, when installed; the PNG is kept in
# build/plan_svg/ for a look).
. "$(dirname "$0")/lib.inc"
out=build/plan_svg
mkdir -p "$out"
svg=$out/nested.svg
"$BERTH" plan tests/bir/nested.bir --pools add=2 --svg "$svg" >/dev/null || { echo "FAIL plan --svg"; exit 1; }
count() { grep -o "$1" "$svg" | wc -l | tr -d ' '; }
expect_out "a panel per method and pool" "4" count '>method [a-z_]*, pool [0-9]'
expect_out "both methods" "2" sh -c "grep -o '>method [a-z_]*' '$svg' | sort -u | wc -l | tr -d ' '"
expect_out "time ticks on the forward panels" "yes" sh -c "grep -q 'text-anchor=\"middle\" fill=\"#333\">35</text>' '$svg' && echo yes"
expect_out "byte ticks" "yes" sh -c "grep -q 'text-anchor=\"end\" fill=\"#333\">120</text>' '$svg' && echo yes"
expect_out "block labels" "yes" sh -c "grep -q 'pointer-events=\"none\">%zero</text>' '$svg' && echo yes"
expect_out "tooltips name bytes and positions" "yes" sh -c "grep -q '<title>%zero: [0-9]* bytes at \[[0-9]*, [0-9]*), positions' '$svg' && echo yes"
expect_out "copies hatched" "yes" sh -c "[ \$(grep -c 'fill=\"url(#copy)\" pointer-events' '$svg') -gt 0 ] && echo yes"
expect_out "hand-overs outlined" "yes" sh -c "[ \$(grep -c 'stroke=\"#0a0\" stroke-width=\"1.6\" stroke-dasharray=\"3 2\" pointer-events' '$svg') -gt 0 ] && echo yes"
expect_out "bodies labelled" "yes" sh -c "grep -q '>while_loop</text>' '$svg' && grep -q '>scan</text>' '$svg' && echo yes"
expect_out "arena and lower bound labelled apart" "yes" sh -c "grep -q '>arena 132</text>' '$svg' && grep -q '>lower bound 132</text>' '$svg' && echo yes"
expect_out "an empty pool says so" "yes" sh -c "grep -q 'pool 1: no tensors in the arena' '$svg' && echo yes"
# the seed example: its copy goes to an output (not in the arena), its hand-overs are in place
"$BERTH" plan tests/bir/seed.bir --svg "$out/seed.svg" >/dev/null || { echo "FAIL plan --svg seed"; failures=$((failures+1)); }
if command -v rsvg-convert >/dev/null 2>&1; then
  for f in "$out/nested.svg" "$out/seed.svg"; do
    expect_out "renders: $f" "ok" sh -c "rsvg-convert '$f' -o '${f%.svg}.png' && [ -s '${f%.svg}.png' ] && echo ok"
  done
else
  echo "note: rsvg-convert not installed (Debian librsvg2-bin); the SVG is not rendered"
fi
finish
