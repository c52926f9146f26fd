# The channel-blocked conv regions (src/passes/layout.c) on real networks of the light model
# zoo, when ../shared/data has them: ResNet-50's convs, the stem included (it reads the plain
# image), run as conv_blocked with one reorder out, DenseNet-121 stays plain (each layer would reorder its
# concatenated input: the cost model refuses), --plain-layout keeps every conv plain and is
# an ONNX option given once; the planned arena of the blocked ResNet-50 is still its lower
# bound, and the converted program runs under the sanitizer (every read of the reorders and
# blocked values checked) with the plain program's outputs. The light zoo's weights are
# constants, so those outputs cannot show a wrong channel order: tests/onnx/blocked_cnn
# (random weights, against onnxruntime, tests/cli/onnx_own.sh) is the check of the values.
BERTH=$1
. tests/cli/lib.inc
DATA=${BERTH_DATA_DIR:-../shared/data}/onnx-backend-tests/light
if [ ! -f "$DATA/light_resnet50.onnx" ]; then
  echo "skip: $DATA/light_resnet50.onnx absent (the shared data)"; exit 77
fi
R=$DATA/light_resnet50.onnx
F=/tmp/berth_layout.$$.berth
P=/tmp/berth_layout_plain.$$.berth
"$BERTH" compile "$R" -o $F >/dev/null
"$BERTH" compile "$R" -o $P --plain-layout >/dev/null
expect_out "ResNet-50: all 53 convs blocked (the stem reads the plain image; the 11 3x3s on 14x14 planes or larger by Winograd), 1 reorder (out)" "42 11 1 0" sh -c \
  "\"$BERTH\" dis $F | awk '/kernel conv_blocked/ { b++ } /kernel conv_winograd/ { w++ } /kernel transpose/ { t++ } /kernel conv_packed/ { p++ } END { print b + 0, w + 0, t + 0, p + 0 }'"
W=/tmp/berth_layout_direct.$$.berth
"$BERTH" compile "$R" -o $W --direct-3x3 >/dev/null
expect_out "ResNet-50 --direct-3x3: all 53 convs conv_blocked, none by Winograd" "53 0" sh -c \
  "\"$BERTH\" dis $W | awk '/kernel conv_blocked/ { b++ } /kernel conv_winograd/ { w++ } END { print b + 0, w + 0 }'"
expect_out "ResNet-50 --plain-layout: no conv blocked" "0 0" sh -c \
  "\"$BERTH\" dis $P | awk '/kernel conv_blocked/ { b++ } /kernel transpose/ { t++ } END { print b + 0, t + 0 }'"
expect_out "ResNet-50 blocked: arena at the lower bound" "yes" sh -c \
  "\"$BERTH\" plan \"$R\" --json | python3 -c 'import json,sys; m=json.load(sys.stdin)[\"methods\"][0]; print(\"yes\" if m[\"arena_bytes\"] == m[\"lower_bound_bytes\"] and m[\"copies\"] == 0 else m)'"
# one input image as .npy (written without numpy), each program's output as .npy
D=/tmp/berth_layout.$$.d
mkdir -p $D/b $D/p
python3 - "$D/x.npy" <<'PY'
import math, struct, sys
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }"
hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode())
    f.write(struct.pack("<150528f", *[math.sin(i * 0.37) for i in range(150528)]))
PY
"$BERTH" run $F --sanitize --call "@$D/x.npy" --out-dir $D/b >/dev/null 2>$D/err || cat $D/err
"$BERTH" run $P --call "@$D/x.npy" --out-dir $D/p >/dev/null 2>>$D/err || cat $D/err
cmp_out() {
  python3 - "$D/b/call1_out0.npy" "$D/p/call1_out0.npy" <<'PY'
import struct, sys
def load(p):
    b = open(p, "rb").read()
    n = struct.unpack("<H", b[8:10])[0]
    return struct.unpack("<%df" % ((len(b) - 10 - n) // 4), b[10 + n:])
a, b = load(sys.argv[1]), load(sys.argv[2])
top = lambda v: max(range(len(v)), key=v.__getitem__)
d = max(abs(x - y) for x, y in zip(a, b))
print("same" if len(a) == len(b) == 1000 and top(a) == top(b) and d <= 1e-6 else "top %d %d diff %g" % (top(a), top(b), d))
PY
}
expect_out "ResNet-50 blocked runs under the sanitizer, outputs = plain (within 1e-6)" "same" cmp_out
if [ -f "$DATA/light_densenet121.onnx" ]; then
  expect_out "DenseNet-121: no region pays" "0" sh -c \
    "\"$BERTH\" compile \"$DATA/light_densenet121.onnx\" -o $F >/dev/null && \"$BERTH\" dis $F | grep -c 'kernel conv_blocked' || true"
fi
expect_fail "--plain-layout given twice" "once" "$BERTH" plan "$R" --plain-layout --plain-layout
expect_fail "--direct-3x3 given twice" "once" "$BERTH" plan "$R" --direct-3x3 --direct-3x3
# onnx-test takes it too: the zoo's SqueezeNet passes its expected outputs both ways, and
# only the default imports it with blocked convs
SQ=${BERTH_DATA_DIR:-../shared/data}/onnx-backend-tests/light-tests/test_squeezenet
if [ -d "$SQ" ]; then
  expect_out "onnx-test SqueezeNet: blocked convs (the stem too; its 8 3x3s of stride 1 by Winograd), passes" "17 8 1" sh -c \
    "\"$BERTH\" onnx-test --print-ir \"$SQ\" 2>&1 | awk '/conv_blocked\\(/ { b++ } /conv_winograd\\(/ { w++ } /^1 passed, 0 failed/ { p++ } END { print b + 0, w + 0, p + 0 }'"
  expect_out "onnx-test --direct-3x3 SqueezeNet: all 25 blocked direct, passes" "25 0 1" sh -c \
    "\"$BERTH\" onnx-test --direct-3x3 --print-ir \"$SQ\" 2>&1 | awk '/conv_blocked\\(/ { b++ } /conv_winograd\\(/ { w++ } /^1 passed, 0 failed/ { p++ } END { print b + 0, w + 0, p + 0 }'"
  expect_out "onnx-test --plain-layout SqueezeNet: none, passes" "0 1" sh -c \
    "\"$BERTH\" onnx-test --plain-layout --print-ir \"$SQ\" 2>&1 | awk '/conv_blocked\\(/ { b++ } /^1 passed, 0 failed/ { p++ } END { print b + 0, p + 0 }'"
fi
rm -rf $F $P $W $D
finish
