# The whole shared ONNX conformance suite once per kernel variant this build and CPU have
# (BERTH_KERNELS=portable, avx2, avx512; onnx_suites.sh runs the default, the widest, under
# ASan and UBSan), each with the arena sanitizer (--sanitize: kernel scratch poisoned with
# NaN before every call, so a kernel that reads scratch it did not write shows in its
# outputs): every variant must pass what the default passes, nothing may fail. A variant's
# own paths (tile sizes, lane counts) are reached only when it runs: AVX-512's conv tile once
# left outputs unwritten for 9-11 positions, which only an AVX-512 run with --sanitize saw
# (Inception v1 gave NaN; without it, stale scratch from an earlier call looked right).
# Variants the machine lacks are named and skipped; skips (77) when the data is absent.
BERTH=$1
DATA=${BERTH_DATA_DIR:-../shared/data}
if [ ! -d "$DATA/onnx-node-tests" ] || [ ! -d "$DATA/onnx-backend-tests" ]; then
  echo "skipped: $DATA/onnx-node-tests or onnx-backend-tests not found (the ONNX suites live in ../shared/data)"
  exit 77
fi
set -- "$DATA"/onnx-node-tests/*
for d in node pytorch-converted pytorch-operator simple light-tests; do
  [ -d "$DATA/onnx-backend-tests/$d" ] && set -- "$@" "$DATA/onnx-backend-tests/$d"/*
done
want=$("$BERTH" onnx-test --sanitize "$@" 2>&1 | tail -n 1)
echo "default (the widest variant): $want"
status=0 ran=0
for v in portable avx2 avx512; do
  if ! BERTH_KERNELS=$v "$BERTH" --version >/dev/null 2>&1; then
    echo "skip $v: this build or this CPU lacks it"
    continue
  fi
  out=$(BERTH_KERNELS=$v "$BERTH" onnx-test --sanitize "$@" 2>&1)
  got=$(echo "$out" | tail -n 1)
  ran=$((ran + 1))
  if [ "$got" = "$want" ] && echo "$got" | grep -Eq '^[0-9]+ passed, 0 failed, [0-9]+ unsupported$'; then
    echo "ok   $v: $got"
  else
    echo "FAIL $v: $got (the default: $want)"; echo "$out" | grep -E '^FAIL ' | head -20; status=1
  fi
done
[ $ran -ge 1 ] || { echo "FAIL: no variant ran (portable is in every build)"; status=1; }
exit $status
