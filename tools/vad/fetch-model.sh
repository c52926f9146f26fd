#!/bin/sh
# Fetch the Silero VAD models (legacy/v4, v5, v6) and onnxruntime-node (for golden data and
# the benchmarks) into an ignored folder, without running any install scripts.
#
#   tools/vad/fetch-model.sh [DIR]      (default: build/vad-deps; prints the v5 model's path)
#
# Afterwards:
#   DIR/node_modules/@ricky0123/vad-web/dist/silero_vad_{legacy,v5,v6}.onnx
#   DIR/node_modules/onnxruntime-node   (ships libonnxruntime.so.1 under bin/napi-v*/linux/x64)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$root/build/vad-deps}
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || printf '{ "name": "berth-vad-deps", "private": true }\n' > package.json
model=$dir/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx
if [ ! -f "$model" ] || [ ! -d node_modules/onnxruntime-node ]; then
  npm install --ignore-scripts --no-audit --no-fund @ricky0123/vad-web onnxruntime-node >&2
fi
for m in "$model" "${model%v5.onnx}v6.onnx" "${model%v5.onnx}legacy.onnx"; do
  [ -f "$m" ] || { echo "fetch-model.sh: $m missing after npm install (an older @ricky0123/vad-web?)" >&2; exit 1; }
done
echo "$model"
