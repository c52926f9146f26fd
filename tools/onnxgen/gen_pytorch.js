// Generates berth's ONNX tests in the shapes PyTorch's dynamo exporter
// (torch.onnx.export(..., dynamo=True)) writes, and models that exercise model-local
// functions (ONNX IR "Functions"): tests/onnx/NAME/model.onnx and test_data_set_N/.
//
// The exporter's translation rules (torch/onnx/_internal/exporter/_torchlib/ops/hop.py),
// reproduced here from reading them:
//  - torch.cond(pred, true_fn, false_fn, operands): each branch fn becomes a model-local
//    function (domain pkg.torch.__subgraph__, opset 1; names true_graph_N / false_graph_N,
//    nested ones prefixed by their parent's name) taking every operand, including the
//    tensors the branch closes over (lifted by torch.export); the If's then/else graphs
//    take no inputs and hold one node calling the function, its outputs renamed
//    `{function output}_{function name}`;
//  - torch.while_loop(cond_fn, body_fn, carried, additional): the condition function is
//    called once in the parent on the initial values; Loop(M = "", cond, carried...) whose
//    body graph `{body}_loop_body` has inputs (iter_num_{body}, cond_in_{body},
//    `{carried}_{body}__subgraph_in`...) and two nodes: the body function on (carried in,
//    additional) and the condition function on (body outputs, additional); it returns
//    (condition, body outputs...);
//  - mutated buffers are functionalized: the buffer is a graph input (with its initial
//    value as initializer) and its new value a graph output, listed before the user outputs.
// Expected outputs come from onnxruntime-node (checked against the reference computation
// written here); a test onnxruntime cannot run keeps the reference values (README says).
//
//   NODE_PATH=build/vad-deps/node_modules node tools/onnxgen/gen_pytorch.js tests/onnx
'use strict';
const fs = require('fs');
const path = require('path');
const protobuf = require('protobufjs');
const ort = require('onnxruntime-node');

const root = protobuf.loadSync(path.join(__dirname, '..', '..', 'src', 'onnx', 'onnx.proto'));
const ModelProto = root.lookupType('onnx.ModelProto');
const TensorProto = root.lookupType('onnx.TensorProto');
const AT = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, GRAPH: 5, FLOATS: 6, INTS: 7 };
const F = 1, I = 7, B = 9, D = 11;
const SUB = 'pkg.torch.__subgraph__';
const OPSET = 18;

function vi(name, elem, dims) {
  const t = { tensorType: { elemType: elem } };
  if (dims !== undefined) t.tensorType.shape = { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) };
  return { name, type: t };
}
function tensor(name, elem, dims, values) {
  const t = { name, dataType: elem, dims };
  if (elem === F) t.floatData = values;
  else if (elem === D) t.doubleData = values;
  else if (elem === I) t.int64Data = values;
  else t.int32Data = values.map((v) => (v === true ? 1 : v === false ? 0 : v));
  return t;
}
// attrs: {name: value}; {ref: 'x'} makes an attribute reference (ref_attr_name) of type
// given by {ref, type}; floats are written as {f: v}.
function node(op, inputs, outputs, attrs = {}, domain = '') {
  const attribute = [];
  for (const [name, v] of Object.entries(attrs)) {
    if (v && v.ref) attribute.push({ name, refAttrName: v.ref, type: v.type });
    else if (v && v.node) attribute.push({ name, type: AT.GRAPH, g: v });
    else if (Array.isArray(v)) attribute.push({ name, type: AT.INTS, ints: v });
    else if (v && v.dataType) attribute.push({ name, type: AT.TENSOR, t: v });
    else if (v && v.f !== undefined) attribute.push({ name, type: AT.FLOAT, f: v.f });
    else attribute.push({ name, type: AT.INT, i: v });
  }
  const n = { opType: op, input: inputs, output: outputs, name: `node_${op}_${outputs.filter((o) => o)[0] || 'x'}`, attribute };
  if (domain) n.domain = domain;
  return n;
}
function graph(name, nodes, inputs, outputs, initializer = []) {
  return { name, node: nodes, input: inputs, output: outputs, initializer };
}
function constant(name, elem, dims, values) {
  return node('Constant', [], [name], { value: tensor(name, elem, dims, values) });
}
function fn(name, inputs, outputs, nodes, { domain = SUB, attribute = [], attributeProto = [], opset = OPSET, overload } = {}) {
  const imports = [{ domain: '', version: opset }];
  const domains = new Set([domain]);
  const walk = (ns) => ns.forEach((n) => {
    if (n.domain) domains.add(n.domain);
    n.attribute.forEach((a) => a.g && walk(a.g.node));
  });
  walk(nodes);
  for (const d of domains) imports.push({ domain: d, version: 1 });
  const f = { name, domain, input: inputs, output: outputs, node: nodes, opsetImport: imports, attribute, attributeProto };
  if (overload) f.overload = overload;
  return f;
}
function model(g, functions, domains = [SUB]) {
  const imports = [{ domain: '', version: OPSET }, ...domains.map((d) => ({ domain: d, version: 1 }))];
  return ModelProto.encode({ irVersion: 10, producerName: 'berth-onnxgen (pytorch exporter shapes)', opsetImport: imports, graph: g, functions }).finish();
}

