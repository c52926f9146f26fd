"""ctypes bindings to libberth (include/berth/compiler.h, runtime.h, status.h, types.h).

The shared library is found, in order: the BERTH_LIBRARY environment variable (a path to
libberth.so), next to this package (if you copy it there), the system's library path (ctypes.util.find_library), PREFIX/lib for the usual prefixes. The struct layouts below
mirror the C headers; tests/test_berth.py checks them against the library's behaviour.
"""
import ctypes
import ctypes.util
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("BERTH_LIBRARY")
    if env:
        yield env
        return
    yield os.path.join(_HERE, "libberth.so")
    found = ctypes.util.find_library("berth")
    if found:
        yield found
    for prefix in ("/usr/local", "/usr", os.path.expanduser("~/.local")):
        for libdir in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
            yield os.path.join(prefix, libdir, "libberth.so")


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("berth: cannot load libberth.so; set BERTH_LIBRARY to its path "
                      "(cmake --install puts it in PREFIX/lib). Tried: " + "; ".join(tried))


lib = _load()

MAX_RANK = 8
SUMMARY_MAX_POOLS = 16


class Diag(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_char_p), ("cap", ctypes.c_size_t)]


class CompileOptions(ctypes.Structure):
    _fields_ = [
        ("algo", ctypes.c_char_p),
        ("strategy", ctypes.c_char_p),
        ("budget_ms", ctypes.c_int64),
        ("budget_work", ctypes.c_int64),
        ("alignment", ctypes.c_uint32),
        ("pools", ctypes.c_char_p),
        ("alloc_inputs", ctypes.c_int),
        ("alloc_outputs", ctypes.c_int),
        ("verify", ctypes.c_bool),
        ("store_ir", ctypes.c_bool),
        ("inputs", ctypes.POINTER(ctypes.c_char_p)),
        ("n_inputs", ctypes.c_int32),
        ("states", ctypes.POINTER(ctypes.c_char_p)),
        ("n_states", ctypes.c_int32),
        ("keep_control_flow", ctypes.c_bool),
        ("max_trip_count", ctypes.c_int64),
        ("dynamic_bound", ctypes.c_int64),
        ("views", ctypes.c_bool),
        ("concat_in_place", ctypes.c_int),
        ("hoist", ctypes.c_bool),
        ("hoist_min_bytes", ctypes.c_int64),
        ("plain_layout", ctypes.c_bool),
        ("direct_3x3", ctypes.c_bool),
    ]


class PlanSummary(ctypes.Structure):
    _fields_ = [
        ("method", ctypes.c_char_p),
        ("n_values", ctypes.c_int32),
        ("copies", ctypes.c_int32),
        ("coalesced", ctypes.c_int32),
        ("state_bytes", ctypes.c_uint64),
        ("state_in_place", ctypes.c_int32),
        ("n_pools", ctypes.c_int32),
        ("arena_bytes", ctypes.c_uint64 * SUMMARY_MAX_POOLS),
        ("lower_bound_bytes", ctypes.c_uint64 * SUMMARY_MAX_POOLS),
        ("buffers", ctypes.c_int32 * SUMMARY_MAX_POOLS),
        ("verified", ctypes.c_bool),
        ("n_scratch", ctypes.c_int32),
        ("scratch_bytes", ctypes.c_uint64),
        ("timeline_positions", ctypes.c_int64),
        ("time_ms", ctypes.c_double),
        ("n_hops", ctypes.c_int32),
        ("views", ctypes.c_int32),
        ("hoisted", ctypes.c_int32),
        ("hoist_bytes", ctypes.c_uint64),
    ]


class Type(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_int32), ("dims", ctypes.c_int64 * MAX_RANK)]


class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", Type), ("bytes", ctypes.c_size_t), ("bounded_axis", ctypes.c_int32)]


class InstrInfo(ctypes.Structure):
    _fields_ = [("op", ctypes.c_char_p), ("out_name", ctypes.c_char * 96), ("out_type", Type)]


class ProgramSizes(ctypes.Structure):
    _fields_ = [("program_bytes", ctypes.c_size_t), ("scratch_bytes", ctypes.c_size_t)]


class VersionTriple(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint16), ("minor", ctypes.c_uint16), ("patch", ctypes.c_uint16)]


_vp, _sz, _i32, _u64, _st = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int32, ctypes.c_uint64, ctypes.c_int
_D = ctypes.POINTER(Diag)


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    globals()[name] = f


_fn("berth_version", ctypes.c_char_p)
_fn("berth_status_name", ctypes.c_char_p, _st)
_fn("berth_compile_options_default", CompileOptions)
_fn("berth_compile", _st, _vp, _sz, ctypes.c_char_p, ctypes.POINTER(CompileOptions), ctypes.POINTER(_vp), _D)
_fn("berth_compilation_destroy", None, _vp)
_fn("berth_compilation_bytes", ctypes.POINTER(ctypes.c_uint8), _vp, ctypes.POINTER(_sz))
_fn("berth_compilation_method_count", _i32, _vp)
_fn("berth_compilation_summary", _st, _vp, _i32, ctypes.POINTER(PlanSummary), _D)
_fn("berth_program_query", _st, _vp, _sz, ctypes.POINTER(ProgramSizes), _D)
_fn("berth_program_load", _st, _vp, _sz, _vp, _sz, _vp, _sz, ctypes.POINTER(_vp), _D)
_fn("berth_program_writer_version", VersionTriple, _vp)
_fn("berth_program_method_count", _i32, _vp)
_fn("berth_program_method_name", ctypes.c_char_p, _vp, _i32)
_fn("berth_program_method_find", _i32, _vp, ctypes.c_char_p)
_fn("berth_program_inputs_planned", ctypes.c_bool, _vp)
_fn("berth_program_outputs_planned", ctypes.c_bool, _vp)
_fn("berth_program_input_count", _i32, _vp, _i32)
_fn("berth_program_output_count", _i32, _vp, _i32)
_fn("berth_program_input_info", _st, _vp, _i32, _i32, ctypes.POINTER(TensorInfo))
_fn("berth_program_output_info", _st, _vp, _i32, _i32, ctypes.POINTER(TensorInfo))
_fn("berth_program_state_size", _u64, _vp, _i32)
_fn("berth_method_memory_size", _sz, _vp, _i32)
_fn("berth_method_init", _st, _vp, _i32, _vp, _sz, _vp, _i32, ctypes.POINTER(_vp), _D)
_fn("berth_method_set_input", _st, _vp, _i32, _vp, _sz, _D)
_fn("berth_method_set_output", _st, _vp, _i32, _vp, _sz, _D)
_fn("berth_method_set_max_steps", None, _vp, _u64)
_fn("berth_method_execute", _st, _vp, _D)
_fn("berth_method_output", _st, _vp, _i32, ctypes.POINTER(_vp), ctypes.POINTER(_sz), _D)
_fn("berth_method_output_shape", _st, _vp, _i32, ctypes.POINTER(Type), _D)
_fn("berth_method_reset", None, _vp)
_fn("berth_method_state", _st, _vp, ctypes.c_char_p, ctypes.POINTER(_vp), ctypes.POINTER(_sz), _D)
_fn("berth_method_instr_count", _i32, _vp)
_fn("berth_method_instr_info", _st, _vp, _i32, ctypes.POINTER(InstrInfo), _D)
_fn("berth_profile_attach", _st, _vp, ctypes.POINTER(_vp), _D)
_fn("berth_profile_ns", _u64, _vp, _i32)
_fn("berth_profile_runs", _u64, _vp, _i32)
_fn("berth_profile_detach", None, _vp)
