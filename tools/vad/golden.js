#!/usr/bin/env node
// Reference for berth-vad: silero-vad's OnnxWrapper and get_speech_timestamps
// (src/silero_vad/utils_vad.py), ported line by line to JavaScript over onnxruntime-node.
//
//   node tools/vad/golden.js cases CASES AUDIO_DIR OUT_DIR
//        for each line "NAME MODEL WAV [berth-vad options]" of CASES (tests/vad/cases.txt):
//        OUT_DIR/NAME.segments, one "START END" line per segment in samples of the input
//        (get_speech_timestamps with return_seconds=False)
//   node tools/vad/golden.js probs MODEL WAV OUT.txt [WINDOW]   every frame's probability (%.9g)
//   node tools/vad/golden.js --bench REPS MODEL WAV    onnxruntime's side of bench/vad: one line
//        "ort frames=F median_us=M rss_kb=K" (median session.run time over REPS passes)
//
// MODEL is v5, v6 or legacy (build/vad-deps/.../silero_vad_MODEL.onnx) or a path. The model
// is fed as OnnxWrapper feeds it: v5/v6 (inputs input, state, sr) get 512-sample frames at
// 16 kHz and 256 at 8 kHz with the previous input's last 64 / 32 samples prepended (zeros at
// first); legacy/v4 (input, sr, h, c) gets frames of --window-size-samples (default 512, as
// v4's get_speech_timestamps) and no context. onnxruntime-node is resolved from
// build/vad-deps (tools/vad/fetch-model.sh) or NODE_PATH; one thread.
'use strict';
const fs = require('fs');
const path = require('path');
const root = path.resolve(__dirname, '..', '..');
let ort;
try {
  ort = require(path.join(root, 'build', 'vad-deps', 'node_modules', 'onnxruntime-node'));
} catch (e) {
  ort = require('onnxruntime-node');
}
const DIST = path.join(root, 'build', 'vad-deps', 'node_modules', '@ricky0123', 'vad-web', 'dist');

