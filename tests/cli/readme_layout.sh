# README.md's "Layout" section names exactly the folders that exist (issue 12: "README's
# layout section matches the tree"), so it cannot go stale: every folder of src/ and of
# tools/, include/berth/, and every other top-level folder of the tree has a line in the
# section's code block (a line starting with the folder and a slash), and no such line names
# a folder that is gone. The checker runs once on the tree and once on a made-up tree whose
# README misses a folder and names one that does not exist, which it must reject.
. "$(dirname "$0")/lib.inc"

# tree_dirs ROOT: the folders the layout must name, one per line, sorted ("src/base/").
# Tracked folders when ROOT is a git checkout (build folders are not part of the tree),
# else the folders on disk but build*.
tree_dirs() {
  if git -C "$1" rev-parse --show-toplevel >/dev/null 2>&1 &&
     [ "$(cd "$1" && git rev-parse --show-toplevel)" = "$(cd "$1" && pwd -P)" ]; then
    (cd "$1" && git ls-files) | awk -F/ 'NF > 1 { print $1 "/" } NF > 2 { print $1 "/" $2 "/" }'
  else
    (cd "$1" && find . -mindepth 1 -maxdepth 2 -type d ! -name '.*' ! -path './build*' ! -path './.*') |
      sed 's|^\./||; s|$|/|' | awk -F/ 'NF == 2 { print } NF == 3 { print }'
  fi | awk -F/ '
    $1 ~ /^\./ { next }
    NF == 2 && $1 != "src" && $1 != "tools" && $1 != "include" { print }
    NF == 3 && ($1 == "src" || $1 == "tools") { print }
    NF == 3 && $1 == "include" && $2 == "berth" { print }' | sort -u
}

# readme_dirs README: the folders the layout section's code block names, sorted.
readme_dirs() {
  awk '/^## /{ in_sec = ($0 == "## Layout") } in_sec && /^```/{ blk = !blk; next }
       in_sec && blk && /^[a-z][a-z0-9_.-]*\/([a-z0-9_.-]+\/)?[ \t]/ { print $1 }' "$1" | sort -u
}

# check_layout ROOT: one line per difference ("missing X", "stale X").
check_layout() {
  want=$(tree_dirs "$1")
  have=$(readme_dirs "$1/README.md")
  printf '%s\n' "$want" | while read -r d; do
    [ -n "$d" ] && ! printf '%s\n' "$have" | grep -qxF "$d" && echo "missing $d"
  done
  printf '%s\n' "$have" | while read -r d; do
    [ -n "$d" ] && ! printf '%s\n' "$want" | grep -qxF "$d" && echo "stale $d"
  done
  return 0
}

out=$(check_layout .)
n=$(readme_dirs README.md | wc -l)
if [ -z "$out" ] && [ "$n" -gt 10 ]; then echo "ok   README's layout names the $n folders of the tree"
else
  echo "FAIL README.md's Layout section does not match the tree (a line 'FOLDER/  what it holds' per folder):"
  printf '%s\n' "$out" | sed 's/^/  /'; failures=$((failures+1))
fi

# The checker itself, on a made-up tree (not a git checkout: the folders on disk).
t=$(mktemp -d)
mkdir -p "$t/src/base" "$t/src/gadgets" "$t/tools/berth" "$t/include/berth" "$t/docs" "$t/build/x"
printf '# x\n## Layout\n\n```\ninclude/berth/   headers\nsrc/base/        base\nsrc/old/         gone\ntools/berth/     tool\n```\n## Next\n```\ndocs/   not in the section\n```\n' > "$t/README.md"
got=$(check_layout "$t" | sort | tr '\n' ';')
rm -rf "$t"
if [ "$got" = "missing docs/;missing src/gadgets/;stale src/old/;" ]; then echo "ok   the checker finds missing and stale folders"
else echo "FAIL the checker reports '$got'"; failures=$((failures+1)); fi
finish
