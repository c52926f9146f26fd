// Generates berth's own ONNX tests for what the official node tests miss (If branches of
// different shapes, Loop without M or without cond, zero-trip and early-exit loops, Scan
// with other axes and directions, If nested three deep reading outer values, float16 and
// bfloat16 Casts and float16 arithmetic inside a graph), in the
// official folder format: tests/onnx/NAME/model.onnx and test_data_set_0/{input,output}_N.pb.
// Expected outputs come from onnxruntime-node where it runs the model, else from the
// reference computation written here (noted per test in tests/onnx/README.md).
//
//   mkdir -p /tmp/onnxgen && cd /tmp/onnxgen && npm init -y &&
//     npm install --ignore-scripts onnx-proto protobufjs onnxruntime-node
//   NODE_PATH=/tmp/onnxgen/node_modules node tools/onnxgen/gen.js tests/onnx
'use strict';
const fs = require('fs');
const path = require('path');
const { onnx } = require('onnx-proto');
let ort = null;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  console.error('onnxruntime-node not found: expected outputs from the reference computation only');
}

const T = onnx.TensorProto.DataType;
const OPSET = 17;

function vi(name, elem, dims) {
  const t = { tensorType: { elemType: elem } };
  if (dims !== undefined) t.tensorType.shape = { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) };
  return { name, type: t };
}
function tensor(name, elem, dims, values) {
  const t = { name, dataType: elem, dims };
  if (elem === T.FLOAT) t.floatData = values;
  else if (elem === T.FLOAT16) t.int32Data = values.map(f16bits);
  else if (elem === T.INT64) t.int64Data = values;
  else t.int32Data = values.map((v) => (v === true ? 1 : v === false ? 0 : v));
  return t;
}
function node(op, inputs, outputs, attrs = {}) {
  const attribute = [];
  for (const [name, v] of Object.entries(attrs)) {
    if (v && v.node) attribute.push({ name, type: onnx.AttributeProto.AttributeType.GRAPH, g: v });
    else if (Array.isArray(v)) attribute.push({ name, type: onnx.AttributeProto.AttributeType.INTS, ints: v });
    else if (v && v.dataType) attribute.push({ name, type: onnx.AttributeProto.AttributeType.TENSOR, t: v });
    else attribute.push({ name, type: onnx.AttributeProto.AttributeType.INT, i: v });
  }
  return { opType: op, input: inputs, output: outputs, name: outputs[0], attribute };
}
function graph(name, nodes, inputs, outputs, initializer = []) {
  return { name, node: nodes, input: inputs, output: outputs, initializer };
}
function constant(name, elem, dims, values) {
  return node('Constant', [], [name], { value: tensor(name, elem, dims, values) });
}
function model(g) {
  return onnx.ModelProto.encode({ irVersion: 8, producerName: 'berth-onnxgen', opsetImport: [{ domain: '', version: OPSET }], graph: g }).finish();
}

// Test inputs: [name, elem, dims, values]
const F = T.FLOAT, B = T.BOOL, I = T.INT64, H = T.FLOAT16, BF = T.BFLOAT16;

// float16 and bfloat16 rounding (to nearest, ties to even) of an f32 value, on its bits.
const f32buf = new Float32Array(1), u32buf = new Uint32Array(f32buf.buffer);
function f16bits(v) {
  f32buf[0] = v;
  const x = u32buf[0], sign = (x >>> 16) & 0x8000;
  let a = x & 0x7fffffff;
  if (a >= 0x7f800000) return sign | (a > 0x7f800000 ? 0x7e00 : 0x7c00);
  if (a >= 0x477ff000) return sign | 0x7c00; // 65520 and above: inf
  if (a >= 0x38800000) { // normal: keep 10 mantissa bits
    a += 0xfff + ((a >>> 13) & 1);
    return sign | ((a >>> 13) - (112 << 10));
  }
  const be = a >>> 23; // subnormal: multiples of 2^-24
  if (be <= 101) return sign;
  const s = (a & 0x7fffff) | 0x800000, d = 126 - be, rem = s & ((1 << d) - 1), half = 1 << (d - 1);
  let r = s >>> d;
  if (rem > half || (rem === half && (r & 1))) r++;
  return sign | r;
}
function f16value(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >>> 10) & 0x1f, m = h & 0x3ff;
  if (e === 31) return m ? NaN : s * Infinity;
  return e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
}
const f16 = (v) => f16value(f16bits(v));
function bf16(v) {
  f32buf[0] = v;
  const x = u32buf[0];
  if ((x & 0x7fffffff) > 0x7f800000) return NaN;
  u32buf[0] = ((x + 0x7fff + ((x >>> 16) & 1)) & 0xffff0000) >>> 0;
  return f32buf[0];
}
const tests = [];