// WAV: PCM 16-bit or 32-bit float, any channels averaged in float32 (torchaudio: mean)
function readWav(file) {
  const b = fs.readFileSync(file);
  if (b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE') throw new Error(file + ': not a WAV');
  let off = 12, rate = 0, ch = 0, bits = 0, fmt = 0;
  while (off + 8 <= b.length) {
    const id = b.toString('ascii', off, off + 4), n = b.readUInt32LE(off + 4);
    if (id === 'fmt ') {
      fmt = b.readUInt16LE(off + 8); ch = b.readUInt16LE(off + 10);
      rate = b.readUInt32LE(off + 12); bits = b.readUInt16LE(off + 22);
      if (fmt === 0xfffe) fmt = b.readUInt16LE(off + 8 + 24);
    } else if (id === 'data') {
      const isF = fmt === 3 && bits === 32;
      if (!(fmt === 1 && bits === 16) && !isF) throw new Error(file + ': need PCM 16-bit or float 32-bit');
      const bps = bits / 8, count = Math.floor(Math.min(n, b.length - off - 8) / (bps * ch));
      const s = new Float32Array(count);
      for (let i = 0; i < count; i++) {
        let sum = 0;
        for (let c = 0; c < ch; c++) {
          const p = off + 8 + (i * ch + c) * bps;
          const v = isF ? b.readFloatLE(p) : Math.fround(b.readInt16LE(p) / 32768);
          sum = c ? Math.fround(sum + v) : v;
        }
        s[i] = ch > 1 ? Math.fround(sum / ch) : sum;
      }
      return { rate, samples: s };
    }
    off += 8 + n + (n & 1);
  }
  throw new Error(file + ': no data chunk');
}

function modelPath(m) { return ['v5', 'v6', 'legacy'].includes(m) ? path.join(DIST, `silero_vad_${m}.onnx`) : m; }

async function session(model) {
  return ort.InferenceSession.create(modelPath(model), {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
}

// OnnxWrapper.__call__ over the whole audio (get_speech_timestamps's first loop): probabilities
async function probabilities(sess, audio, sr, legacyWindow, times) {
  const legacy = sess.inputNames.includes('h');
  const win = legacy ? legacyWindow : (sr === 16000 ? 512 : 256);
  const ctx = legacy ? 0 : (sr === 16000 ? 64 : 32);
  const srT = new ort.Tensor('int64', BigInt64Array.from([BigInt(sr)]), []);
  let state = new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
  let h = new ort.Tensor('float32', new Float32Array(128), [2, 1, 64]);
  let c = new ort.Tensor('float32', new Float32Array(128), [2, 1, 64]);
  let context = new Float32Array(ctx);
  const probs = [];
  for (let start = 0; start < audio.length; start += win) {
    const x = new Float32Array(ctx + win); // zero-padded chunk, context first
    x.set(context, 0);
    x.set(audio.subarray(start, Math.min(start + win, audio.length)), ctx);
    const t0 = times ? process.hrtime.bigint() : 0n;
    let r;
    if (legacy) {
      r = await sess.run({ input: new ort.Tensor('float32', x, [1, win]), sr: srT, h, c });
      h = r.hn; c = r.cn;
    } else {
      r = await sess.run({ input: new ort.Tensor('float32', x, [1, ctx + win]), state, sr: srT });
      state = r.stateN;
    }
    if (times) times.push(Number(process.hrtime.bigint() - t0) / 1000);
    context = x.slice(ctx + win - ctx);
    probs.push(r.output.data[0]);
  }
  return { probs, win };
}

// get_speech_timestamps after the model loop, as in utils_vad.py (return_seconds=False)
function speechTimestamps(probs, o, sr, win, audioLength, step) {
  const threshold = o.threshold;
  const minSpeech = sr * o.minSpeechMs / 1000, pad = sr * o.padMs / 1000;
  const maxSpeech = sr * o.maxSpeechS - win - 2 * pad;
  const minSilence = sr * o.minSilenceMs / 1000, minSilAtMax = sr * o.minSilAtMaxMs / 1000;
  const neg = o.negThreshold === null ? Math.max(threshold - 0.15, 0.01) : o.negThreshold;
  let triggered = false, speeches = [], cur = {}, tempEnd = 0, prevEnd = 0, nextStart = 0, possibleEnds = [];
  const has = (d) => Object.keys(d).length > 0;
  for (let i = 0; i < probs.length; i++) {
    const p = probs[i], curSample = win * i;
    if (p >= threshold && tempEnd) {
      const silDur = curSample - tempEnd;
      if (silDur > minSilAtMax) possibleEnds.push([tempEnd, silDur]);
      tempEnd = 0;
      if (nextStart < prevEnd) nextStart = curSample;
    }
    if (p >= threshold && !triggered) { triggered = true; cur.start = curSample; continue; }
    if (triggered && curSample - cur.start > maxSpeech) {
      if (o.useMaxPoss && possibleEnds.length) {
        let best = possibleEnds[0];
        for (const e of possibleEnds) if (e[1] > best[1]) best = e; // Python's max: the first maximum
        let dur; [prevEnd, dur] = best;
        cur.end = prevEnd; speeches.push(cur); cur = {};
        nextStart = prevEnd + dur;
        if (nextStart < prevEnd + curSample) cur.start = nextStart; else triggered = false;
        prevEnd = nextStart = tempEnd = 0; possibleEnds = [];
      } else if (prevEnd) {
        cur.end = prevEnd; speeches.push(cur); cur = {};
        if (nextStart < prevEnd) triggered = false; else cur.start = nextStart;
        prevEnd = nextStart = tempEnd = 0; possibleEnds = [];
      } else {
        cur.end = curSample; speeches.push(cur); cur = {};
        prevEnd = nextStart = tempEnd = 0; triggered = false; possibleEnds = [];
        continue;
      }
    }
    if (p < neg && triggered) {
      if (!tempEnd) tempEnd = curSample;
      const silNow = curSample - tempEnd;
      if (!o.useMaxPoss && silNow > minSilAtMax) prevEnd = tempEnd;
      if (silNow < minSilence) continue;
      cur.end = tempEnd;
      if (cur.end - cur.start > minSpeech) speeches.push(cur);
      cur = {}; prevEnd = nextStart = tempEnd = 0; triggered = false; possibleEnds = [];
      continue;
    }
  }
  if (has(cur) && audioLength - cur.start > minSpeech) { cur.end = audioLength; speeches.push(cur); }
  for (let i = 0; i < speeches.length; i++) {
    const s = speeches[i];
    if (i === 0) s.start = Math.trunc(Math.max(0, s.start - pad));
    if (i !== speeches.length - 1) {
      const sil = speeches[i + 1].start - s.end;
      if (sil < 2 * pad) {
        s.end += Math.trunc(Math.floor(sil / 2));
        speeches[i + 1].start = Math.trunc(Math.max(0, speeches[i + 1].start - Math.floor(sil / 2)));
      } else {
        s.end = Math.trunc(Math.min(audioLength, s.end + pad));
        speeches[i + 1].start = Math.trunc(Math.max(0, speeches[i + 1].start - pad));
      }
    } else {
      s.end = Math.trunc(Math.min(audioLength, s.end + pad));
    }
  }
  return speeches.map((s) => [s.start * step, s.end * step]);
}

// berth-vad's option names (get_speech_timestamps's in kebab case)
function parseOptions(args) {
  const o = { threshold: 0.5, negThreshold: null, minSpeechMs: 250, maxSpeechS: Infinity, minSilenceMs: 100,
    padMs: 30, minSilAtMaxMs: 98, useMaxPoss: true, window: 512 };
  const map = { '--threshold': 'threshold', '--neg-threshold': 'negThreshold', '--min-speech-duration-ms': 'minSpeechMs',
    '--max-speech-duration-s': 'maxSpeechS', '--min-silence-duration-ms': 'minSilenceMs', '--speech-pad-ms': 'padMs',
    '--min-silence-at-max-speech': 'minSilAtMaxMs', '--window-size-samples': 'window' };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--use-max-poss-sil-at-max-speech') o.useMaxPoss = args[++i] === '1';
    else if (map[args[i]]) o[map[args[i]]] = parseFloat(args[++i]);
    else throw new Error('golden.js: unknown option ' + args[i]);
  }
  return o;
}

// get_speech_timestamps's rate rule: multiples of 16000 are decimated (audio[::step])
function toModelRate(wav) {
  let sr = wav.rate, audio = wav.samples, step = 1;
  if (sr > 16000 && sr % 16000 === 0) {
    step = sr / 16000; sr = 16000;
    audio = Float32Array.from({ length: Math.ceil(audio.length / step) }, (_, i) => wav.samples[i * step]);
  }
  if (sr !== 16000 && sr !== 8000) throw new Error('rate ' + wav.rate);
  return { sr, audio, step };
}

async function main() {
  const a = process.argv.slice(2);
  if (a[0] === '--bench') {
    const reps = parseInt(a[1], 10), sess = await session(a[2]), { sr, audio } = toModelRate(readWav(a[3]));
    await probabilities(sess, audio, sr, 512); // warm-up
    const per = [];
    let frames = 0;
    for (let r = 0; r < reps; r++) frames = (await probabilities(sess, audio, sr, 512, per)).probs.length;
    per.sort((p, q) => p - q);
    console.log(`ort frames=${frames} median_us=${per[Math.floor(per.length / 2)].toFixed(2)} rss_kb=${process.resourceUsage().maxRSS}`);
    return;
  }
  if (a[0] === 'probs' && (a.length === 4 || a.length === 5)) {
    const sess = await session(a[1]), { sr, audio } = toModelRate(readWav(a[2]));
    const { probs } = await probabilities(sess, audio, sr, a[4] ? parseInt(a[4], 10) : 512);
    fs.writeFileSync(a[3], probs.map((p) => p.toPrecision(9)).join('\n') + '\n');
    return;
  }
  if (a[0] === 'cases' && a.length === 4) {
    const sessions = {}, cache = {};
    for (const line of fs.readFileSync(a[1], 'utf8').split('\n')) {
      const w = line.trim().split(/\s+/);
      if (!w[0] || w[0].startsWith('#')) continue;
      const [name, model, wavName, ...opts] = w;
      const o = parseOptions(opts);
      const { sr, audio, step } = toModelRate(readWav(path.join(a[2], wavName)));
      sessions[model] = sessions[model] || await session(model);
      const key = `${model} ${wavName} ${o.window}`;
      cache[key] = cache[key] || await probabilities(sessions[model], audio, sr, o.window);
      const { probs, win } = cache[key];
      const segs = speechTimestamps(probs, o, sr, win, audio.length, step);
      fs.writeFileSync(path.join(a[3], name + '.segments'), segs.map(([s, e]) => `${s} ${e}`).join('\n') + (segs.length ? '\n' : ''));
      console.error(`${name}: ${segs.length} segments`);
    }
    return;
  }
  console.error('usage: golden.js cases CASES AUDIO_DIR OUT_DIR | probs MODEL WAV OUT.txt [WINDOW] | --bench REPS MODEL WAV');
  process.exit(2);
}
main().catch((e) => { console.error(e); process.exit(1); });
