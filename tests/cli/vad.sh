# Silero VAD v5 end to end against onnxruntime's golden data (tests/vad, made by
# tools/vad/golden.js). Compiles the model twice with the berth under test:
#   vad.berth:   input f32[1,256], sr at run time (the top-level If on sr stays a runtime
#                cond: the 16 kHz and the 8 kHz model in one program);
#   vad16.berth: input f32[1,512], sr = 16000 (the standard 16 kHz frame).
# Runs every frame of the test audio through examples/vad's berth-vad, checks each
# probability within 1e-4 of onnxruntime's and the speech segments equal onnxruntime's.
# Skips (77) without the model (tools/vad/fetch-model.sh), without espeak-ng/sox (the
# audio is regenerated, deterministically, by tools/vad/make-audio.sh), when the
# regenerated audio differs from the golden data's (another espeak-ng/sox version), or
# without berth-vad.
. "$(dirname "$0")/lib.inc"
root=$(cd "$(dirname "$0")/../.." && pwd)
model=${BERTH_VAD_MODEL:-$root/build/vad-deps/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx}
vad=$(dirname "$BERTH")/examples/vad/berth-vad
[ -f "$model" ] || { echo "skip: no $model (run tools/vad/fetch-model.sh)"; exit 77; }
[ -x "$vad" ] || { echo "skip: no $vad"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$root/tools/vad/make-audio.sh" "$tmp" 2>"$tmp/audio.log"
rc=$?
[ $rc -eq 77 ] && { cat "$tmp/audio.log"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL make-audio.sh: $(cat "$tmp/audio.log")"; exit 1; }
(cd "$tmp" && md5sum -c --quiet "$root/tests/vad/audio.md5") >/dev/null 2>&1 ||
  { echo "skip: regenerated audio differs from tests/vad/audio.md5 (espeak-ng/sox version); rerun tools/vad/golden.js"; exit 77; }

"$BERTH" compile "$model" --input 'input:f32[1,256]' --input 'state:f32[2,1,128]' --input 'sr:i64[]' \
  --no-ir -o "$tmp/vad.berth" >/dev/null || { echo "FAIL compile vad.berth"; exit 1; }
"$BERTH" compile "$model" --input 'input:f32[1,512]' --input 'state:f32[2,1,128]' --input 'sr:i64[]=16000' \
  --no-ir -o "$tmp/vad16.berth" >/dev/null || { echo "FAIL compile vad16.berth"; exit 1; }

# check_probs NAME PROGRAM WAV GOLDEN
check_probs() {
  if ! "$vad" --probs --model "$2" "$tmp/$3" >"$tmp/$1.txt" 2>"$tmp/$1.err"; then
    echo "FAIL $1: $(cat "$tmp/$1.err")"; failures=$((failures+1)); return
  fi
  res=$(paste "$tmp/$1.txt" "$root/tests/vad/$4.txt" | awk '
    NF != 2 { bad = 1 }
    { d = $1 - $2; if (d < 0) d = -d; if (d > m) { m = d; at = NR } }
    END { printf "%d frames, max abs diff %.3g (frame %d)%s\n", NR, m, at, (bad || m > 1e-4) ? " BAD" : "" }')
  case $res in
    *BAD*) echo "FAIL $1: $res"; failures=$((failures+1)) ;;
    *) echo "ok   $1: $res" ;;
  esac
}
check_probs probs_16k_one_program "$tmp/vad.berth" speech_16k.wav golden_16k_w256
check_probs probs_8k_one_program "$tmp/vad.berth" speech_8k.wav golden_8k
check_probs probs_16k_512 "$tmp/vad16.berth" speech_16k.wav golden_16k
expect_out segments_16k_one_program "$(cat "$root/tests/vad/golden_16k_w256.segments")" \
  "$vad" --model "$tmp/vad.berth" "$tmp/speech_16k.wav"
expect_out segments_8k_one_program "$(cat "$root/tests/vad/golden_8k.segments")" \
  "$vad" --model "$tmp/vad.berth" "$tmp/speech_8k.wav"
expect_out segments_16k_512 "$(cat "$root/tests/vad/golden_16k.segments")" \
  "$vad" --model "$tmp/vad16.berth" "$tmp/speech_16k.wav"
# No heap use after start-up: as many heap calls for 1,160 frames as for 2,321.
if command -v cc >/dev/null && cc -shared -fPIC -o "$tmp/heap-count.so" "$root/tools/vad/heap-count.c" -ldl 2>/dev/null; then
  h8=$(LD_PRELOAD="$tmp/heap-count.so" "$vad" --model "$tmp/vad.berth" "$tmp/speech_8k.wav" 2>&1 >/dev/null | grep 'heap calls')
  h16=$(LD_PRELOAD="$tmp/heap-count.so" "$vad" --model "$tmp/vad.berth" "$tmp/speech_16k.wav" 2>&1 >/dev/null | grep 'heap calls')
  if [ -z "$h8" ] || [ -z "$h16" ]; then echo "skip no_heap_after_startup (LD_PRELOAD not usable here, e.g. under ASan)"
  elif [ "$h8" = "$h16" ]; then echo "ok   no_heap_after_startup ($h8 for 1160 and 2321 frames)"
  else echo "FAIL no_heap_after_startup: '$h8' for 1160 frames, '$h16' for 2321"; failures=$((failures+1)); fi
else
  echo "skip no_heap_after_startup (no cc)"
fi
finish