// If whose branches return different shapes (then [2], else [3]); the condition is an input.
tests.push({
  name: 'if_branch_shapes',
  graph: graph('main',
    [node('If', ['c'], ['y'], {
      then_branch: graph('then', [node('Add', ['x', 'x'], ['t'])], [], [vi('t', F, [2])]),
      else_branch: graph('else', [constant('e', F, [3], [7, 8, 9])], [], [vi('e', F, [3])]),
    })],
    [vi('c', B, []), vi('x', F, [2])], [vi('y', F, ['n'])]),
  sets: [[['c', B, [], [true]], ['x', F, [2], [1.5, -2]]], [['c', B, [], [false]], ['x', F, [2], [1.5, -2]]]],
  ref: (c, x) => (c[0] ? [x.map((v) => v + v)] : [[7, 8, 9]]),
});

// Loop body: (i, cond_in, v) -> (cond_out = 2v < limit, 2v + i)
function doublingBody(limit, withScan) {
  const nodes = [
    node('Add', ['v', 'v'], ['v2']),
    node('Cast', ['i'], ['fi'], { to: F }),
    node('Add', ['v2', 'fi'], ['v3']),
  ];
  if (limit === null) {
    // onnxruntime evaluates the body's condition even when the Loop has no cond input
    // (ONNX says it is ignored): pass cond_in through so that both readings agree
    nodes.push(node('Identity', ['cin'], ['cout']));
  } else {
    nodes.push(constant('lim', F, [1], [limit]), node('Less', ['v3', 'lim'], ['c1']), constant('ax', I, [1], [0]),
      node('Squeeze', ['c1', 'ax'], ['cout']));
  }
  const outs = [vi('cout', B, []), vi('v3', F, [1])];
  if (withScan) {
    nodes.push(node('Identity', ['v3'], ['sv']));
    outs.push(vi('sv', F, [1]));
  }
  return graph('body', nodes, [vi('i', I, []), vi('cin', B, []), vi('v', F, [1])], outs);
}
function loopRef(M, c0, v0, limit, scan) {
  let v = v0, i = 0, c = c0;
  const ys = [];
  while ((M === null || i < M) && c) {
    v = 2 * v + i;
    ys.push(v);
    if (limit !== null) c = v < limit;
    i++;
  }
  return scan ? [[v], ys] : [[v]];
}

// Loop without M (while): runs until 2v + i >= 100.
tests.push({
  name: 'loop_no_m',
  graph: graph('main', [node('Loop', ['', 'c', 'v0'], ['vf'], { body: doublingBody(100, false) })],
    [vi('c', B, []), vi('v0', F, [1])], [vi('vf', F, [1])]),
  sets: [[['c', B, [], [true]], ['v0', F, [1], [1]]], [['c', B, [], [false]], ['v0', F, [1], [3]]]],
  ref: (c, v0) => loopRef(null, c[0], v0[0], 100, false),
});

// Loop without cond (for): M from an input; the body's condition output is ignored.
tests.push({
  name: 'loop_no_cond',
  graph: graph('main', [node('Loop', ['M', '', 'v0'], ['vf'], { body: doublingBody(null, false) })],
    [vi('M', I, []), vi('v0', F, [1])], [vi('vf', F, [1])]),
  sets: [[['M', I, [], [4]], ['v0', F, [1], [1]]]],
  ref: (M, v0) => loopRef(M[0], true, v0[0], null, false),
});

