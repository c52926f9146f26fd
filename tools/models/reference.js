#!/usr/bin/env node
// Reference outputs for the real-model tests (tests/cli/real_models.sh): runs each model of
// tools/models/models.txt through onnxruntime-node (one thread) on deterministic inputs and
// writes, per model, OUT_DIR/NAME/in<K>.npy (the inputs, in the order of the manifest line)
// and OUT_DIR/NAME/out<K>.npy (the outputs, in the graph's output order).
//
//   node tools/models/reference.js MANIFEST MODEL_ROOT OUT_DIR [NAME...]
//
// A manifest line is "NAME FILE INPUT..." with FILE relative to MODEL_ROOT and each INPUT
// "name:dtype[d0,d1,...]=fill" (dtype f32 or i64; fill: rand (uniform in [-1, 1] from a
// fixed seed), image (uniform in [-2, 2]), audio (a 440 Hz tone plus noise at int16 scale),
// zeros, or a number for every element). onnxruntime-node is resolved from build/vad-deps
// (tools/vad/fetch-model.sh) or NODE_PATH.
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

// A small deterministic generator (xorshift32), seeded per input so that the inputs do not
// change when the manifest grows.
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

function parseInput(spec, lineNo) {
  const m = /^([^:]+):(f32|i64)\[([0-9,]*)\]=(\S+)$/.exec(spec);
  if (!m) throw new Error(`manifest line ${lineNo}: bad input '${spec}' (want name:f32[1,3]=rand)`);
  const dims = m[3] === '' ? [] : m[3].split(',').map(Number);
  return { name: m[1], dtype: m[2], dims, fill: m[4] };
}

function makeData(inp, seed) {
  const n = inp.dims.reduce((a, b) => a * b, 1);
  const r = rng(seed);
  if (inp.dtype === 'i64') {
    const v = BigInt(Number(inp.fill));
    return new BigInt64Array(n).fill(v);
  }
  const d = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    switch (inp.fill) {
      case 'rand': d[i] = 2 * r() - 1; break;
      case 'image': d[i] = 4 * r() - 2; break;
      case 'audio': d[i] = 3000 * Math.sin(2 * Math.PI * 440 * i / 16000) + 300 * (2 * r() - 1); break;
      case 'zeros': d[i] = 0; break;
      default: d[i] = Number(inp.fill);
    }
  }
  return d;
}

// .npy version 1.0: magic, header length, a Python dict padded to a multiple of 64 bytes.
function npy(data, dims) {
  const descr = data instanceof BigInt64Array ? '<i8' : '<f4';
  const shape = dims.length === 0 ? '()' : dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + h.length + 1) % 64);
  h += ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(h.length, 8);
  return Buffer.concat([head, Buffer.from(h, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

async function runModel(name, file, inputs, outDir) {
  const session = await ort.InferenceSession.create(file, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const feeds = {};
  const dir = path.join(outDir, name);
  fs.mkdirSync(dir, { recursive: true });
  inputs.forEach((inp, k) => {
    const data = makeData(inp, 1000 + 17 * k);
    feeds[inp.name] = new ort.Tensor(inp.dtype === 'i64' ? 'int64' : 'float32', data, inp.dims);
    fs.writeFileSync(path.join(dir, `in${k}.npy`), npy(data, inp.dims));
  });
  const out = await session.run(feeds);
  session.outputNames.forEach((o, k) => {
    const t = out[o];
    if (!(t.data instanceof Float32Array) && !(t.data instanceof BigInt64Array))
      throw new Error(`${name}: output '${o}' has type ${t.type}; only float32 and int64 are compared`);
    fs.writeFileSync(path.join(dir, `out${k}.npy`), npy(t.data, t.dims));
  });
}

async function main() {
  const [manifest, modelRoot, outDir, ...only] = process.argv.slice(2);
  if (!outDir) {
    console.error('usage: reference.js MANIFEST MODEL_ROOT OUT_DIR [NAME...]');
    process.exit(2);
  }
  const lines = fs.readFileSync(manifest, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line || line.startsWith('#')) continue;
    const [name, file, ...specs] = line.split(/\s+/);
    if (only.length && !only.includes(name)) continue;
    const inputs = specs.map((s) => parseInput(s, i + 1));
    await runModel(name, path.join(modelRoot, file), inputs, outDir);
  }
}

main().catch((e) => {
  console.error('reference.js: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
