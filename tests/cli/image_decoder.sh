# ONNX ImageDecoder: the suite's folders pass folded (onnx-test
# specializes the model on the stream) and through the bounded kernel (--dynamic-bound: the
# result planned [N, N, C], its height and width both run-time extents), plain and under
# --sanitize; `berth run` gives the real [h, w, C] shape in the planned runtime, the
# reference interpreter and the sanitizer, and from a compiled file (whose bounds section
# has two records for the output); an image larger than the bound and a stream no decoder
# takes fail the call naming the node. Uses ../shared/data (left out, with a note, when absent).
BERTH=$1
. tests/cli/lib.inc
N=${BERTH_DATA_DIR:-../shared/data}/onnx-backend-tests/node
if [ ! -d "$N/test_image_decoder_decode_png_rgb" ]; then
  echo "note: $N not found; the ImageDecoder folders live in ../shared/data"
  finish
  exit 0
fi
# all nine folders: BMP, PNM, TIFF, PNG, JPEG (RGB, BGR, grey), WebP, JPEG 2000
dirs=$(echo $(ls -d $N/test_image_decoder_decode_*))
n=$(echo $dirs | wc -w)
expect_out "onnx-test folded ($n folders)" "$n passed, 0 failed, 0 unsupported" sh -c "\"$BERTH\" onnx-test $dirs | tail -1"
for mode in "" --sanitize; do
  expect_out "onnx-test --dynamic-bound 64 $mode ($n folders)" "$n passed, 0 failed, 0 unsupported" sh -c \
    "\"$BERTH\" onnx-test --dynamic-bound 64 $mode $dirs | tail -1"
done
expect_out "onnx-test --dynamic-bound runs the kernel" "$n" sh -c \
  "\"$BERTH\" onnx-test --dynamic-bound 64 --print-ir $dirs 2>&1 | grep -c '= image_decoder('"
expect_out "onnx-test --dynamic-bound 16: every image is larger" "0 passed, $n failed, 0 unsupported" sh -c \
  "\"$BERTH\" onnx-test --dynamic-bound 16 $dirs | tail -1"
# every decoder says "larger than the bound" in its own words the kernel recognizes, so each
# format's oversized image is reported as such, not as a stream no decoder takes
expect_out "onnx-test --dynamic-bound 16: each format reports the bound" "$n" sh -c \
  "\"$BERTH\" onnx-test --dynamic-bound 16 $dirs | grep -c \"ImageDecoder with output 'output': the image is larger than --dynamic-bound 16 (16x16 pixels)\$\""

# a 7x5 PNG padded to the model's 312-byte input (the decoder reads no further than IEND)
T=/tmp/berth_imgdec.$$
mknpy() { # mknpy IN OUT: a 1-D uint8 .npy holding IN's bytes
  len=$(wc -c < "$1" | tr -d ' ')
  h=$(printf '%-117s' "{'descr': '|u1', 'fortran_order': False, 'shape': ($len,), }")
  { printf '\223NUMPY\001\000\166\000'; printf '%s\n' "$h"; cat "$1"; } > "$2"
}
{ cat tests/images/png_rgb.png; head -c $((312 - $(wc -c < tests/images/png_rgb.png))) /dev/zero; } > $T.png
head -c 312 /dev/zero > $T.zero
mknpy $T.png $T.img.npy
mknpy $T.zero $T.zero.npy
M=$N/test_image_decoder_decode_png_rgb/model.onnx
for mode in "" --reference --sanitize; do
  expect_out "run --dynamic-bound 8 $mode: the real shape" "%output = u8[5,7,3] [[[208, 59, 234], [248, 19, 4]," sh -c \
    "\"$BERTH\" run $M --dynamic-bound 8 $mode --call @$T.img.npy | sed -n 's/^ *//p' | grep -o '^.\{51\}'"
  expect_status "run --dynamic-bound 6 $mode: larger than the bound" 1 \
    "ImageDecoder with output 'output': the image is larger than --dynamic-bound 6 \\(6x6 pixels\\)$" \
    "$BERTH" run $M --dynamic-bound 6 $mode --call @$T.img.npy
  expect_status "run $mode: no decoder takes the stream" 1 \
    "ImageDecoder with output 'output': no decoder accepts the stream" "$BERTH" run $M --dynamic-bound 8 $mode --call @$T.zero.npy
done
expect_out "compiled" "ok" sh -c "\"$BERTH\" compile $M --dynamic-bound 8 -o $T.berth >/dev/null && echo ok"
expect_out "dis shows both bounded axes" "1" sh -c \
  "\"$BERTH\" dis $T.berth | grep -c 'output 0 .*u8\[8,8,3\].*axis 0 bounded, extent v[0-9]*  axis 1 bounded, extent v[0-9]*'"
expect_out "compiled file runs bounded" "%output = u8[5,7,3]" sh -c \
  "\"$BERTH\" run $T.berth --sanitize --call @$T.img.npy | sed -n 's/^ *//p' | grep -o '^%output = u8\[[0-9,]*\]'"
expect_out "json gives the real shape" '"shape":[5,7,3]' sh -c \
  "\"$BERTH\" run $T.berth --json --call @$T.img.npy | grep -o '\"shape\":\[[0-9,]*\]'"
expect_status "a constant stream that no decoder takes fails the import naming the node" 1 \
  "\\(ImageDecoder, opset 20\\): the stream is not an image format berth knows" \
  "$BERTH" run $M --input "data:u8[312]=$(printf '0,%.0s' $(seq 311))0" --call ''
rm -f $T.png $T.zero $T.img.npy $T.zero.npy $T.berth
finish
