#!/bin/sh
# Test audio for the VAD: a few sentences spoken by espeak-ng with silence and noise
# between, as 16-bit mono PCM WAV at 16 kHz and 8 kHz; the same at 48 kHz as 32-bit float
# stereo (right channel at half volume: berth-vad averages the channels and decimates
# 48 kHz to 16 kHz as get_speech_timestamps does); and short words and tone bursts with
# short gaps (bursts_16k.wav). Deterministic (fixed text, voice, speed and noise seed).
# Needs Debian's espeak-ng and sox.
#
#   tools/vad/make-audio.sh [OUTDIR]    (default: build/vad-audio; writes speech_16k.wav,
#        speech_8k.wav, speech_48k_f32_stereo.wav, bursts_16k.wav)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/vad-audio}
command -v espeak-ng >/dev/null && command -v sox >/dev/null ||
  { echo "make-audio.sh: needs espeak-ng and sox (apt-get install espeak-ng sox)" >&2; exit 77; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for text in \
  "The quick brown fox jumps over the lazy dog." \
  "Berth compiles machine learning programs ahead of time, with static memory." \
  "Voice activity detection finds the parts of a recording that contain speech." \
  "Please leave a message after the tone." \
  "It was a bright cold day in April, and the clocks were striking thirteen." \
  "One, two, three, four, five, six, seven, eight, nine, ten." ; do
  i=$((i + 1))
  espeak-ng -v en-us -s 150 -w "$tmp/s$i.raw.wav" "$text"
  sox -R -D "$tmp/s$i.raw.wav" -r 16000 -c 1 -b 16 "$tmp/s$i.wav"
done
# gaps: pure silence, and quiet white noise (deterministic seed)
sox -R -D -n -r 16000 -c 1 -b 16 "$tmp/sil.wav" trim 0 1.2
sox -R -D -n -r 16000 -c 1 -b 16 "$tmp/noise.wav" synth 1.5 whitenoise vol 0.02
sox -R -D "$tmp/sil.wav" "$tmp/s1.wav" "$tmp/noise.wav" "$tmp/s2.wav" "$tmp/sil.wav" \
    "$tmp/s3.wav" "$tmp/noise.wav" "$tmp/s4.wav" "$tmp/sil.wav" "$tmp/s5.wav" \
    "$tmp/noise.wav" "$tmp/s6.wav" "$tmp/sil.wav" "$tmp/cat16.wav"
sox -R -D "$tmp/cat16.wav" -r 16000 -c 1 -b 16 -e signed-integer "$out/speech_16k.wav"
sox -R -D "$tmp/cat16.wav" -r 8000 -c 1 -b 16 -e signed-integer "$out/speech_8k.wav" rate -h
sox -R -D "$tmp/cat16.wav" -r 48000 -c 2 -b 32 -e floating-point "$out/speech_48k_f32_stereo.wav" rate -h remix 1 1v0.5
# very short bursts: one-syllable words and 60 ms tones, 120 to 400 ms apart
j=0
for w in Hey No Go Yes; do
  j=$((j + 1))
  espeak-ng -v en-us -s 200 -w "$tmp/w$j.raw.wav" "$w"
  sox -R -D "$tmp/w$j.raw.wav" -r 16000 -c 1 -b 16 "$tmp/w$j.wav"
done
sox -R -D -n -r 16000 -c 1 -b 16 "$tmp/tone.wav" synth 0.06 sine 440 vol 0.5
sox -R -D -n -r 16000 -c 1 -b 16 "$tmp/g1.wav" trim 0 0.12
sox -R -D -n -r 16000 -c 1 -b 16 "$tmp/g2.wav" trim 0 0.4
sox -R -D "$tmp/sil.wav" "$tmp/w1.wav" "$tmp/g1.wav" "$tmp/w2.wav" "$tmp/g2.wav" "$tmp/tone.wav" "$tmp/g1.wav" \
    "$tmp/w3.wav" "$tmp/g1.wav" "$tmp/tone.wav" "$tmp/g2.wav" "$tmp/w4.wav" "$tmp/g1.wav" "$tmp/w1.wav" "$tmp/sil.wav" \
    -r 16000 -c 1 -b 16 -e signed-integer "$out/bursts_16k.wav"
for f in "$out/speech_16k.wav" "$out/speech_8k.wav" "$out/speech_48k_f32_stereo.wav" "$out/bursts_16k.wav"; do
  printf '%s: %s s\n' "$f" "$(soxi -D "$f")" >&2
done