// Loop without cond, with a scan output.
tests.push({
  name: 'loop_no_cond_scan',
  graph: graph('main', [node('Loop', ['M', '', 'v0'], ['vf', 'ys'], { body: doublingBody(null, true) })],
    [vi('M', I, []), vi('v0', F, [1])], [vi('vf', F, [1]), vi('ys', F, ['n', 1])]),
  sets: [[['M', I, [], [3]], ['v0', F, [1], [0.5]]]],
  ref: (M, v0) => loopRef(M[0], true, v0[0], null, true),
});

// Zero trips: M = 0.
tests.push({
  name: 'loop_zero_trip',
  graph: graph('main', [node('Loop', ['M', 'c', 'v0'], ['vf'], { body: doublingBody(100, false) })],
    [vi('M', I, []), vi('c', B, []), vi('v0', F, [1])], [vi('vf', F, [1])]),
  sets: [[['M', I, [], [0]], ['c', B, [], [true]], ['v0', F, [1], [5]]]],
  ref: (M, c, v0) => loopRef(M[0], c[0], v0[0], 100, false),
});

// Early exit: M = 50 but the condition turns false after a few iterations.
tests.push({
  name: 'loop_early_exit',
  graph: graph('main', [node('Loop', ['M', 'c', 'v0'], ['vf'], { body: doublingBody(40, false) })],
    [vi('M', I, []), vi('c', B, []), vi('v0', F, [1])], [vi('vf', F, [1])]),
  sets: [[['M', I, [], [50]], ['c', B, [], [true]], ['v0', F, [1], [1]]]],
  ref: (M, c, v0) => loopRef(M[0], c[0], v0[0], 40, false),
});

// Scan: two scan inputs with axes 1 and 0, the first reversed; outputs on axes 1 and 0,
// the second reversed.
tests.push({
  name: 'scan_axes_directions',
  graph: graph('main', [node('Scan', ['s0', 'a', 'b'], ['sf', 'ya', 'yb'], {
    body: graph('body', [node('Add', ['s', 'xa'], ['t']), node('Mul', ['t', 'xb'], ['s2']), node('Identity', ['t'], ['oa']),
      node('Identity', ['s2'], ['ob'])],
    [vi('s', F, [2]), vi('xa', F, [2]), vi('xb', F, [2])], [vi('s2', F, [2]), vi('oa', F, [2]), vi('ob', F, [2])]),
    num_scan_inputs: 2, scan_input_axes: [1, 0], scan_input_directions: [1, 0], scan_output_axes: [1, 0],
    scan_output_directions: [0, 1],
  })], [vi('s0', F, [2]), vi('a', F, [2, 3]), vi('b', F, [3, 2])], [vi('sf', F, [2]), vi('ya', F, [2, 3]), vi('yb', F, [3, 2])]),
  sets: [[['s0', F, [2], [1, 2]], ['a', F, [2, 3], [1, 2, 3, 4, 5, 6]], ['b', F, [3, 2], [0.5, 1, 2, 0.5, 1, 2]]]],
  ref: (s0, a, b) => {
    let s = s0.slice();
    const ya = [[], []], yb = [];
    for (let k = 0; k < 3; k++) {
      const col = [a[2 - k], a[3 + 2 - k]];
      const t = [s[0] + col[0], s[1] + col[1]];
      s = [t[0] * b[2 * k], t[1] * b[2 * k + 1]];
      ya[0].push(t[0]);
      ya[1].push(t[1]);
      yb.push(s);
    }
    yb.reverse();
    return [s, ya[0].concat(ya[1]), yb.flat()];
  },
});

