# berth-vad against silero-vad's algorithm over onnxruntime (tools/vad/golden.js: OnnxWrapper's
# context and state, get_speech_timestamps's segmentation): every case of tests/vad/cases.txt
# (v5, v6, legacy; 8, 16 and 48 kHz; every option and its edge cases) must give exactly the
# segments, in samples, of tests/vad/NAME.segments. Also: frame probabilities within 1e-4 of
# onnxruntime's (tests/vad/probs_*.txt), the output formats (seconds, JSON, CSV), raw PCM
# on stdin, the streaming C API (examples/vad/vad-stream-check: interleaved streams, random
# chunk sizes, early reports), clear errors, and no heap use after start-up.
# Skips (77) without the models (tools/vad/fetch-model.sh), without espeak-ng/sox (the audio
# is regenerated, deterministically, by tools/vad/make-audio.sh), or when the regenerated
# audio differs from the golden data's (another espeak-ng/sox version).
. "$(dirname "$0")/lib.inc"
root=$(cd "$(dirname "$0")/../.." && pwd)
dist=${BERTH_VAD_DIST:-$root/build/vad-deps/node_modules/@ricky0123/vad-web/dist}
bin=$(dirname "$BERTH")/examples/vad
vad=$bin/berth-vad
for m in v5 v6 legacy; do
  [ -f "$dist/silero_vad_$m.onnx" ] || { echo "skip: no $dist/silero_vad_$m.onnx (run tools/vad/fetch-model.sh)"; exit 77; }
done
[ -x "$vad" ] || { echo "skip: no $vad"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh "$root/tools/vad/make-audio.sh" "$tmp" 2>"$tmp/audio.log"
rc=$?
[ $rc -eq 77 ] && { cat "$tmp/audio.log"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL make-audio.sh: $(cat "$tmp/audio.log")"; exit 1; }
(cd "$tmp" && md5sum -c --quiet "$root/tests/vad/audio.md5") >/dev/null 2>&1 ||
  { echo "skip: regenerated audio differs from tests/vad/audio.md5 (espeak-ng/sox version); rerun tools/vad/golden.js"; exit 77; }
export BERTH_TOOL="$BERTH"
unset BERTH_VAD_MODEL
# A sanitizer build runs its kernels unoptimized, 10 to 20 times slower: there every third
# golden case runs (the defaults always) and one stream-API check, so that the test stays
# well inside ctest's timeout; the normal build runs everything.
sanitized=0
ldd "$vad" 2>/dev/null | grep -q 'libasan' && { sanitized=1; echo "sanitizer build: a third of the golden cases"; }

# compiled programs, as the README shows them (v5/v6 with room for the context)
for m in v5 v6; do
  "$BERTH" compile "$dist/silero_vad_$m.onnx" --input 'input:f32[1,576]' --input 'state:f32[2,1,128]' \
    --input 'sr:i64[]=16000' --no-ir -o "$tmp/${m}_16k.berth" >/dev/null || { echo "FAIL compile ${m}_16k.berth"; exit 1; }
  "$BERTH" compile "$dist/silero_vad_$m.onnx" --input 'input:f32[1,288]' --input 'state:f32[2,1,128]' \
    --input 'sr:i64[]=8000' --no-ir -o "$tmp/${m}_8k.berth" >/dev/null || { echo "FAIL compile ${m}_8k.berth"; exit 1; }
done
"$BERTH" compile "$dist/silero_vad_legacy.onnx" --input 'input:f32[1,512]' --input 'sr:i64[]' \
  --input 'h:f32[2,1,64]' --input 'c:f32[2,1,64]' --no-ir -o "$tmp/legacy.berth" >/dev/null || { echo "FAIL compile legacy.berth"; exit 1; }

# every golden case: the defaults with the .onnx compiled at start-up, the others (and the
# defaults again) with the compiled programs (legacy frame sizes other than 512: the .onnx)
grep -v '^#' "$root/tests/vad/cases.txt" >"$tmp/cases"
i=0
while read -r cname model wav opts; do
  [ -n "$cname" ] || continue
  i=$((i + 1))
  [ $sanitized -eq 1 ] && [ -n "$opts" ] && [ $((i % 3)) -ne 0 ] && continue
  case $wav in *_8k*) rate=8k ;; *) rate=16k ;; esac
  prog=$tmp/${model}_$rate.berth
  [ "$model" = legacy ] && prog=$tmp/legacy.berth
  case "$cname $opts" in
    *--window-size-samples*) prog=$dist/silero_vad_$model.onnx ;;
    v5_16k\ |v6_16k\ |legacy_16k\ |v5_8k\ |v6_8k\ |legacy_8k\ )
      # shellcheck disable=SC2086
      expect_out "segments_${cname}_onnx" "$(cat "$root/tests/vad/$cname.segments")" \
        "$vad" --samples --model "$dist/silero_vad_$model.onnx" $opts "$tmp/$wav" ;;
  esac
  # shellcheck disable=SC2086
  expect_out "segments_$cname" "$(cat "$root/tests/vad/$cname.segments")" "$vad" --samples --model "$prog" $opts "$tmp/$wav"
