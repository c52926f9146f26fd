// Generates tests/onnx/blocked_cnn: a small CNN with seeded random weights whose convs, pool
// and concat berth's layout pass (src/passes/layout.c) turns into one channel-blocked region
// ([N, C/16, H, W, 16]): a 1x1 conv, a 3x3 conv, a 1x1 conv with a residual Add and Relu, a
// strided MaxPool with padding, two branches (1x1 and 3x3 with dilation 2) concatenated on
// the channels, an AveragePool, a last 1x1 conv. The light model zoo's convs have constant
// weights, so a wrong channel order there would still match; here every output checks the
// layout against onnxruntime (the expected outputs come from onnxruntime-node, required).
//
//   mkdir -p /tmp/onnxgen && cd /tmp/onnxgen && npm init -y &&
//     npm install --ignore-scripts onnx-proto protobufjs onnxruntime-node
//   NODE_PATH=/tmp/onnxgen/node_modules node tools/onnxgen/gen_blocked.js tests/onnx
'use strict';
const fs = require('fs');
const path = require('path');
const { onnx } = require('onnx-proto');
const ort = require('onnxruntime-node');

const T = onnx.TensorProto.DataType;
let seed = 20261206;
function rnd() { // xorshift32, uniform in [-1, 1)
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed / 2147483648 - 1;
}
const vi = (name, dims) => ({ name, type: { tensorType: { elemType: T.FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } });
const init = (name, dims, scale) => {
  const n = dims.reduce((a, b) => a * b, 1);
  return { name, dataType: T.FLOAT, dims, floatData: Array.from({ length: n }, () => Math.fround(rnd() * scale)) };
};
function node(op, inputs, outputs, attrs = {}) {
  const attribute = Object.entries(attrs).map(([name, v]) =>
    Array.isArray(v) ? { name, type: onnx.AttributeProto.AttributeType.INTS, ints: v } : { name, type: onnx.AttributeProto.AttributeType.INT, i: v });
  return { opType: op, input: inputs, output: outputs, name: outputs[0], attribute };
}

const C = 32, H = 14;
const inits = [], nodes = [];
function conv(name, x, cin, cout, k, attrs = {}) {
  // weights scaled so activations stay near 1 through the network
  inits.push(init(name + '_w', [cout, cin, k, k], Math.sqrt(3 / (cin * k * k))), init(name + '_b', [cout], 0.1));
  nodes.push(node('Conv', [x, name + '_w', name + '_b'], [name], attrs));
  return name;
}
conv('a', 'x', C, 64, 1);
nodes.push(node('Relu', ['a'], ['ar']));
conv('b', 'ar', 64, 64, 3, { pads: [1, 1, 1, 1] });
nodes.push(node('Relu', ['b'], ['br']));
conv('c', 'br', 64, 64, 1);
nodes.push(node('Add', ['c', 'ar'], ['cs']), node('Relu', ['cs'], ['cr']));
nodes.push(node('MaxPool', ['cr'], ['p'], { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] }));
conv('d', 'p', 64, 64, 1);
conv('e', 'p', 64, 64, 3, { pads: [2, 2, 2, 2], dilations: [2, 2] });
nodes.push(node('Concat', ['d', 'e'], ['j'], { axis: 1 }));
nodes.push(node('AveragePool', ['j'], ['q'], { kernel_shape: [2, 2], pads: [0, 0, 1, 1], count_include_pad: 0 }));
conv('f', 'q', 128, 64, 1);
const g = { name: 'blocked_cnn', node: nodes, input: [vi('x', [1, C, H, H])], output: [vi('f', [1, 64, 7, 7])], initializer: inits };
const bytes = onnx.ModelProto.encode({ irVersion: 8, producerName: 'berth-onnxgen', opsetImport: [{ domain: '', version: 17 }], graph: g }).finish();

async function main() {
  const dir = path.join(process.argv[2] || 'tests/onnx', 'blocked_cnn');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'test_data_set_0'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'model.onnx'), bytes);
  const x = Array.from({ length: C * H * H }, () => Math.fround(rnd()));
  const sd = path.join(dir, 'test_data_set_0');
  fs.writeFileSync(path.join(sd, 'input_0.pb'), onnx.TensorProto.encode({ name: 'x', dataType: T.FLOAT, dims: [1, C, H, H], floatData: x }).finish());
  const sess = await ort.InferenceSession.create(Buffer.from(bytes));
  const res = await sess.run({ x: new ort.Tensor('float32', Float32Array.from(x), [1, C, H, H]) });
  const y = res.f;
  fs.writeFileSync(path.join(sd, 'output_0.pb'), onnx.TensorProto.encode({ name: 'f', dataType: T.FLOAT, dims: y.dims.map(Number), floatData: Array.from(y.data) }).finish());
  console.log(`wrote ${dir}: output ${y.dims.join('x')}, |y| max ${Math.max(...Array.from(y.data, Math.abs)).toFixed(3)}`);
}
main().catch((e) => { console.error(e); process.exit(1); });