// The If the exporter writes for torch.cond: branches of one call each.
function exportedIf(pred, tfn, ffn, operands, outs, domain = SUB) {
  const nt = tfn.output.length;
  const tOuts = tfn.output.map((o) => `${o}_${tfn.name}`), fOuts = ffn.output.map((o) => `${o}_${ffn.name}`);
  return node('If', [pred], outs.slice(0, nt), {
    then_branch: graph(tfn.name, [node(tfn.name, operands, tOuts, {}, domain)], [], tOuts.map((o) => ({ name: o }))),
    else_branch: graph(ffn.name, [node(ffn.name, operands, fOuts, {}, domain)], [], fOuts.map((o) => ({ name: o }))),
  });
}
// The initial condition call and the Loop the exporter writes for torch.while_loop.
function exportedWhile(cfn, bfn, carried, additional, outs, types) {
  const b = bfn.name, c = cfn.name;
  const cin = carried.map((v) => `${v}_${b}__subgraph_in`);
  const bOuts = bfn.output.map((o) => `${o}_${b}`), cOut = `${cfn.output[0]}_${c}`;
  const init = `${c}_init`;
  return [
    node(c, [...carried, ...additional], [init], {}, SUB),
    node('Loop', ['', init, ...carried], outs, {
      body: graph(`${b}_loop_body`, [node(b, [...cin, ...additional], bOuts, {}, SUB), node(c, [...bOuts, ...additional], [cOut], {}, SUB)],
        [vi(`iter_num_${b}`, I, []), vi(`cond_in_${b}`, B, []), ...cin.map((n, k) => vi(n, types[k][0], types[k][1]))],
        [{ name: cOut }, ...bOuts.map((o) => ({ name: o }))]),
    }),
  ];
}

const tests = [];
const sum = (a) => a.reduce((x, y) => x + y, 0);

// torch.cond(x.sum() > 0, lambda x, y: x * 2 + 1, lambda x, y: x - y, (x, y))
{
  const t = fn('true_graph_0', ['x', 'y'], ['add'], [constant('c2', F, [], [2]), node('Mul', ['x', 'c2'], ['mul']),
    constant('c1', F, [], [1]), node('Add', ['mul', 'c1'], ['add'])]);
  const f = fn('false_graph_0', ['x', 'y'], ['sub'], [node('Sub', ['x', 'y'], ['sub'])]);
  tests.push({
    name: 'torch_cond',
    bytes: model(graph('main_graph', [node('ReduceSum', ['x'], ['sum_1'], { keepdims: 0 }), constant('scalar_tensor_default', F, [], [0]),
      node('Greater', ['sum_1', 'scalar_tensor_default'], ['gt']), exportedIf('gt', t, f, ['x', 'y'], ['getitem'])],
    [vi('x', F, [2, 3]), vi('y', F, [2, 3])], [vi('getitem', F, [2, 3])]), [t, f]),
    outputs: [['getitem', F]],
    sets: [[['x', F, [2, 3], [1, 2, 3, -1, 0.5, 0.25]], ['y', F, [2, 3], [4, 4, 4, 4, 4, 4]]],
      [['x', F, [2, 3], [-1, -2, -3, 1, 0.5, 0.25]], ['y', F, [2, 3], [4, 3, 2, 1, 0, -1]]]],
    ref: (x, y) => [sum(x) > 0 ? x.map((v) => v * 2 + 1) : x.map((v, k) => v - y[k])],
  });
}