done <"$tmp/cases"
expect_out model_from_env "$(cat "$root/tests/vad/v6_16k.segments")" env BERTH_VAD_MODEL="$tmp/v6_16k.berth" "$vad" --samples "$tmp/speech_16k.wav"

# model-level: every frame's probability against onnxruntime's
check_probs() { # NAME PROGRAM WAV GOLDEN
  if ! "$vad" --probs --model "$2" "$tmp/$3" >"$tmp/$1.txt" 2>"$tmp/$1.err"; then
    echo "FAIL $1: $(cat "$tmp/$1.err")"; failures=$((failures+1)); return
  fi
  res=$(paste "$tmp/$1.txt" "$root/tests/vad/$4" | awk '
    NF != 2 { bad = 1 }
    { d = $1 - $2; if (d < 0) d = -d; if (d > m) { m = d; at = NR } }
    END { printf "%d frames, max abs diff %.3g (frame %d)%s\n", NR, m, at, (bad || m > 1e-4) ? " BAD" : "" }')
  case $res in
    *BAD*) echo "FAIL $1: $res"; failures=$((failures+1)) ;;
    *) echo "ok   $1: $res" ;;
  esac
}
check_probs probs_v5_16k "$tmp/v5_16k.berth" speech_16k.wav probs_v5_16k.txt
check_probs probs_v6_16k "$tmp/v6_16k.berth" speech_16k.wav probs_v6_16k.txt
check_probs probs_v6_8k "$tmp/v6_8k.berth" speech_8k.wav probs_v6_8k.txt
check_probs probs_legacy_8k "$tmp/legacy.berth" speech_8k.wav probs_legacy_8k.txt

# output formats, from the golden samples (16 kHz: seconds = samples / 16000, exact)
g=v6_16k
expect_out text_seconds "$(awk '{ printf "%.7f %.7f\n", $1 / 16000, $2 / 16000 }' "$root/tests/vad/$g.segments" |
  sed -E 's/0+ / /; s/0+$//; s/\. /.0 /; s/\.$/.0/')" "$vad" --model "$tmp/v6_16k.berth" "$tmp/speech_16k.wav"
expect_out csv "$(printf 'start,end\n'; awk '{ print $1 "," $2 }' "$root/tests/vad/$g.segments")" \
  "$vad" --csv --samples --model "$tmp/v6_16k.berth" "$tmp/speech_16k.wav"
expect_out json_samples "{\"segments\":[$(awk '{ printf "%s{\"start\":%s,\"end\":%s}", (NR > 1 ? "," : ""), $1, $2 }' \
  "$root/tests/vad/$g.segments")]}" "$vad" --json --samples --model "$tmp/v6_16k.berth" "$tmp/speech_16k.wav"
json=$("$vad" --json --model "$tmp/v6_16k.berth" "$tmp/speech_16k.wav")
back=$(printf '%s' "$json" | tr '{' '\n' | sed -n 's/.*"start":\([0-9.]*\),"end":\([0-9.]*\)}.*/\1 \2/p' |
  awk '{ printf "%d %d\n", $1 * 16000 + 0.5, $2 * 16000 + 0.5 }')
if [ "$back" = "$(cat "$root/tests/vad/$g.segments")" ] && printf '%s' "$json" | grep -q '^{"segments":\[{"start":'; then
  echo "ok   json_seconds"; else echo "FAIL json_seconds: $json"; failures=$((failures+1)); fi
expect_out time_resolution "1.2 4.3" sh -c "'$vad' --time-resolution 1 --model '$tmp/v6_16k.berth' '$tmp/speech_16k.wav' | head -1 | cut -c1-7"

# raw PCM on stdin (streaming)
expect_out stdin_raw_16k "$(cat "$root/tests/vad/v6_16k.segments")" \
  sh -c "sox '$tmp/speech_16k.wav' -t raw - | '$vad' --samples --model '$tmp/v6_16k.berth' -"
expect_out stdin_raw_8k "$(cat "$root/tests/vad/v6_8k.segments")" \
  sh -c "sox '$tmp/speech_8k.wav' -t raw - | '$vad' --samples --sampling-rate 8000 --model '$tmp/v6_8k.berth' -"

