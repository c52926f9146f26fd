"""berth from Python: compile ONNX models and berth's text IR into memory-planned programs,
read their plans, save and load `.berth` files, and run methods on numpy arrays.

    import berth, numpy as np
    prog = berth.compile("silero_vad.onnx",
                         inputs={"input": ("f32", [1, 512]), "state": ("f32", [2, 1, 128]),
                                 "sr": ("i64", [], 16000)})
    print(prog.plan[0])                 # arena, lower bound, copies, coalesced hand-overs
    vad = prog.method("forward")        # its own arena; state carries over between calls
    out = vad(input=frame, state=state) # dict: output name -> numpy array
    rows = vad.profile(input=frame, state=state, calls=10)   # per instruction: op, output, us
    prog.save("vad.berth"); prog2 = berth.load("vad.berth")

Errors raise berth.Error (a subclass of RuntimeError) carrying berth's one-line message and
its status name (`e.status`: "invalid argument", "verification failed", "run-time check failed", ...).
"""
import ctypes
import mmap
import os

import numpy as np

from . import _lib as _c

__all__ = ["Error", "Program", "Method", "compile", "load", "version", "DTYPES"]

# berth's dtypes in the order of include/berth/types.h (BERTH_DTYPE_LIST)
DTYPES = ["bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"]
_NUMPY = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float32, np.float64]
_FROM_NUMPY = {np.dtype(t): name for t, name in zip(_NUMPY, DTYPES)}


class Error(RuntimeError):
    """A berth call failed: str(e) is berth's message, e.status the status name."""

    def __init__(self, status, message):
        self.status = _c.berth_status_name(status).decode()
        super().__init__(message or self.status)


def _np_dtype(dtype):
    if isinstance(dtype, str) and dtype in DTYPES:
        return _NUMPY[DTYPES.index(dtype)]
    return np.dtype(dtype)


def _checked_array(value, dtype, what):
    """value as a contiguous array of dtype: a conversion within the same kind (f64 -> f32,
    i64 -> i32) or a safe one (int -> float, bool -> anything) is done; strings, complex
    numbers and float -> int are refused rather than silently converted."""
    a = np.asarray(value)
    if not np.can_cast(a.dtype, dtype, casting="same_kind"):
        raise TypeError("%s: a %s array cannot be passed as %s" % (what, a.dtype, dtype))
    return np.ascontiguousarray(a, dtype=dtype)


def version():
    """The version of the loaded libberth ("MAJOR.MINOR.PATCH"): the berth that compiles, and
    whose runtime loads, programs. A program file written by a newer MAJOR.MINOR is refused
    with berth.Error (status "unimplemented") naming both versions."""
    return _c.berth_version().decode()


class _Diag:
    def __init__(self):
        self.buf = ctypes.create_string_buffer(4096)
        self.diag = _c.Diag(ctypes.cast(self.buf, ctypes.c_char_p), len(self.buf))

    def check(self, status):
        if status:
            raise Error(status, self.buf.value.decode(errors="replace"))

    @property
    def ptr(self):
        return ctypes.byref(self.diag)


_HUGE_PAGE = 2 << 20