// torch.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x * 2 + w), (i0, x0)), w closed over
{
  const c = fn('while_loop_cond_graph_0', ['i', 'x', 'w'], ['lt'], [constant('c5', I, [], [5]), node('Less', ['i', 'c5'], ['lt'])]);
  const b = fn('while_loop_body_graph_0', ['i', 'x', 'w'], ['add', 'add_1'], [constant('one', I, [], [1]), node('Add', ['i', 'one'], ['add']),
    constant('two', F, [], [2]), node('Mul', ['x', 'two'], ['mul']), node('Add', ['mul', 'w'], ['add_1'])]);
  tests.push({
    name: 'torch_while_loop',
    bytes: model(graph('main_graph', exportedWhile(c, b, ['i0', 'x0'], ['w'], ['getitem', 'getitem_1'], [[I, []], [F, [3]]]),
      [vi('i0', I, []), vi('x0', F, [3]), vi('w', F, [3])], [vi('getitem', I, []), vi('getitem_1', F, [3])]), [c, b]),
    outputs: [['getitem', I], ['getitem_1', F]],
    sets: [[['i0', I, [], [0]], ['x0', F, [3], [1, -1, 0.5]], ['w', F, [3], [0.25, 1, -2]]],
      [['i0', I, [], [7]], ['x0', F, [3], [1, -1, 0.5]], ['w', F, [3], [0.25, 1, -2]]]],
    ref: (i0, x0, w) => {
      let i = i0[0], x = x0.slice();
      while (i < 5) { i += 1; x = x.map((v, k) => v * 2 + w[k]); }
      return [[i], x];
    },
  });
}

// torch.cond(x.sum() > 0, lambda x, y: torch.cond(y.sum() > 0, x + y, x - y), lambda x, y: x * y)
{
  const tt = fn('true_graph_0__true_graph_0', ['x', 'y'], ['add'], [node('Add', ['x', 'y'], ['add'])]);
  const tf = fn('true_graph_0__false_graph_0', ['x', 'y'], ['sub'], [node('Sub', ['x', 'y'], ['sub'])]);
  const t = fn('true_graph_0', ['x', 'y'], ['getitem'], [node('ReduceSum', ['y'], ['sum_1'], { keepdims: 0 }), constant('zero', F, [], [0]),
    node('Greater', ['sum_1', 'zero'], ['gt']), exportedIf('gt', tt, tf, ['x', 'y'], ['getitem'])]);
  const f = fn('false_graph_0', ['x', 'y'], ['mul'], [node('Mul', ['x', 'y'], ['mul'])]);
  tests.push({
    name: 'torch_cond_nested',
    bytes: model(graph('main_graph', [node('ReduceSum', ['x'], ['sum_1'], { keepdims: 0 }), constant('zero', F, [], [0]),
      node('Greater', ['sum_1', 'zero'], ['gt']), exportedIf('gt', t, f, ['x', 'y'], ['getitem'])],
    [vi('x', F, [4]), vi('y', F, [4])], [vi('getitem', F, [4])]), [t, f, tt, tf]),
    outputs: [['getitem', F]],
    sets: [[1, 1], [1, -1], [-1, 1]].map(([sx, sy]) => [['x', F, [4], [1, 2, -0.5, 3].map((v) => v * sx)], ['y', F, [4], [0.5, -1, 2, 4].map((v) => v * sy)]]),
    ref: (x, y) => [sum(x) > 0 ? (sum(y) > 0 ? x.map((v, k) => v + y[k]) : x.map((v, k) => v - y[k])) : x.map((v, k) => v * y[k])],
  });
}