// If nested three deep; each level reads values of every enclosing graph.
tests.push({
  name: 'if_nested3_outer_values',
  graph: graph('main', [
    node('Add', ['x', 'x'], ['x2']),
    node('If', ['c1'], ['y'], {
      then_branch: graph('t1', [
        node('Mul', ['x2', 'x'], ['a1']),
        node('If', ['c2'], ['r1'], {
          then_branch: graph('t2', [
            node('Sub', ['a1', 'x2'], ['a2']),
            node('If', ['c3'], ['r2'], {
              then_branch: graph('t3', [node('Add', ['a2', 'a1'], ['p']), node('Add', ['p', 'x'], ['r3'])], [], [vi('r3', F, [2])]),
              else_branch: graph('e3', [node('Mul', ['a2', 'x2'], ['q3'])], [], [vi('q3', F, [2])]),
            })], [], [vi('r2', F, [2])]),
          else_branch: graph('e2', [node('Neg', ['a1'], ['q2'])], [], [vi('q2', F, [2])]),
        })], [], [vi('r1', F, [2])]),
      else_branch: graph('e1', [node('Abs', ['x'], ['q1'])], [], [vi('q1', F, [2])]),
    })], [vi('c1', B, []), vi('c2', B, []), vi('c3', B, []), vi('x', F, [2])], [vi('y', F, [2])]),
  sets: [[true, true, true], [true, true, false], [true, false, true], [false, true, true]].map((c) => [
    ['c1', B, [], [c[0]]], ['c2', B, [], [c[1]]], ['c3', B, [], [c[2]]], ['x', F, [2], [1.5, -2]]]),
  ref: (c1, c2, c3, x) => {
    const x2 = x.map((v) => 2 * v), a1 = x2.map((v, k) => v * x[k]), a2 = a1.map((v, k) => v - x2[k]);
    if (!c1[0]) return [x.map(Math.abs)];
    if (!c2[0]) return [a1.map((v) => -v)];
    return c3[0] ? [a2.map((v, k) => v + a1[k] + x[k])] : [a2.map((v, k) => v * x2[k])];
  },
});

// Cast f32 -> float16 -> f32 and f32 -> bfloat16 -> f32 inside the graph: the values come
// back rounded (ties to even, 65520 overflows float16 to inf, float16 subnormals); the
// float16 itself is an output too, and so are the rounding errors (exact in f32), which a
// float tolerance cannot overlook.
const castValues = [1 + 2 ** -11, 1 + 3 * 2 ** -11, 65519, 65520, 3 * 2 ** -25, 0.1, -3 * 2 ** -26, 1 + 2 ** -8 + 2 ** -9];
tests.push({
  name: 'cast_float16_bfloat16',
  graph: graph('main', [
    node('Cast', ['x'], ['h'], { to: H }), node('Cast', ['h'], ['y16'], { to: F }),
    node('Cast', ['x'], ['hb'], { to: BF }), node('Cast', ['hb'], ['yb'], { to: F }),
    node('Sub', ['y16', 'x'], ['e16']), node('Sub', ['yb', 'x'], ['eb']),
  ], [vi('x', F, [8])], [vi('y16', F, [8]), vi('h', H, [8]), vi('yb', F, [8]), vi('e16', F, [8]), vi('eb', F, [8])]),
  sets: [[['x', F, [8], castValues]]],
  ref: (x) => {
    const fx = x.map(Math.fround);
    return [fx.map(f16), fx.map(f16), fx.map(bf16), fx.map((v) => Math.fround(f16(v) - v)), fx.map((v) => Math.fround(bf16(v) - v))];
  },
});

// float16 arithmetic, one op per result: each is computed wider and rounded to float16
// (1 + 2^-11 ties to 1; (1 + 2^-10)^2 drops its 2^-20; 1/3; e).
tests.push({
  name: 'float16_ops',
  graph: graph('main', [
    node('Add', ['a', 'b'], ['s']), node('Mul', ['a', 'a'], ['p']), node('Div', ['a', 'b'], ['q']),
    node('Exp', ['a'], ['e']), node('Sub', ['a', 'b'], ['d']),
  ], [vi('a', H, [4]), vi('b', H, [4])], [vi('s', H, [4]), vi('p', H, [4]), vi('q', H, [4]), vi('e', H, [4]), vi('d', H, [4])]),
  sets: [[['a', H, [4], [1, 1 + 2 ** -10, 1, 2048]], ['b', H, [4], [2 ** -11, 3, 3, 1]]]],
  ref: (a, b) => [a.map((v, k) => f16(v + b[k])), a.map((v) => f16(v * v)), a.map((v, k) => f16(v / b[k])),
    a.map((v) => f16(Math.exp(v))), a.map((v, k) => f16(v - b[k]))],
});

