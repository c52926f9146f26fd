#!/usr/bin/env node
// Golden data for berth's Silero VAD test, and onnxruntime's side of bench/vad.
//
//   node tools/vad/golden.js MODEL.onnx WAV OUT_PREFIX [WIN]  writes OUT_PREFIX.txt (one
//        probability per frame, %.9g) and OUT_PREFIX.segments (speech segments, see below)
//   node tools/vad/golden.js --bench REPS MODEL.onnx WAV [WIN]   prints one line:
//        "ort frames=F median_us=M rss_kb=K": the median over REPS passes of every frame's
//        session.run time (after one warm-up pass), and the process's peak RSS
//
// onnxruntime-node is resolved from build/vad-deps (tools/vad/fetch-model.sh) or NODE_PATH.
// One thread (intra = inter = 1, sequential). Frames: 512 samples at 16 kHz, 256 at 8 kHz
// (or WIN samples: berth's one-program-both-rates vad.berth takes 256 at both rates),
// samples / 32768, no context prepended (as @ricky0123/vad-web feeds the model); the state
// f32[2,1,128] starts at zero and carries over; sr is an i64 scalar.
//
// Segments (Silero's VADIterator rule, same as examples/vad/berth-vad.c): threshold 0.5,
// neg_threshold 0.35, min_silence 100 ms, speech_pad 30 ms. Each line "START END" in seconds
// with three decimals, computed in integer samples and truncated to whole milliseconds.
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

function readWav(file) {
  const b = fs.readFileSync(file);
  if (b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE') throw new Error(file + ': not a WAV');
  let off = 12, rate = 0, ch = 0, bits = 0, fmt = 0;
  while (off + 8 <= b.length) {
    const id = b.toString('ascii', off, off + 4), n = b.readUInt32LE(off + 4);
    if (id === 'fmt ') {
      fmt = b.readUInt16LE(off + 8); ch = b.readUInt16LE(off + 10);
      rate = b.readUInt32LE(off + 12); bits = b.readUInt16LE(off + 22);
    } else if (id === 'data') {
      if (fmt !== 1 || ch !== 1 || bits !== 16 || (rate !== 16000 && rate !== 8000))
        throw new Error(file + ': need 16-bit PCM mono 8/16 kHz');
      const count = Math.floor(Math.min(n, b.length - off - 8) / 2);
      const s = new Int16Array(count);
      for (let i = 0; i < count; i++) s[i] = b.readInt16LE(off + 8 + 2 * i);
      return { rate, samples: s };
    }
    off += 8 + n + (n & 1);
  }
  throw new Error(file + ': no data chunk');
}

// Silero VADIterator: returns [[startSample, endSample], ...]
function segments(probs, rate, win, total) {
  const thr = 0.5, neg = 0.35;
  const minSil = Math.floor(rate * 100 / 1000), pad = Math.floor(rate * 30 / 1000);
  const out = [];
  let triggered = false, tempEnd = 0, cur = 0, start = 0;
  for (const p of probs) {
    cur += win;
    if (p >= thr && tempEnd) tempEnd = 0;
    if (p >= thr && !triggered) {
      triggered = true;
      start = Math.max(0, cur - pad - win);
      continue;
    }
    if (p < neg && triggered) {
      if (!tempEnd) tempEnd = cur;
      if (cur - tempEnd < minSil) continue;
      out.push([start, Math.min(total, tempEnd + pad - win)]);
      tempEnd = 0;
      triggered = false;
    }
  }
  if (triggered) out.push([start, total]);
  return out;
}
function secs(samples, rate) {
  const ms = Math.floor(samples * 1000 / rate);
  return Math.floor(ms / 1000) + '.' + String(ms % 1000).padStart(3, '0');
}

async function session(model) {
  return ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
}

async function runAll(sess, wav, sink, winArg, times) {
  const win = winArg || (wav.rate === 16000 ? 512 : 256);
  const frames = Math.floor(wav.samples.length / win);
  let state = new ort.Tensor('float32', new Float32Array(256), [2, 1, 128]);
  const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(wav.rate)]), []);
  const x = new Float32Array(win);
  for (let f = 0; f < frames; f++) {
    for (let i = 0; i < win; i++) x[i] = wav.samples[f * win + i] / 32768;
    const t0 = times ? process.hrtime.bigint() : 0n;
    const r = await sess.run({ input: new ort.Tensor('float32', x, [1, win]), state, sr });
    if (times) times.push(Number(process.hrtime.bigint() - t0) / 1000);
    state = r.stateN;
    if (sink) sink(r.output.data[0]);
  }
  return frames;
}

async function main() {
  const a = process.argv.slice(2);
  if (a[0] === '--bench') {
    const reps = parseInt(a[1], 10), sess = await session(a[2]), wav = readWav(a[3]);
    const winArg = a[4] ? parseInt(a[4], 10) : 0;
    await runAll(sess, wav, null, winArg); // warm-up
    const per = [];
    let frames = 0;
    for (let r = 0; r < reps; r++) frames = await runAll(sess, wav, null, winArg, per);
    per.sort((p, q) => p - q);
    const rssKb = process.resourceUsage().maxRSS;
    console.log(`ort frames=${frames} median_us=${per[Math.floor(per.length / 2)].toFixed(2)} rss_kb=${rssKb}`);
    return;
  }
  if (a.length !== 3 && a.length !== 4) {
    console.error('usage: golden.js MODEL WAV OUT_PREFIX [WIN] | golden.js --bench REPS MODEL WAV');
    process.exit(2);
  }
  const sess = await session(a[0]), wav = readWav(a[1]);
  const probs = [];
  const winArg = a[3] ? parseInt(a[3], 10) : 0;
  const frames = await runAll(sess, wav, (p) => probs.push(p), winArg);
  const win = winArg || (wav.rate === 16000 ? 512 : 256);
  fs.writeFileSync(a[2] + '.txt', probs.map((p) => p.toPrecision(9)).join('\n') + '\n');
  const segs = segments(probs, wav.rate, win, frames * win);
  fs.writeFileSync(a[2] + '.segments', segs.map(([s, e]) => secs(s, wav.rate) + ' ' + secs(e, wav.rate)).join('\n') + '\n');
  console.error(`${a[2]}: ${frames} frames, ${segs.length} segments`);
}
main().catch((e) => { console.error(e); process.exit(1); });