// torch.while_loop(lambda i, x: i < 6,
//   lambda i, x: (i + 1, torch.cond(x.sum() > 10, lambda x: x - 3, lambda x: x * 2, (x,))), (i0, x0))
{
  const bt = fn('while_loop_body_graph_0__true_graph_0', ['x'], ['sub'], [constant('three', F, [], [3]), node('Sub', ['x', 'three'], ['sub'])]);
  const bf = fn('while_loop_body_graph_0__false_graph_0', ['x'], ['mul'], [constant('two', F, [], [2]), node('Mul', ['x', 'two'], ['mul'])]);
  const c = fn('while_loop_cond_graph_0', ['i', 'x'], ['lt'], [constant('six', I, [], [6]), node('Less', ['i', 'six'], ['lt'])]);
  const b = fn('while_loop_body_graph_0', ['i', 'x'], ['add', 'getitem'], [constant('one', I, [], [1]), node('Add', ['i', 'one'], ['add']),
    node('ReduceSum', ['x'], ['sum_1'], { keepdims: 0 }), constant('ten', F, [], [10]), node('Greater', ['sum_1', 'ten'], ['gt']),
    exportedIf('gt', bt, bf, ['x'], ['getitem'])]);
  tests.push({
    name: 'torch_cond_in_while_loop',
    bytes: model(graph('main_graph', exportedWhile(c, b, ['i0', 'x0'], [], ['getitem', 'getitem_1'], [[I, []], [F, [2]]]),
      [vi('i0', I, []), vi('x0', F, [2])], [vi('getitem', I, []), vi('getitem_1', F, [2])]), [c, b, bt, bf]),
    outputs: [['getitem', I], ['getitem_1', F]],
    sets: [[['i0', I, [], [0]], ['x0', F, [2], [1, 0.5]]], [['i0', I, [], [3]], ['x0', F, [2], [6, 6]]]],
    ref: (i0, x0) => {
      let i = i0[0], x = x0.slice();
      while (i < 6) { i += 1; x = sum(x) > 10 ? x.map((v) => v - 3) : x.map((v) => v * 2); }
      return [[i], x];
    },
  });
}

// The seed program (reference/seed-issue.txt) as the exporter writes it: the float64 buffer
// `state` is graph input b_state, its new value (the functionalized copy_) output `copy`,
// listed first. Branches take every lifted operand. b_state has no initializer here: berth
// reads an input with an initializer as a constant, and onnxruntime 1.30 reads the
// initializer instead of the fed value inside the nested If of an inlined function (6
// instead of 7 for data 6, state 5); the NaN start value is given to berth with
// --state b_state=copy --input 'b_state:f64[1]=nan'.
{
  const t0 = fn('true_graph_0', ['unsqueeze', 'b_state'], ['clone'], [node('Identity', ['unsqueeze'], ['clone'])]);
  const f0 = fn('false_graph_0', ['unsqueeze', 'b_state'], ['clone'], [node('Identity', ['b_state'], ['clone'])]);
  const t1t = fn('true_graph_1__true_graph_0', ['getitem'], ['clone'], [node('Identity', ['getitem'], ['clone'])]);
  const t1f = fn('true_graph_1__false_graph_0', ['getitem'], ['add'], [constant('one', D, [], [1]), node('Add', ['getitem', 'one'], ['add'])]);
  const t1 = fn('true_graph_1', ['getitem', 'b_state'], ['getitem_1'], [node('IsNaN', ['b_state'], ['isnan']),
    exportedIf('isnan', t1t, t1f, ['getitem'], ['getitem_1'])]);
  const f1 = fn('false_graph_1', ['getitem', 'b_state'], ['clone'], [node('Identity', ['b_state'], ['clone'])]);
  tests.push({
    name: 'torch_seed',
    bytes: model(graph('main_graph', [
      constant('idx', I, [], [0]), node('Gather', ['data', 'idx'], ['select'], { axis: 0 }),
      constant('ax', I, [1], [0]), node('Unsqueeze', ['select', 'ax'], ['unsqueeze']),
      constant('zero', D, [], [0]), node('GreaterOrEqual', ['unsqueeze', 'zero'], ['ge']),
      exportedIf('ge', t0, f0, ['unsqueeze', 'b_state'], ['getitem']),
      exportedIf('ge', t1, f1, ['getitem', 'b_state'], ['getitem_1']),
      node('Identity', ['getitem'], ['copy']),
    ], [vi('data', D, [1]), vi('b_state', D, [1])], [vi('copy', D, [1]), vi('getitem', D, [1]), vi('getitem_1', D, [1])]),
    [t0, f0, t1, f1, t1t, t1f]),
    outputs: [['copy', D], ['getitem', D], ['getitem_1', D]],
    // the caller carries the state from one call to the next: NaN, then 5, then 6
    sets: [[['data', D, [1], [5]], ['b_state', D, [1], [NaN]]], [['data', D, [1], [6]], ['b_state', D, [1], [5]]],
      [['data', D, [1], [-1]], ['b_state', D, [1], [6]]]],
    ref: (data, st) => {
      const v = data[0], s = st[0];
      const r1 = v >= 0 ? v : s;
      const r2 = v >= 0 ? (Number.isNaN(s) ? r1 : r1 + 1) : s;
      return [[r1], [r1], [r2]];
    },
  });
}

