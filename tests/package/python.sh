# The Python package (python/berth) against this build's libberth.so:
#  1. its pytest suite (python/tests), with BERTH_LIBRARY pointing at the build;
#  2. `pip install --no-build-isolation --no-index` of a copy of python/ into a fresh venv
#     (offline, Debian's python3 + python3-numpy), then the seed program run from the
#     installed package outside the source tree.
# Usage: sh tests/package/python.sh BUILD_DIR (from the source root). Skips (77) without
# Debian's python3 with numpy and pytest, and in sanitizer builds (an ASan libberth cannot
# be loaded into an uninstrumented python).
set -u
build=$(cd "$1" && pwd)
lib=$build/libberth.so
root=$(pwd)
if grep -q '^BERTH_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "skip: sanitizer build (the Python package is checked in the normal build)"; exit 77
fi
py=/usr/bin/python3
[ -x $py ] || py=$(command -v python3)
$py -c 'import numpy, pytest' 2>/dev/null || {
  echo "skip: $py lacks numpy or pytest (apt-get install python3-numpy python3-pytest)"; exit 77; }
fail=0
BERTH_LIBRARY=$lib PYTHONPATH=python $py -m pytest -q -p no:cacheprovider python/tests || fail=1
work=$(mktemp -d /tmp/berth_python.XXXXXX)
trap 'rm -rf "$work"' EXIT
if $py -m venv --system-site-packages "$work/venv" >/dev/null 2>&1 && "$work/venv/bin/python" -m pip --version >/dev/null 2>&1; then
  cp -r python "$work/src"
  if "$work/venv/bin/python" -m pip install -q --no-build-isolation --no-index "$work/src" >"$work/pip.log" 2>&1; then
    got=$(cd "$work" && BERTH_LIBRARY=$lib "$work/venv/bin/python" -c '
import berth, numpy as np, sys
m = berth.compile(sys.argv[1]).method()
print(berth.__file__.startswith(sys.argv[2]), m(np.array([5.0]))["result2"][0], m(np.array([6.0]))["result2"][0])
' "$root/examples/seed/seed.bir" "$work/venv")
    if [ "$got" = "True 5.0 7.0" ]; then echo "ok   pip install ./python (offline) and run the seed"
    else echo "FAIL pip-installed package: got '$got'"; fail=1; fi
  else
    echo "FAIL pip install --no-build-isolation ./python:"; cat "$work/pip.log"; fail=1
  fi
else
  echo "skip pip install: no venv/pip for $py (apt-get install python3-venv python3-pip)"
fi
exit $fail
