"""The Python package against libberth: compile, plan, run with numpy, state, save/load,
errors. Run from the repository root: BERTH_LIBRARY=build/libberth.so python3 -m pytest python/tests
(ctest does this). Silero VAD checks skip without the model (tools/vad/fetch-model.sh)."""
import ctypes
import math
import os

import numpy as np
import pytest

import berth

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = os.path.join(ROOT, "examples", "seed", "seed.bir")
ASSERT = os.path.join(ROOT, "tests", "bir", "assert.bir")
SILERO = os.environ.get("BERTH_VAD_MODEL") or os.path.join(
    ROOT, "build", "vad-deps", "node_modules", "@ricky0123", "vad-web", "dist", "silero_vad_v5.onnx")


def test_version():
    assert berth.version().count(".") == 2
    # the package's own version is the library's (include/berth/version.h)
    with open(os.path.join(ROOT, "python", "pyproject.toml")) as f:
        assert 'version = "%s"' % berth.version() in f.read()


def _crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def _with_writer(data, major, minor, patch):
    """The file with header bytes 36..41 (the writer's version) set, its checksum redone."""
    d = bytearray(data)
    d[36:42] = b"".join(v.to_bytes(2, "little") for v in (major, minor, patch))
    d[32:36] = bytes(4)
    d[32:36] = _crc32c(bytes(d)).to_bytes(4, "little")
    return bytes(d)


def test_writer_version():
    prog = berth.compile(SEED)
    mine = tuple(int(x) for x in berth.version().split("."))
    assert prog.writer_version == mine
    assert berth.load(prog.bytes).writer_version == mine
    # an older writer (here: before the version was recorded) and a newer patch load
    assert berth.load(_with_writer(prog.bytes, 0, 0, 0)).writer_version == (0, 0, 0)
    assert berth.load(_with_writer(prog.bytes, mine[0], mine[1], mine[2] + 1)).writer_version[2] == mine[2] + 1
    # a newer minor is refused, naming both versions
    newer = (mine[0], mine[1] + 1, 0)
    with pytest.raises(berth.Error) as e:
        berth.load(_with_writer(prog.bytes, *newer))
    assert e.value.status == "unimplemented"
    assert str(e.value) == (
        "header (byte 36): program written by berth %d.%d.0; this runtime is berth %s: rebuild the runtime "
        "with berth %d.%d or newer, or recompile the program with berth %s"
        % (newer[0], newer[1], berth.version(), newer[0], newer[1], berth.version()))


def test_seed_runs_as_the_seed_issue_says():
    prog = berth.compile(SEED)
    m = prog.method("forward")
    assert m.inputs == [("data", "f64", (1,))]
    assert [n for n, _, _ in m.outputs] == ["result1", "result2"]
    first = m(np.array([5.0]))
    second = m(data=np.array([6.0]))
    assert first["result1"].tolist() == [5.0] and first["result2"].tolist() == [5.0]
    assert second["result1"].tolist() == [6.0] and second["result2"].tolist() == [7.0]
    # outputs are copies: the next call does not change them
    m(np.array([1.0]))
    assert second["result2"].tolist() == [7.0]


def test_plan_summary():
    plan = berth.compile(SEED).plan
    assert len(plan) == 1
    p = plan[0]
    assert p["method"] == "forward" and p["verified"]
    # views (DESIGN rule 7): select, unsqueeze and two clones share bytes; the clones of a
    # branch parameter are then handed over by copy
    assert (p["copies"], p["coalesced"], p["state_bytes"]) == (3, 4, 8)
    assert p["pools"][0]["arena_bytes"] == 24 and p["pools"][0]["lower_bound_bytes"] == 24
    naive = berth.compile(SEED, algo="naive").plan[0]
    assert naive["arena_bytes"] > p["arena_bytes"]


def test_state_and_reset():
    m = berth.compile(SEED).method()
    m(np.array([5.0]))
    assert m(np.array([6.0]))["result2"].tolist() == [7.0]
    m.reset()  # state is NaN again: the nested cond takes the clone branch
    m(np.array([5.0]))
    assert m(np.array([6.0]))["result2"].tolist() == [7.0]
    fresh = berth.compile(SEED).method()
    assert fresh(np.array([6.0]))["result2"].tolist() == [6.0]