// Model-local functions beyond the exporter's: attributes (ref_attr_name, defaults from
// attribute_proto), omitted optional inputs and outputs, a function calling a function
// with an attribute passed on, overloads.
{
  const DOM = 'berth.test';
  const scaleSum = fn('ScaleSum', ['x'], ['y', 's'], [node('Constant', [], ['k'], { value_float: { ref: 'alpha', type: AT.FLOAT } }),
    node('Mul', ['x', 'k'], ['y']), node('ReduceSum', ['y'], ['s'], { keepdims: { ref: 'keepdims', type: AT.INT } })],
  { domain: DOM, attribute: ['alpha'], attributeProto: [{ name: 'keepdims', type: AT.INT, i: 0 }] });
  const clipFn = fn('ClipFn', ['x', 'lo', 'hi'], ['c'], [node('Clip', ['x', 'lo', 'hi'], ['c'])], { domain: DOM });
  const inner = fn('Inner', ['x'], ['r'], [node('Constant', [], ['k'], { value_float: { ref: 'alpha', type: AT.FLOAT } }), node('Mul', ['x', 'k'], ['m']),
    constant('one', F, [], [1]), node('Add', ['m', 'one'], ['r'])], { domain: DOM, attribute: ['alpha'] });
  const outer = fn('Outer', ['x'], ['u'], [node('Inner', ['x'], ['t'], { alpha: { ref: 'k', type: AT.FLOAT } }, DOM),
    node('Inner', ['t'], ['u'], { alpha: { f: 0.5 } }, DOM)], { domain: DOM, attribute: [], attributeProto: [{ name: 'k', type: AT.FLOAT, f: 3 }] });
  const pickA = fn('Pick', ['x'], ['p'], [node('Add', ['x', 'x'], ['p'])], { domain: DOM, overload: 'twice' });
  const pickB = fn('Pick', ['x'], ['p'], [node('Mul', ['x', 'x'], ['p'])], { domain: DOM, overload: 'square' });
  const call = (name, ins, outs, attrs = {}, overload) => {
    const n = node(name, ins, outs, attrs, DOM);
    if (overload) n.overload = overload;
    return n;
  };
  const g = graph('main_graph', [
    call('ScaleSum', ['x'], ['y1', 's1'], { alpha: { f: 0.5 } }),
    call('ScaleSum', ['x'], ['y2', ''], { alpha: { f: 2 }, keepdims: 1 }),
    call('ScaleSum', ['x'], ['', 's3'], { alpha: { f: -1 }, keepdims: 1 }),
    call('ClipFn', ['y1', 'lo'], ['c1']),
    call('ClipFn', ['y2', '', 'hi'], ['c2']),
    call('Outer', ['x'], ['u1']),
    call('Outer', ['x'], ['u2'], { k: { f: -2 } }),
    call('Pick', ['x'], ['p1'], {}, 'twice'),
    call('Pick', ['x'], ['p2'], {}, 'square'),
  ], [vi('x', F, [2, 3]), vi('lo', F, []), vi('hi', F, [])],
  [vi('y1', F, [2, 3]), vi('s1', F, []), vi('s3', F, [1, 1]), vi('c1', F, [2, 3]), vi('c2', F, [2, 3]), vi('u1', F, [2, 3]),
    vi('u2', F, [2, 3]), vi('p1', F, [2, 3]), vi('p2', F, [2, 3])]);
  tests.push({
    name: 'function_attrs_optionals',
    bytes: model(g, [scaleSum, clipFn, inner, outer, pickA, pickB], [DOM]),
    outputs: g.output.map((o) => [o.name, F]),
    sets: [[['x', F, [2, 3], [1, -2, 3, 0.5, 4, -1]], ['lo', F, [], [0]], ['hi', F, [], [3]]]],
    ref: (x, lo, hi) => {
      const y1 = x.map((v) => v * 0.5), y2 = x.map((v) => v * 2);
      const inner = (a, k) => a.map((v) => Math.fround(Math.fround(v * k) + 1));
      return [y1, [sum(y1)], [sum(x.map((v) => -v))], y1.map((v) => Math.max(v, lo[0])), y2.map((v) => Math.min(v, hi[0])),
        inner(inner(x, 3), 0.5), inner(inner(x, -2), 0.5), x.map((v) => v + v), x.map((v) => v * v)];
    },
  });
}