function ortTensor(elem, dims, values) {
  if (elem === T.FLOAT) return new ort.Tensor('float32', Float32Array.from(values), dims);
  if (elem === T.FLOAT16) return new ort.Tensor('float16', Uint16Array.from(values.map(f16bits)), dims);
  if (elem === T.INT64) return new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
  return new ort.Tensor('bool', Uint8Array.from(values.map((v) => (v ? 1 : 0))), dims);
}

async function main() {
  const out = process.argv[2] || 'tests/onnx';
  const notes = [];
  for (const t of tests) {
    const dir = path.join(out, t.name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const bytes = model(t.graph);
    fs.writeFileSync(path.join(dir, 'model.onnx'), bytes);
    let source = 'reference';
    for (let si = 0; si < t.sets.length; si++) {
      const set = t.sets[si];
      const sd = path.join(dir, `test_data_set_${si}`);
      fs.mkdirSync(sd, { recursive: true });
      set.forEach(([name, elem, dims, values], k) => {
        fs.writeFileSync(path.join(sd, `input_${k}.pb`), onnx.TensorProto.encode(tensor(name, elem, dims, values)).finish());
      });
      let outs = t.ref(...set.map((s) => s[3]));
      let shapes = null;
      if (ort) {
        try {
          const sess = await ort.InferenceSession.create(Buffer.from(bytes));
          const feeds = {};
          for (const [name, elem, dims, values] of set) feeds[name] = ortTensor(elem, dims, values);
          const res = await sess.run(feeds);
          const ortOuts = t.graph.output.map((o) =>
            Array.from(res[o.name].data, res[o.name].type === 'float16' ? f16value : Number));
          shapes = t.graph.output.map((o) => res[o.name].dims.map(Number));
          for (let k = 0; k < outs.length; k++) {
            const a = outs[k], b = ortOuts[k];
            if (a.length !== b.length || a.some((v, j) => Math.abs(v - b[j]) > 1e-5 * (1 + Math.abs(v))))
              throw new Error(`${t.name}: reference ${JSON.stringify(a)} != onnxruntime ${JSON.stringify(b)}`);
          }
          outs = ortOuts;
          source = 'onnxruntime-node';
        } catch (e) {
          if (String(e.message).includes('!= onnxruntime')) throw e;
          source = `reference (onnxruntime-node: ${String(e.message).split('\n')[0]})`;
        }
      }
      t.graph.output.forEach((o, k) => {
        const values = outs[k];
        let dims = shapes ? shapes[k] : null;
        if (!dims) {
          const decl = o.type.tensorType.shape.dim.map((d) => (d.dimValue !== undefined ? d.dimValue : -1));
          const known = decl.filter((d) => d >= 0).reduce((x, y) => x * y, 1);
          dims = decl.map((d) => (d >= 0 ? d : values.length / known));
        }
        fs.writeFileSync(path.join(sd, `output_${k}.pb`), onnx.TensorProto.encode(tensor(o.name, o.type.tensorType.elemType, dims, values)).finish());
      });
    }
    notes.push(`| ${t.name} | ${t.sets.length} | ${source} |`);
    console.log(`${t.name}: ${source}`);
  }
  fs.writeFileSync(path.join(out, 'README.md'),
    '# berth\'s own ONNX tests\n\nGenerated by `tools/onnxgen/gen.js` (see its header); run with ' +
    '`berth onnx-test tests/onnx/*`.\n\n| test | data sets | expected outputs from |\n| --- | --- | --- |\n' +
    notes.join('\n') + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