def test_state_read_and_set():
    m = berth.compile(SEED).method()
    assert np.isnan(m.state("state", "f64")).all()
    m(np.array([5.0]))
    assert m.state("state", "f64").tolist() == [5.0]
    m.set_state("state", np.array([np.nan]), "f64")  # as if fresh: the nested cond clones again
    assert m(np.array([6.0]))["result2"].tolist() == [6.0]
    with pytest.raises(ValueError, match="holds 8 bytes"):
        m.set_state("state", np.zeros(2), "f64")
    with pytest.raises(TypeError, match="cannot be passed as float64"):
        m.set_state("state", np.array([1 + 2j]), "f64")
    with pytest.raises(berth.Error, match="no buffer"):
        m.state("nope", "f64")


def test_two_methods_do_not_share_memory():
    prog = berth.compile(SEED)
    a, b = prog.method(), prog.method()
    a(np.array([5.0]))
    assert a(np.array([6.0]))["result2"].tolist() == [7.0]
    assert b(np.array([6.0]))["result2"].tolist() == [6.0]


def test_regions_strategy_is_rejected_by_the_verifier():
    with pytest.raises(berth.Error) as e:
        berth.compile(SEED, strategy="regions")
    assert e.value.status == "verification failed"
    assert "%result1" in str(e.value)


@pytest.mark.parametrize("io", [(None, None), (True, True), (False, False), (True, False)])
def test_alloc_inputs_outputs(io):
    m = berth.compile(SEED, alloc_inputs=io[0], alloc_outputs=io[1]).method()
    m(np.array([5.0]))
    assert m(np.array([6.0]))["result2"].tolist() == [7.0]


def test_save_and_load(tmp_path):
    prog = berth.compile(SEED, store_ir=False)
    path = tmp_path / "seed.berth"
    prog.save(str(path))
    again = berth.load(str(path))
    assert again.plan is None and again.methods == ["forward"]
    m = again.method()
    m(np.array([5.0]))
    assert m(np.array([6.0]))["result2"].tolist() == [7.0]
    data = bytearray(path.read_bytes())
    data[40] ^= 0xFF
    with pytest.raises(berth.Error):
        berth.load(bytes(data))


def test_bad_inputs_are_python_errors():
    m = berth.compile(SEED).method()
    with pytest.raises(TypeError, match="missing input data"):
        m()
    with pytest.raises(TypeError, match="no input 'x'"):
        m(x=np.array([1.0]))
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        m(np.zeros((2, 2)))
    # no silent conversion: strings, complex numbers, floats into integers
    with pytest.raises(TypeError, match="cannot be passed as float64"):
        m(np.array(["1.5"]))
    with pytest.raises(TypeError, match="cannot be passed as float64"):
        m(np.array([1 + 2j]))
    assert m(np.array([5], dtype=np.int64))["result1"].tolist() == [5.0]  # int -> float is exact
    with pytest.raises(ValueError, match="must be integers"):
        berth.compile(SILERO if os.path.exists(SILERO) else SEED, inputs={"sr": ("i64", [], 16000.5)})
    with pytest.raises(ValueError, match="alignment"):
        berth.compile(SEED, alignment=2**32 + 16)
    with pytest.raises(ValueError, match="max steps"):
        m.set_max_steps(-1)
    with pytest.raises(berth.Error, match="no method 'backward'"):
        berth.compile(SEED).method("backward")
    with pytest.raises(berth.Error, match="unknown algorithm 'fast'") as e:
        berth.compile(SEED, algo="fast")
    assert e.value.status == "invalid argument"
    with pytest.raises(berth.Error, match="bad.bir:1:"):
        berth.compile(b"func @f(", name="bad.bir")


def test_output_errors_carry_the_reason():
    # the binding passes a diag to berth_method_output: its message reaches the exception
    m = berth.compile(SEED).method()
    d = berth._Diag()
    ptr, nb = ctypes.c_void_p(), ctypes.c_size_t()
    with pytest.raises(berth.Error, match="^method forward has no outputs yet: it has not been executed$"):
        d.check(berth._c.berth_method_output(m._handle, 0, ctypes.byref(ptr), ctypes.byref(nb), d.ptr))
    m(np.array([5.0]))
    with pytest.raises(berth.Error, match=r"^method forward has no output 2 \(2 outputs\)$"):
        d.check(berth._c.berth_method_output(m._handle, 2, ctypes.byref(ptr), ctypes.byref(nb), d.ptr))