# the streaming C API: interleaved streams sharing one model, random chunk sizes
for spec in "v6_16k.berth speech_16k.wav v6_16k 11" "v6_8k.berth speech_8k.wav v6_8k 12" "legacy.berth speech_16k.wav legacy_16k 13"; do
  set -- $spec
  [ $sanitized -eq 1 ] && [ "$3" != v6_8k ] && continue
  if out=$("$bin/vad-stream-check" "$tmp/$1" "$tmp/$2" "$root/tests/vad/$3.segments" "$4" 2>&1); then
    echo "ok   stream_api_$3: $(echo "$out" | head -1)"
  else echo "FAIL stream_api_$3: $out"; failures=$((failures+1)); fi
done

# errors: one line naming what is wrong
sox "$tmp/speech_16k.wav" -r 44100 "$tmp/s44.wav"
sox -n -r 16000 -c 1 -b 24 "$tmp/s24.wav" trim 0 0.1
expect_fail_quiet rate_44100 'sample rate 44100 Hz: Silero VAD takes 8000 or 16000' "$vad" --model "$tmp/v6_16k.berth" "$tmp/s44.wav"
expect_fail_quiet pcm24 '24 bits.*need PCM 16-bit or 32-bit float' "$vad" --model "$tmp/v6_16k.berth" "$tmp/s24.wav"
expect_fail_quiet program_rate 'compiled for 16000 Hz.*audio is 8000 Hz' "$vad" --model "$tmp/v6_16k.berth" "$tmp/speech_8k.wav"
expect_fail_quiet no_model 'no model: give --model' "$vad" "$tmp/speech_16k.wav"
expect_fail_quiet bad_threshold "threshold '1.5': need a number from 0 to 1" "$vad" --threshold 1.5 --model "$tmp/v6_16k.berth" "$tmp/speech_16k.wav"
expect_fail_quiet window_v5 'window-size-samples applies to legacy' "$vad" --window-size-samples 1024 --model "$dist/silero_vad_v5.onnx" "$tmp/speech_16k.wav"
"$BERTH" compile "$dist/silero_vad_v5.onnx" --input 'input:f32[1,512]' --input 'state:f32[2,1,128]' \
  --input 'sr:i64[]=16000' --no-ir -o "$tmp/noctx.berth" >/dev/null
expect_fail_quiet no_context 'takes 512 samples a frame.*needs the frame plus the context' "$vad" --model "$tmp/noctx.berth" "$tmp/speech_16k.wav"
expect_fail_quiet window_1280 'window-size-samples 1280: need 256, 512, 768, 1024 or 1536' "$vad" --window-size-samples 1280 --model "$dist/silero_vad_legacy.onnx" "$tmp/speech_16k.wav"
if [ -w /dev/full ]; then # the segments lost to a full disk: a failure, never exit 0
  if "$vad" --model "$tmp/v6_16k.berth" "$tmp/speech_16k.wav" >/dev/full 2>"$tmp/full.err"; then
    echo "FAIL stdout_full: exit 0 with the output lost"; failures=$((failures+1))
  elif grep -q 'cannot write standard output' "$tmp/full.err"; then echo "ok   stdout_full"
  else echo "FAIL stdout_full: $(cat "$tmp/full.err")"; failures=$((failures+1)); fi
fi
expect_fail_quiet not_silero 'not a Silero VAD model berth can compile' "$vad" --model "$root/tests/vad/cases.txt" "$tmp/speech_16k.wav"

# No heap use after start-up: as many heap calls for 37 s of audio as for 6 s.
if command -v cc >/dev/null && cc -shared -fPIC -o "$tmp/heap-count.so" "$root/tools/vad/heap-count.c" -ldl 2>/dev/null; then
  h1=$(LD_PRELOAD="$tmp/heap-count.so" "$vad" --model "$tmp/v6_16k.berth" "$tmp/bursts_16k.wav" 2>&1 >/dev/null | grep 'heap calls')
  h2=$(LD_PRELOAD="$tmp/heap-count.so" "$vad" --model "$tmp/v6_16k.berth" "$tmp/speech_16k.wav" 2>&1 >/dev/null | grep 'heap calls')
  if [ -z "$h1" ] || [ -z "$h2" ]; then echo "skip no_heap_after_startup (LD_PRELOAD not usable here, e.g. under ASan)"
  elif [ "$h1" = "$h2" ]; then echo "ok   no_heap_after_startup ($h1 for 201 and 1161 frames)"
  else echo "FAIL no_heap_after_startup: '$h1' for 201 frames, '$h2' for 1161"; failures=$((failures+1)); fi
else
  echo "skip no_heap_after_startup (no cc)"
fi
finish
