# The importer on Silero VAD v5 (If on sr at the top, shape-only Ifs nested up to 4 deep
# inside, LSTM): one frame of a sine (x[i] = 0.5 sin(0.3 i), zero state) against
# onnxruntime-node 1.x's outputs, within 1e-4:
#  - input f32[1,256] with sr at run time: the If on sr stays a runtime cond (both the
#    16 kHz and the 8 kHz model in one program), the shape-only Ifs fold, also with
#    --keep-control-flow (their branches differ in type, so they fold after all);
#  - input f32[1,512] (the 16 kHz frame): the 8 kHz branch does not build at that shape
#    (onnxruntime fails there too, at run time), so sr at run time is refused naming 'sr',
#    and sr bound to 16000 works, with --keep-control-flow too.
# Skips (77) without the model (BERTH_VAD_MODEL, or where tools/vad/fetch-model.sh or
# `npm install @ricky0123/vad-web` in /tmp/vadpkg put it).
BERTH=$1
. tests/cli/lib.inc
model=${BERTH_VAD_MODEL:-}
for m in build/vad-deps/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx \
         /tmp/vadpkg/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx; do
  [ -n "$model" ] || { [ -f "$m" ] && model=$m; }
done
[ -n "$model" ] && [ -f "$model" ] || { echo "skip: no silero_vad_v5.onnx (set BERTH_VAD_MODEL)"; exit 77; }
frame() { awk -v n="$1" 'BEGIN{for(i=0;i<n;i++) printf "%s%.6f", (i?",":""), 0.5*sin(0.3*i)}'; }
zeros=$(awk 'BEGIN{for(i=0;i<256;i++) printf "%s0", (i?",":"")}')
x256=$(frame 256)
x512=$(frame 512)
# the [1,1] outputs of every call, one a line
probs() { "$@" --json | grep -o '"shape":\[1,1\],"data":\[[^]]*' | sed 's/.*\[//'; }
# NAME WANT... CMD...: each probability within 1e-4 of its expected value
expect_probs() {
  name=$1; want=$2; shift 2
  got=$(probs "$@" 2>/tmp/berth_cli_err.$$ | tr '\n' ' ')
  if echo "$got|$want" | awk -F'|' '{n=split($1,g," "); m=split($2,w," "); if (n!=m) exit 1;
      for(i=1;i<=n;i++){d=g[i]-w[i]; if(d<0)d=-d; if(d>1e-4) exit 1}}'; then echo "ok   $name"
  else echo "FAIL $name: got '$got', want '$want' $(cat /tmp/berth_cli_err.$$)"; failures=$((failures+1)); fi
}
specs256="--input input:f32[1,256] --input state:f32[2,1,128] --input sr:i64[]"
expect_out silero_runtime_sr_cond "1" sh -c "\"$BERTH\" check \"$model\" $specs256 | grep -c 'cond'"
expect_probs silero_256_both_rates "0.0048668683 0.074172139" \
  "$BERTH" run "$model" $specs256 --call "f32[1,256]:$x256 f32[2,1,128]:$zeros i64[]:16000" \
  --call "f32[1,256]:$x256 f32[2,1,128]:$zeros i64[]:8000"
expect_probs silero_256_both_rates_keep "0.0048668683 0.074172139" \
  "$BERTH" run "$model" $specs256 --keep-control-flow --call "f32[1,256]:$x256 f32[2,1,128]:$zeros i64[]:16000" \
  --call "f32[1,256]:$x256 f32[2,1,128]:$zeros i64[]:8000"
expect_fail silero_512_runtime_sr "8 kHz|a branch does not build.*depends on graph input 'sr'" \
  "$BERTH" run "$model" --input input:f32[1,512] --input state:f32[2,1,128] --input sr:i64[] --call ''
for keep in "" --keep-control-flow; do
  expect_probs "silero_512_16k$keep" "0.23636320" \
    "$BERTH" run "$model" --input input:f32[1,512] --input state:f32[2,1,128] --input 'sr:i64[]=16000' $keep \
    --call "f32[1,512]:$x512 f32[2,1,128]:$zeros"
done
finish