def _aligned(nbytes, align=64):
    """A zeroed numpy byte buffer of nbytes whose data pointer is a multiple of align. From
    1 MiB on it lies on whole 2 MiB pages of an anonymous mapping marked for transparent huge
    pages where the system offers them (the program file's constants stream through every
    call, as berth_host_alloc does it for C hosts: berth/memory.h)."""
    if nbytes >= _HUGE_PAGE // 2 and hasattr(mmap, "MADV_HUGEPAGE"):
        rounded = -(-nbytes // _HUGE_PAGE) * _HUGE_PAGE
        m = mmap.mmap(-1, rounded + _HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)  # shared memory gets none
        try:
            m.madvise(mmap.MADV_HUGEPAGE)
        except OSError:
            pass  # only a hint
        raw = np.frombuffer(m, dtype=np.uint8)  # keeps the mapping alive
        off = (-raw.ctypes.data) % _HUGE_PAGE
        return raw[off:off + nbytes]
    raw = np.zeros(nbytes + align, dtype=np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + nbytes]


def _spec(name, spec):
    """("f32", [1, 512]) or ("i64", [], 16000) or a ready "NAME:DTYPE[DIMS]" string."""
    if isinstance(spec, str):
        return spec if ":" in spec else "%s:%s" % (name, spec)
    dtype, dims = spec[0], spec[1]
    if isinstance(dtype, str):
        if dtype not in DTYPES:
            raise ValueError("input %r: unknown dtype %r (one of %s)" % (name, dtype, ", ".join(DTYPES)))
    else:
        dtype = _FROM_NUMPY.get(np.dtype(dtype))
        if dtype is None:
            raise ValueError("input %r: dtype %r has no berth equivalent" % (name, spec[0]))
    s = "%s:%s[%s]" % (name, dtype, ",".join(str(int(d)) for d in dims))
    if len(spec) > 2:
        values = np.asarray(spec[2]).reshape(-1)
        if dtype == "bool":
            text = ",".join("1" if v else "0" for v in values)
        elif dtype in ("f32", "f64"):
            text = ",".join(repr(float(v)) for v in values)
        else:
            if any(float(v) != int(v) for v in values):
                raise ValueError("input %r: %s values must be integers, not %s" % (name, dtype, list(values)))
            text = ",".join(str(int(v)) for v in values)
        s += "=" + text
    return s


def compile(source, inputs=None, states=None, algo="greedy", strategy="global", alignment=0, pools=None,
            alloc_inputs=None, alloc_outputs=None, budget_ms=0, budget_work=0, keep_control_flow=False,
            max_trip_count=0, dynamic_bound=0, verify=True, store_ir=True, name=None, plain_layout=False,
            direct_3x3=False):
    """Compiles source (a path to a .onnx or .bir file, or its bytes) into a Program.

    inputs (ONNX only) fixes input shapes and optionally binds values: a dict
    {name: (dtype, dims)} or {name: (dtype, dims, value)}, or a list of "NAME:DTYPE[DIMS]"
    strings as the command line takes them. states (ONNX only) turns input/output pairs that
    carry state into mutable buffers updated in place: {"state": "stateN"} or ["state=stateN"];
    read and set them with Method.state / Method.set_state. algo: naive, greedy, search, exact; strategy:
    global or regions (ExecuTorch's scheme, rejected by the verifier where it aliases live
    values); alignment: 0 for the default (16); alloc_inputs / alloc_outputs: None (the
    program's choice), True or False. budget_ms: the search / exact time budget (0: the
    planner's default); budget_work > 0 replaces it by a deterministic budget in work units,
    so that the same model and options give the same plan on any machine. max_trip_count
    (ONNX) bounds Loops whose trip count is dynamic; dynamic_bound (ONNX) gives NonZero,
    Compress, Unique and NonMaxSuppression results computed at run time that many entries
    along their data-dependent axis (graph outputs only; a call that yields more raises
    Error): each call returns them with their real shape. plain_layout (ONNX) keeps every
    conv in plain NCHW (default: regions of convs where it pays run over channel-blocked
    tensors); direct_3x3 (ONNX) runs their 3x3 convs direct (default: by Winograd's
    F(2x2, 3x3) on planes of 144 outputs or more)."""
    if isinstance(source, (str, os.PathLike)):
        name = name or os.fspath(source)
        with open(source, "rb") as f:
            data = f.read()
    else:
        data = bytes(source)
        name = name or "<bytes>"
    specs = []
    if isinstance(inputs, dict):
        specs = [_spec(k, v) for k, v in inputs.items()]
    elif inputs:
        specs = [str(s) for s in inputs]
    pairs = ["%s=%s" % kv for kv in states.items()] if isinstance(states, dict) else [str(p) for p in (states or [])]
    if not 0 <= int(alignment) <= 4096:
        raise ValueError("alignment %r: a power of two up to 4096 (0: the default)" % (alignment,))
    if int(budget_ms) < 0 or int(budget_work) < 0 or int(max_trip_count) < 0 or int(dynamic_bound) < 0:
        raise ValueError("budget_ms, budget_work, max_trip_count and dynamic_bound must be >= 0")
    opt = _c.berth_compile_options_default()
    opt.algo = algo.encode()
    opt.strategy = strategy.encode()
    opt.alignment = int(alignment)
    opt.budget_ms = int(budget_ms)
    opt.budget_work = int(budget_work)
    opt.pools = pools.encode() if pools else None
    opt.alloc_inputs = -1 if alloc_inputs is None else int(bool(alloc_inputs))
    opt.alloc_outputs = -1 if alloc_outputs is None else int(bool(alloc_outputs))
    opt.verify = bool(verify)
    opt.store_ir = bool(store_ir)
    opt.keep_control_flow = bool(keep_control_flow)
    opt.max_trip_count = int(max_trip_count)
    opt.dynamic_bound = int(dynamic_bound)
    opt.plain_layout = bool(plain_layout)
    opt.direct_3x3 = bool(direct_3x3)
    arr = (ctypes.c_char_p * max(1, len(specs)))(*[s.encode() for s in specs])
    opt.inputs = arr
    opt.n_inputs = len(specs)
    sarr = (ctypes.c_char_p * max(1, len(pairs)))(*[p.encode() for p in pairs])
    opt.states = sarr
    opt.n_states = len(pairs)
    d = _Diag()
    handle = ctypes.c_void_p()
    d.check(_c.berth_compile(data, len(data), name.encode(), ctypes.byref(opt), ctypes.byref(handle), d.ptr))
    try:
        n = ctypes.c_size_t()
        p = _c.berth_compilation_bytes(handle, ctypes.byref(n))
        file_bytes = ctypes.string_at(p, n.value)
        plan = []
        for m in range(_c.berth_compilation_method_count(handle)):
            s = _c.PlanSummary()
            d.check(_c.berth_compilation_summary(handle, m, ctypes.byref(s), d.ptr))
            pools_ = [{"arena_bytes": s.arena_bytes[k], "lower_bound_bytes": s.lower_bound_bytes[k],
                       "buffers": s.buffers[k]} for k in range(s.n_pools)]
            plan.append({"method": s.method.decode(), "values": s.n_values, "copies": s.copies,
                         "coalesced": s.coalesced, "state_bytes": s.state_bytes, "state_in_place": s.state_in_place, "verified": s.verified,
                         "arena_bytes": sum(p_["arena_bytes"] for p_ in pools_), "pools": pools_})
    finally:
        _c.berth_compilation_destroy(handle)
    return Program(file_bytes, plan)


def load(path_or_bytes):
    """Loads a compiled .berth file (a path or its bytes); the loader verifies its plan."""
    if isinstance(path_or_bytes, (str, os.PathLike)):
        with open(path_or_bytes, "rb") as f:
            data = f.read()
    else:
        data = bytes(path_or_bytes)
    return Program(data, None)


class Program:
    """A loaded program. `plan` is the compiler's per-method summary (None for a program
    loaded from a file); `bytes` the .berth file."""

    def __init__(self, file_bytes, plan):
        self.bytes = bytes(file_bytes)
        self.plan = plan
        self._file = _aligned(len(self.bytes))
        self._file[:] = np.frombuffer(self.bytes, dtype=np.uint8)
        d = _Diag()
        sz = _c.ProgramSizes()
        d.check(_c.berth_program_query(self._file.ctypes.data, len(self.bytes), ctypes.byref(sz), d.ptr))
        self._mem = _aligned(max(1, sz.program_bytes))
        scratch = _aligned(max(1, sz.scratch_bytes))
        self._handle = ctypes.c_void_p()
        d.check(_c.berth_program_load(self._file.ctypes.data, len(self.bytes), self._mem.ctypes.data,
                                      sz.program_bytes, scratch.ctypes.data, sz.scratch_bytes,
                                      ctypes.byref(self._handle), d.ptr))

    @property
    def writer_version(self):
        """(major, minor, patch) of the berth that wrote the file; (0, 0, 0) for a file from
        before berth recorded it (0.4.0 and older)."""
        v = _c.berth_program_writer_version(self._handle)
        return (v.major, v.minor, v.patch)

    @property
    def methods(self):
        return [_c.berth_program_method_name(self._handle, m).decode()
                for m in range(_c.berth_program_method_count(self._handle))]

    def method(self, name="forward"):
        """A new Method handle: its own arena and state (initial values)."""
        return Method(self, name)

    def save(self, path):
        """Writes the .berth file (complete or not at all: through a temporary file)."""
        tmp = "%s.%d.tmp" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(self.bytes)
        os.replace(tmp, path)

    def __repr__(self):
        return "<berth.Program methods=%s bytes=%d>" % (self.methods, len(self.bytes))


def _info(prog, fn, m, i):
    t = _c.TensorInfo()
    d = _Diag()
    d.check(fn(prog._handle, m, i, ctypes.byref(t)))
    shape = tuple(t.type.dims[k] for k in range(t.type.rank))
    return t.name.decode(), DTYPES[t.type.dtype], shape, t.bytes


class Method:
    """One method of a program with its own memory. Call it with inputs by name (or in order)
    to run it once; it returns a dict of output name -> numpy array (copies). State carries
    over between calls; reset() restores the initial state."""

    def __init__(self, program, name):
        self.program = program
        p = program._handle
        self.index = _c.berth_program_method_find(p, name.encode())
        if self.index < 0:
            raise Error(1, "no method %r (the program has %s)" % (name, ", ".join(program.methods)))
        self.name = name
        self.inputs = [_info(program, _c.berth_program_input_info, self.index, i)[:3]
                       for i in range(_c.berth_program_input_count(p, self.index))]
        self.outputs = [_info(program, _c.berth_program_output_info, self.index, j)[:3]
                        for j in range(_c.berth_program_output_count(p, self.index))]
        self.state_bytes = _c.berth_program_state_size(p, self.index)
        need = _c.berth_method_memory_size(p, self.index)
        if need == 0:
            raise Error(4, "method %r: its memory does not fit in size_t" % name)
        self._mem = _aligned(need)
        self._handle = ctypes.c_void_p()
        d = _Diag()
        d.check(_c.berth_method_init(p, self.index, self._mem.ctypes.data, need, None, 0,
                                     ctypes.byref(self._handle), d.ptr))
        self._planned_in = _c.berth_program_inputs_planned(p)
        self._planned_out = _c.berth_program_outputs_planned(p)

    def set_max_steps(self, n):
        """Caps the loop iterations one call may run (0: the runtime's default, 10^9)."""
        if not 0 <= int(n) < 2**64:
            raise ValueError("max steps %r: an integer from 0 to 2^64-1" % (n,))
        _c.berth_method_set_max_steps(self._handle, int(n))

    def reset(self):
        """State back to its initial values."""
        _c.berth_method_reset(self._handle)

    def _state_buffer(self, name):
        ptr, nb, d = ctypes.c_void_p(), ctypes.c_size_t(), _Diag()
        d.check(_c.berth_method_state(self._handle, name.encode(), ctypes.byref(ptr), ctypes.byref(nb), d.ptr))
        return ptr, nb.value

    def state(self, name, dtype, shape=None):
        """A copy of mutable buffer `name` (a .bir buffer, or the input of an ONNX state pair)
        as a numpy array of dtype (berth name or numpy dtype) and shape (default: flat)."""
        ptr, nb = self._state_buffer(name)
        a = np.frombuffer(ctypes.string_at(ptr, nb) if nb else b"", dtype=np.dtype(_np_dtype(dtype))).copy()
        return a if shape is None else a.reshape(shape)

    def set_state(self, name, value, dtype):
        """Overwrites mutable buffer `name` with value converted to dtype (the buffer's dtype,
        a berth name or numpy dtype; its byte size must match) before the next call; reset()
        restores the initial values."""
        ptr, nb = self._state_buffer(name)
        a = _checked_array(value, np.dtype(_np_dtype(dtype)), "state %r" % name)
        if a.nbytes != nb:
            raise ValueError("state %r holds %d bytes, the value has %d" % (name, nb, a.nbytes))
        ctypes.memmove(ptr, a.ctypes.data, nb)

    def __call__(self, *args, **kwargs):
        if len(args) > len(self.inputs):
            raise TypeError("%s takes %d inputs, %d given" % (self.name, len(self.inputs), len(args)))
        names = [n for n, _, _ in self.inputs]
        values = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError("%s has no input %r (inputs: %s)" % (self.name, k, ", ".join(names)))
            if k in values:
                raise TypeError("input %r given twice" % k)
            values[k] = v
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError("%s: missing input%s %s" % (self.name, "s" if len(missing) > 1 else "", ", ".join(missing)))
        d = _Diag()
        keep = []
        for i, (n, dt, shape) in enumerate(self.inputs):
            a = np.asarray(values[n])
            if a.shape != shape:
                if a.size == int(np.prod(shape, dtype=np.int64)) and a.ndim <= 1 and len(shape) <= 1:
                    a = a.reshape(shape)
                else:
                    raise ValueError("input %r: shape %s, the program needs %s" % (n, a.shape, shape))
            a = _checked_array(a, np.dtype(_NUMPY[DTYPES.index(dt)]), "input %r" % n)
            keep.append(a)
            d.check(_c.berth_method_set_input(self._handle, i, a.ctypes.data if a.nbytes else None, a.nbytes, d.ptr))
        outs = []
        if not self._planned_out:
            for j, (n, dt, shape) in enumerate(self.outputs):
                o = np.empty(shape, dtype=_NUMPY[DTYPES.index(dt)])
                outs.append(o)
                d.check(_c.berth_method_set_output(self._handle, j, o.ctypes.data if o.nbytes else None, o.nbytes, d.ptr))
        d.check(_c.berth_method_execute(self._handle, d.ptr))
        result = {}
        for j, (n, dt, shape) in enumerate(self.outputs):
            real = _c.Type()  # a bounded output (dynamic_bound) has its real extent: a packed prefix
            d.check(_c.berth_method_output_shape(self._handle, j, ctypes.byref(real), d.ptr))
            real = tuple(real.dims[k] for k in range(real.rank))
            if outs:
                result[n] = outs[j] if real == shape else outs[j].reshape(-1)[:int(np.prod(real, dtype=np.int64))].reshape(real)
                continue
            ptr, nb = ctypes.c_void_p(), ctypes.c_size_t()
            d.check(_c.berth_method_output(self._handle, j, ctypes.byref(ptr), ctypes.byref(nb), d.ptr))
            buf = ctypes.string_at(ptr, nb.value) if nb.value else b""
            result[n] = np.frombuffer(buf, dtype=_NUMPY[DTYPES.index(dt)]).reshape(real).copy()
        return result

    def profile(self, *args, calls=10, **kwargs):
        """Runs the method `calls` times on the given inputs (as a call takes them; state
        carries over as usual) with berth's profiler on (berth/profile.h: a clock read around
        every kernel call and copy) and returns where the time went, slowest first: one dict
        per instruction that ran, {"instr", "op", "output", "dtype", "shape", "runs", "us"},
        with runs and us per call. Time whole calls without it: it adds two clock reads per
        instruction."""
        calls = int(calls)
        if calls < 1:
            raise ValueError("calls %r: at least 1" % (calls,))
        d, prof = _Diag(), ctypes.c_void_p()
        d.check(_c.berth_profile_attach(self._handle, ctypes.byref(prof), d.ptr))
        try:
            for _ in range(calls):
                self(*args, **kwargs)
            rows = []
            for i in range(_c.berth_method_instr_count(self._handle)):
                runs = _c.berth_profile_runs(prof, i)
                if not runs:
                    continue
                info = _c.InstrInfo()
                d.check(_c.berth_method_instr_info(self._handle, i, ctypes.byref(info), d.ptr))
                t = info.out_type
                rows.append({"instr": i, "op": info.op.decode(), "output": info.out_name.decode().lstrip("%"),
                             "dtype": DTYPES[t.dtype] if 0 <= t.dtype < len(DTYPES) else "?",
                             "shape": tuple(t.dims[k] for k in range(t.rank)),
                             "runs": runs / calls, "us": _c.berth_profile_ns(prof, i) / calls / 1e3})
        finally:
            _c.berth_profile_detach(prof)
        return sorted(rows, key=lambda r: (-r["us"], r["instr"]))

    def __repr__(self):
        fmt = lambda xs: ", ".join("%s: %s%s" % (n, t, list(s)) for n, t, s in xs)
        return "<berth.Method %s(%s) -> (%s)>" % (self.name, fmt(self.inputs), fmt(self.outputs))