def test_run_time_check_raises():
    m = berth.compile(ASSERT).method()
    out = m(np.array([3.0]), np.array(5, dtype=np.int64))
    assert out[m.outputs[0][0]].tolist() == [6.0]
    with pytest.raises(berth.Error, match="x must be at most 10") as e:
        m(np.array([30.0]), np.array(5, dtype=np.int64))
    assert e.value.status == "run-time check failed"


def _sine(n):
    return (0.5 * np.sin(0.3 * np.arange(n))).astype(np.float32).reshape(1, n)


@pytest.mark.skipif(not os.path.exists(SILERO), reason="no silero_vad_v5.onnx (tools/vad/fetch-model.sh)")
def test_silero_vad_v5_matches_onnxruntime():
    # onnxruntime-node's probabilities for this frame with a zero state (tests/cli/onnx_silero.sh)
    prog = berth.compile(SILERO, inputs={"input": ("f32", [1, 512]), "state": ("f32", [2, 1, 128]),
                                         "sr": ("i64", [], 16000)})
    assert prog.plan[0]["verified"]
    vad = prog.method()
    out = vad(input=_sine(512), state=np.zeros((2, 1, 128), np.float32))
    prob = out[vad.outputs[0][0]]
    assert prob.shape == (1, 1) and abs(float(prob[0, 0]) - 0.23636320) < 1e-4
    # the state pair as a mutable buffer updated in place: no state input, no copy per call
    sp = berth.compile(SILERO, inputs={"input": ("f32", [1, 512]), "sr": ("i64", [], 16000),
                                       "state": ("f32", [2, 1, 128])}, states={"state": "stateN"})
    assert sp.plan[0]["copies"] == 0 and sp.plan[0]["state_bytes"] == 1024 and sp.plan[0]["state_in_place"] == 1
    sv = sp.method()
    assert [n for n, _, _ in sv.inputs] == ["input"]
    first = list(sv(input=_sine(512)).values())[0]
    assert abs(float(first[0, 0]) - 0.23636320) < 1e-4
    second = list(sv(input=_sine(512)).values())[0]
    assert abs(float(second[0, 0]) - 0.16509327) < 1e-4   # onnxruntime, stateN fed back
    assert sv.state("state", "f32", (2, 1, 128)).any()
    sv.reset()
    assert not sv.state("state", "f32").any()
    # both rates in one program: sr at run time, a 256-sample frame
    both = berth.compile(SILERO, inputs=["input:f32[1,256]", "state:f32[2,1,128]", "sr:i64[]"]).method()
    zero = np.zeros((2, 1, 128), np.float32)
    p16 = both(_sine(256), zero, np.array(16000, np.int64))
    p8 = both(_sine(256), zero, np.array(8000, np.int64))
    assert abs(float(list(p16.values())[0][0, 0]) - 0.0048668683) < 1e-4
    assert abs(float(list(p8.values())[0][0, 0]) - 0.074172139) < 1e-4


def test_budget_work_gives_the_same_file(tmp_path):
    nested = os.path.join(ROOT, "tests", "bir", "nested.bir")
    paths = []
    for k in range(2):
        prog = berth.compile(nested, algo="exact", budget_work=50000)
        paths.append(tmp_path / ("p%d.berth" % k))
        prog.save(str(paths[-1]))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    with pytest.raises(ValueError):
        berth.compile(nested, algo="exact", budget_work=-1)


DYNBOUND = os.path.join(ROOT, "tests", "bir", "dynamic_bound.bir")


@pytest.mark.parametrize("alloc_outputs", [True, False])
def test_bounded_output_has_its_real_shape(alloc_outputs):
    # output 0 has capacity 4 along axis 1 (what --dynamic-bound 4 gives NonZero); each call
    # returns the real extent, and a call with more than 4 nonzeros raises
    m = berth.compile(DYNBOUND, alloc_outputs=alloc_outputs).method()
    assert m.outputs[0] == ("idx", "i64", (2, 4))
    out = m(np.array([[0, 1, 0], [2, 0, 3]], np.float32))
    assert out["idx"].shape == (2, 3) and out["idx"].tolist() == [[0, 1, 1], [1, 0, 2]]
    assert out["y"].shape == (2, 3)
    assert m(np.zeros((2, 3), np.float32))["idx"].shape == (2, 0)
    with pytest.raises(berth.Error, match="yields more than --dynamic-bound 4 results") as e:
        m(np.ones((2, 3), np.float32))
    assert e.value.status == "run-time check failed"