function ortTensor(elem, dims, values) {
  if (elem === F) return new ort.Tensor('float32', Float32Array.from(values), dims);
  if (elem === D) return new ort.Tensor('float64', Float64Array.from(values), dims);
  if (elem === I) return new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
  return new ort.Tensor('bool', Uint8Array.from(values.map((v) => (v ? 1 : 0))), dims);
}
const close = (a, b) => (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= 1e-5 * (1 + Math.abs(a));

async function main() {
  const out = process.argv[2] || 'tests/onnx';
  const rows = [];
  for (const t of tests) {
    const dir = path.join(out, t.name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'model.onnx'), t.bytes);
    let ortBytes = t.bytes;
    if (t.ortWithoutInitializers) {
      const m = ModelProto.decode(t.bytes);
      m.graph.initializer = [];
      ortBytes = ModelProto.encode(m).finish();
    }
    const sess = await ort.InferenceSession.create(Buffer.from(ortBytes));
    for (let si = 0; si < t.sets.length; si++) {
      const set = t.sets[si];
      const sd = path.join(dir, `test_data_set_${si}`);
      fs.mkdirSync(sd, { recursive: true });
      const feeds = {};
      set.forEach(([name, elem, dims, values], k) => {
        fs.writeFileSync(path.join(sd, `input_${k}.pb`), TensorProto.encode(tensor(name, elem, dims, values)).finish());
        feeds[name] = ortTensor(elem, dims, values);
      });
      const ref = t.ref(...set.map((s) => s[3]));
      const res = await sess.run(feeds);
      t.outputs.forEach(([name, elem], k) => {
        const r = res[name];
        const vals = Array.from(r.data, Number);
        if (vals.length !== ref[k].length || vals.some((v, j) => !close(ref[k][j], v)))
          throw new Error(`${t.name} set ${si} output ${name}: reference ${JSON.stringify(ref[k])} != onnxruntime ${JSON.stringify(vals)}`);
        fs.writeFileSync(path.join(sd, `output_${k}.pb`), TensorProto.encode(tensor(name, elem, r.dims.map(Number), vals)).finish());
      });
    }
    rows.push(`| ${t.name} | ${t.sets.length} | onnxruntime-node (matches the reference)${t.ortWithoutInitializers ?
      ', run without the graph\'s initializers (see gen_pytorch.js: onnxruntime 1.30 reads the initializer instead of the fed input inside a nested If of an inlined function)' : ''} |`);
    console.log(`${t.name}: ${t.sets.length} data sets, onnxruntime-node agrees with the reference`);
  }
  const readme = path.join(out, 'README.md');
  const marker = '\n## Exporter shapes and model-local functions\n';
  let text = fs.existsSync(readme) ? fs.readFileSync(readme, 'utf8') : '';
  if (text.includes(marker)) text = text.slice(0, text.indexOf(marker));
  text = text.replace(/\n*$/, '\n') + marker + '\nGenerated by `tools/onnxgen/gen_pytorch.js` (the shapes `torch.onnx.export(..., dynamo=True)` ' +
    'writes for torch.cond and torch.while_loop; see its header).\n\n| test | data sets | expected outputs from |\n| --- | --- | --- |\n' +
    rows.join('\n') + '\n';
  fs.writeFileSync(readme, text);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
