# berth bench: timed calls through the public runtime API, and --profile's observer. The
# countdown loop (examples/while_loop) with n = 5 runs its body's add and sub 5 times a call
# and its condition's gt 6 times: the profile's runs column must say so (an observer that
# missed a call, or fired twice, fails). Inputs without --call: floats random, integers zeros.
# A .berth runs its stored plan; an ONNX model is compiled first; --json is one document (read
# back with python3). Wrong command lines exit 2, failures 1 with a message.
. "$(dirname "$0")/lib.inc"
L=examples/while_loop/countdown.bir
out=$("$BERTH" bench $L --call 'i64[]:5 f32[2]:1,2' --calls 3 --warmup 1 --profile 2>&1)
expect_true "bench: min, median, mean and max per call" sh -c "printf '%s\n' \"\$1\" | grep -Eq '^  per call: min [0-9.]+ us, median [0-9.]+ us, mean [0-9.]+ us, max [0-9.]+ us$'" _ "$out"
row() { printf '%s\n' "$out" | awk -v op="$1" '$1 == op && NF == 5 { print $2, $3 }'; }
expect_true "profile: add, 1 instruction run 5 times a call" [ "$(row add)" = "1 5" ]
expect_true "profile: sub, 1 instruction run 5 times a call" [ "$(row sub)" = "1 5" ]
expect_true "profile: gt, 1 instruction run 6 times a call" [ "$(row gt)" = "1 6" ]
expect_true "profile: the slowest instructions name their outputs" sh -c "printf '%s\n' \"\$1\" | grep -Eq ' us +[0-9.]+%  %acc_next f32\\[2\\]$'" _ "$out"
out=$("$BERTH" bench $L --calls 2 2>&1)
expect_true "bench without --call: integers zeros" sh -c "printf '%s\n' \"\$1\" | grep -q '^  input %n i64\\[\\]: zeros$'" _ "$out"
expect_true "bench without --call: floats random" sh -c "printf '%s\n' \"\$1\" | grep -q '^  input %x f32\\[2\\]: uniform in \\[-1, 1)$'" _ "$out"
# --json: one document; the profile's runs per instruction as in the text
if command -v python3 >/dev/null 2>&1; then
  got=$("$BERTH" bench $L --call 'i64[]:5 f32[2]:1,2' --calls 2 --profile --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
runs = {r["op"]: r["runs"] for r in d["profile"]["instructions"] if r["op"] in ("add", "sub", "gt")}
add = [r for r in d["profile"]["instructions"] if r["op"] == "add"][0]
print(d["method"], d["calls"], [i["data"] for i in d["inputs"]], runs["add"], runs["sub"], runs["gt"],
      add["output"], add["dtype"], add["shape"], sorted(d["us"]) == ["max", "mean", "median", "min"])')
  expect_true "bench --json: one document with the profile" [ "$got" = "forward 2 ['given', 'given'] 5 5 6 acc_next f32 [2] True" ]
  got=$("$BERTH" bench $L --calls 2 --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print([i["data"] for i in d["inputs"]], "profile" in d)')
  expect_true "bench --json without --profile: inputs zeros and uniform, no profile" [ "$got" = "['zeros', 'uniform'] False" ]
else
  echo "skip bench --json: no python3 to read it"
fi
expect_fail_quiet "bench --json of a call that fails: nothing on stdout" "takes 2 inputs" "$BERTH" bench $L --json --call 'i64[]:5'
tmp=$(mktemp -d)
"$BERTH" compile $L -o "$tmp/c.berth" >/dev/null
out=$("$BERTH" bench "$tmp/c.berth" --call 'i64[]:2 f32[2]:1,2' --calls 2 --profile 2>&1)
expect_true "bench of a .berth file: its stored plan, profiled" [ "$(row add)" = "1 2" ]
M=../shared/data/onnx-node-tests/test_conv_with_strides_padding/model.onnx
if [ -f "$M" ]; then
  out=$("$BERTH" bench "$M" --calls 2 --profile 2>&1)
  expect_true "bench of an ONNX model: its conv profiled" sh -c "printf '%s\n' \"\$1\" | grep -Eq '^  conv[a-z_]* +1 +1 '" _ "$out"
else
  echo "skip bench of an ONNX model: $M absent (../shared/data)"
fi
rm -rf "$tmp"
expect_status "bench --calls 0: usage" 2 "expected a whole number from 1" "$BERTH" bench $L --calls 0
expect_status "bench --calls x: usage" 2 "expected a whole number" "$BERTH" bench $L --calls x
expect_status "bench --top given twice: usage" 2 "given twice" "$BERTH" bench $L --top 1 --top 2
expect_status "bench: unknown option" 2 "unknown option '--fast'" "$BERTH" bench $L --fast
expect_status "bench: no program" 2 "missing PROGRAM" "$BERTH" bench
expect_status "bench --call with too few inputs" 1 "takes 2 inputs, got 1" "$BERTH" bench $L --call 'i64[]:5'
expect_status "bench --call of the wrong type" 1 "expected f32\\[2\\], got f32\\[3\\]" "$BERTH" bench $L --call 'i64[]:5 f32[3]:1,2,3'
expect_status "bench: a missing file" 1 "nope.bir" "$BERTH" bench nope.bir
expect_status "bench: no such method" 1 "has no method 'back'" "$BERTH" bench $L --method back
finish