def test_dynamic_bound_option_is_checked():
    with pytest.raises(ValueError, match="dynamic_bound"):
        berth.compile(SEED, dynamic_bound=-1)
    with pytest.raises(berth.Error, match="apply to ONNX models only"):
        berth.compile(SEED, dynamic_bound=3)


def test_profile_counts_every_run():
    """The countdown loop (examples/while_loop) with n = 4: its body's add and sub run 4 times
    a call, its condition's gt 5 times; the profile says so per call, slowest first, and the
    method runs as before after it (the observer detached)."""
    m = berth.compile(os.path.join(ROOT, "examples", "while_loop", "countdown.bir")).method()
    rows = m.profile(np.array(4, dtype=np.int64), np.array([1.0, 2.0], dtype=np.float32), calls=3)
    by_op = {}
    for r in rows:
        by_op.setdefault(r["op"], []).append(r)
    assert [r["runs"] for r in by_op["add"]] == [4.0] and [r["runs"] for r in by_op["sub"]] == [4.0]
    assert [r["runs"] for r in by_op["gt"]] == [5.0]
    add = by_op["add"][0]
    assert add["output"] == "acc_next" and add["dtype"] == "f32" and add["shape"] == (2,) and add["us"] >= 0
    assert [r["us"] for r in rows] == sorted((r["us"] for r in rows), reverse=True)
    out = m(np.array(2, dtype=np.int64), np.array([1.0, 2.0], dtype=np.float32))
    assert out["acc_final"].tolist() == [2.0, 4.0]
    with pytest.raises(ValueError):
        m.profile(np.array(1, dtype=np.int64), np.array([1.0, 2.0], dtype=np.float32), calls=0)


def test_compile_options_mirror_the_c_struct():
    # the ctypes mirror of berth_compile_options_t reads back the C defaults field by field:
    # a field missing from the mirror (concat_in_place was) shifts every later one
    opt = berth._c.berth_compile_options_default()
    assert opt.views is True and opt.concat_in_place == 1 and opt.hoist is True
    assert opt.hoist_min_bytes == 4096 and opt.plain_layout is False and opt.direct_3x3 is False
    assert opt.algo == b"greedy" and opt.verify is True and opt.store_ir is True



def _thp_eligible(addr):
    """THPeligible of the mapping holding addr (None when /proc/self/smaps does not say)."""
    try:
        text = open("/proc/self/smaps").read()
    except OSError:
        return None
    inside = False
    for line in text.splitlines():
        head = line.split(" ", 1)[0]
        if "-" in head and ":" not in head:
            lo, hi = (int(x, 16) for x in head.split("-"))
            inside = lo <= addr < hi
        elif inside and line.startswith("THPeligible:"):
            return int(line.split()[1])
    return None


def test_large_program_memory_is_on_huge_pages():
    # a program file's constants stream through every call: from 1 MiB on its bytes lie on
    # whole 2 MiB pages of a private mapping marked for transparent huge pages (berth/memory.h)
    prog = berth.compile((
        "const @w : f32[524288] = [%s]\n\nfunc @forward(%%x : f32[524288]) -> (f32[524288]) {\n"
        "  %%y = add(%%x, @w) : f32[524288]\n  return %%y\n}\n" % ",".join(["1"] * 524288)).encode())
    addr = prog._file.ctypes.data
    assert addr % (2 << 20) == 0
    assert (prog.method("forward")(np.full(524288, 2, dtype=np.float32))["y"] == 3).all()
    try:
        enabled = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
    except OSError:
        pytest.skip("this system does not say whether it offers transparent huge pages")
    if "[madvise]" not in enabled and "[always]" not in enabled:
        pytest.skip("this system does not offer transparent huge pages on request: " + enabled.strip())
    eligible = _thp_eligible(addr)
    if eligible is None:
        pytest.skip("/proc/self/smaps has no THPeligible")
    assert eligible == 1
