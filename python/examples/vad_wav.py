"""Silero VAD v5 with berth from Python: compile the ONNX model, then run it frame by frame
over a 16-bit mono WAV file at 16 or 8 kHz and print the speech segments.

    BERTH_LIBRARY=build/libberth.so PYTHONPATH=python python3 python/examples/vad_wav.py \
        build/vad-deps/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx speech.wav

The model is fed as silero-vad's own OnnxWrapper feeds it: each frame (512 samples at
16 kHz, 256 at 8 kHz) with the previous frame's last 64 (32) samples in front, and the
state carried from call to call. Segments use VADIterator's hysteresis (start at
probability >= 0.5, end after 100 ms below 0.35); berth-vad implements every option of
get_speech_timestamps.
"""
import sys
import wave

import numpy as np

import berth


def read_wav(path):
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2:
            sys.exit("%s: %d-bit samples; this example reads 16-bit PCM" % (path, 8 * w.getsampwidth()))
        rate, channels = w.getframerate(), w.getnchannels()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0
    if channels > 1:
        pcm = pcm.reshape(-1, channels).mean(axis=1)
    if rate not in (8000, 16000):
        sys.exit("%s: %d Hz; Silero VAD takes 8000 or 16000 Hz" % (path, rate))
    return pcm, rate


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: vad_wav.py silero_vad_v5.onnx FILE.wav")
    audio, rate = read_wav(sys.argv[2])
    frame, context = (512, 64) if rate == 16000 else (256, 32)
    prog = berth.compile(sys.argv[1], inputs={"input": ("f32", [1, context + frame]),
                                              "state": ("f32", [2, 1, 128]),
                                              "sr": ("i64", [], rate)})
    plan = prog.plan[0]
    print("compiled: arena %d bytes (lower bound %d), %d copies, %d hand-overs in place"
          % (plan["arena_bytes"], sum(p["lower_bound_bytes"] for p in plan["pools"]),
             plan["copies"], plan["coalesced"]), file=sys.stderr)
    vad = prog.method()
    out_prob, out_state = vad.outputs[0][0], vad.outputs[1][0]
    state = np.zeros((2, 1, 128), np.float32)
    ctx = np.zeros(context, np.float32)
    speaking, start, silence_since = False, 0, None
    for i in range(0, len(audio) - frame + 1, frame):
        x = audio[i:i + frame]
        out = vad(input=np.concatenate([ctx, x]).reshape(1, -1), state=state)
        prob, state, ctx = float(out[out_prob][0, 0]), out[out_state], x[-context:]
        if prob >= 0.5:
            silence_since = None
            if not speaking:
                speaking, start = True, i
        elif prob < 0.35 and speaking:
            silence_since = i if silence_since is None else silence_since
            if i + frame - silence_since >= rate // 10:
                print("%.3f %.3f" % (start / rate, (silence_since + frame) / rate))
                speaking, silence_since = False, None
    if speaking:
        print("%.3f %.3f" % (start / rate, len(audio) / rate))


if __name__ == "__main__":
    main()
