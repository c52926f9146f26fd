# Installs berth from BUILD into a temporary prefix and builds programs against it the ways a
# user would, then runs them on the seed program ((5, 5) then (6, 7)):
#  1. pkg-config: berth (compiler + runtime, shared) and berth-runtime (static runtime);
#  2. CMake find_package(berth): berth::berth, berth::runtime, berth_add_runtime;
#  3. CMake add_subdirectory(berth) from a parent project: berth::runtime, berth_add_runtime.
# Usage: sh tests/package/check.sh BUILD_DIR (from the source root). Skips (77) in sanitizer
# builds (the installed libraries would need the sanitizer runtimes in every consumer).
set -u
build=$(cd "$1" && pwd)
src=$(pwd)
if grep -q '^BERTH_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "skip: sanitizer build (packaging is checked in the normal build)"; exit 77
fi
command -v pkg-config >/dev/null || { echo "skip: no pkg-config"; exit 77; }
work=$(mktemp -d /tmp/berth_package.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0
check() { # NAME WANT CMD...
  name=$1; want=$2; shift 2
  got=$("$@" 2>"$work/err")
  if [ "$got" = "$want" ]; then echo "ok   $name"; else
    echo "FAIL $name"; echo "  want: $want"; echo "  got:  $got"; cat "$work/err"; fail=1; fi
}
# the version as include/berth/version.h says, its one home
version=$(sed -n 's/^#define BERTH_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' include/berth/version.h | paste -sd.)
seed_out='(5, 5)
(6, 7)'
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
"$prefix/bin/berth" compile examples/seed/seed.bir -o "$work/seed.berth" --ops-header "$work/seed_ops.h" >/dev/null || exit 1

# 1. pkg-config
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc=${CC:-cc}
$cc -std=c11 -o "$work/consumer_pc" tests/package/consumer.c $(pkg-config --cflags --libs berth) \
   -Wl,-rpath,"$prefix/lib" || fail=1
check "pkg-config berth: compile and run the seed" "$seed_out
berth $version" "$work/consumer_pc" examples/seed/seed.bir
$cc -std=c11 -o "$work/embed_pc" examples/embed/embed.c $(pkg-config --cflags --libs berth-runtime) || fail=1
check "pkg-config berth-runtime: run seed.berth" "$seed_out" "$work/embed_pc" "$work/seed.berth"

# 2. find_package(berth) against the prefix
cmake -S tests/package -B "$work/fp" -DCMAKE_PREFIX_PATH="$prefix" -DSEED_OPS="$work/seed_ops.h" \
      -DCMAKE_BUILD_TYPE=Release >"$work/fp.log" 2>&1 && cmake --build "$work/fp" -j2 >>"$work/fp.log" 2>&1 ||
  { echo "FAIL find_package build:"; tail -30 "$work/fp.log"; fail=1; }
check "find_package: berth::berth" "$seed_out
berth $version" "$work/fp/consumer" examples/seed/seed.bir
check "find_package: berth::runtime" "$seed_out" "$work/fp/embed" "$work/seed.berth"
check "find_package: berth_add_runtime" "$seed_out" "$work/fp/embed_small" "$work/seed.berth"

# 3. add_subdirectory(berth): the runtime targets only (the whole compiler builds the same way)
cmake -S tests/package -B "$work/as" -DBERTH_SOURCE="$src" -DSEED_OPS="$work/seed_ops.h" \
      -DCMAKE_BUILD_TYPE=Release >"$work/as.log" 2>&1 &&
  cmake --build "$work/as" -j2 --target embed embed_small >>"$work/as.log" 2>&1 ||
  { echo "FAIL add_subdirectory build:"; tail -30 "$work/as.log"; fail=1; }
check "add_subdirectory: berth::runtime" "$seed_out" "$work/as/embed" "$work/seed.berth"
check "add_subdirectory: berth_add_runtime" "$seed_out" "$work/as/embed_small" "$work/seed.berth"
[ $fail -eq 0 ] && echo "all passed"
exit $fail
