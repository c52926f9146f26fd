# `berth onnx-test` names why a folder is UNSUPPORTED from a fixed list: ImageDecoder alone
# (decoding JPEG/PNG/TIFF/WebP/JPEG 2000 bytes) is "image codecs", and "not implemented"
# stays the catch-all for any other op berth lacks (here ImageDecoder renamed to an op no
# one defines). Needs the shared suite; skips (77) without it.
. "$(dirname "$0")/lib.inc"
DATA=${BERTH_DATA_DIR:-../shared/data}
ID="$DATA/onnx-backend-tests/node/test_image_decoder_decode_png_rgb"
if [ ! -d "$ID" ]; then
  echo "skipped: $ID not found (the ONNX suites live in ../shared/data)"
  exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp -r "$ID" "$T/renamed"
LC_ALL=C sed 's/ImageDecoder/ImageDecodez/g' "$ID/model.onnx" > "$T/renamed/model.onnx"
expect_out "ImageDecoder folders are image codecs" "9
unsupported by reason: image codecs 9
0 passed, 0 failed, 9 unsupported" sh -c "'$BERTH' onnx-test '$DATA'/onnx-backend-tests/node/test_image_decoder_* |
  grep -c 'ImageDecoder (1 node) \[image codecs\]\$'; '$BERTH' onnx-test '$DATA'/onnx-backend-tests/node/test_image_decoder_* | tail -n 2"
expect_out "another missing op is not implemented" "UNSUPPORTED renamed: onnx: berth lacks 1 op this model uses: ImageDecodez (1 node) [not implemented]
unsupported by reason: not implemented 1" sh -c "'$BERTH' onnx-test '$T/renamed' | head -n 2"
finish
