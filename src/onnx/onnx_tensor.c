/* TensorProto decoding and ONNX's element types.
 *
 * berth's dtypes are bool, 8..64-bit integers, f32 and f64. ONNX's narrow types are held in
 * a wider compute dtype, exactly: float16, bfloat16, the float8 types, float4e2m1 and
 * float8e8m0 in f32; int4, int2 in i8; uint4, uint2 in u8. Decoding widens; a Cast to a
 * narrow type rounds a value to the nearest one the type holds (round half to even, with
 * ONNX's saturation rules) and keeps it in the compute dtype: the narrow_cast kernel's
 * conversion (kernels/kernel_narrow.c), which the boundary conversion shares. */
#include "onnx_internal.h"

#include "base/checked.h"
#include "kernels/kernel_narrow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== element types ================================================================== */

static const struct {
  const char *name;
  int8_t dtype; /* berth dtype or -1 */
  uint8_t bits; /* storage bits per element in raw_data */
} elem_info[BERTH_ONNX_ELEM_COUNT] = {
    [BERTH_ONNX_UNDEFINED] = {"undefined", -1, 0},
    [BERTH_ONNX_FLOAT] = {"float", BERTH_DTYPE_F32, 32},
    [BERTH_ONNX_UINT8] = {"uint8", BERTH_DTYPE_U8, 8},
    [BERTH_ONNX_INT8] = {"int8", BERTH_DTYPE_I8, 8},
    [BERTH_ONNX_UINT16] = {"uint16", BERTH_DTYPE_U16, 16},
    [BERTH_ONNX_INT16] = {"int16", BERTH_DTYPE_I16, 16},
    [BERTH_ONNX_INT32] = {"int32", BERTH_DTYPE_I32, 32},
    [BERTH_ONNX_INT64] = {"int64", BERTH_DTYPE_I64, 64},
    [BERTH_ONNX_STRING] = {"string", -1, 0},
    [BERTH_ONNX_BOOL] = {"bool", BERTH_DTYPE_BOOL, 8},
    [BERTH_ONNX_FLOAT16] = {"float16", BERTH_DTYPE_F32, 16},
    [BERTH_ONNX_DOUBLE] = {"double", BERTH_DTYPE_F64, 64},
    [BERTH_ONNX_UINT32] = {"uint32", BERTH_DTYPE_U32, 32},
    [BERTH_ONNX_UINT64] = {"uint64", BERTH_DTYPE_U64, 64},
    [BERTH_ONNX_COMPLEX64] = {"complex64", -1, 0},
    [BERTH_ONNX_COMPLEX128] = {"complex128", -1, 0},
    [BERTH_ONNX_BFLOAT16] = {"bfloat16", BERTH_DTYPE_F32, 16},
    [BERTH_ONNX_FLOAT8E4M3FN] = {"float8e4m3fn", BERTH_DTYPE_F32, 8},
    [BERTH_ONNX_FLOAT8E4M3FNUZ] = {"float8e4m3fnuz", BERTH_DTYPE_F32, 8},
    [BERTH_ONNX_FLOAT8E5M2] = {"float8e5m2", BERTH_DTYPE_F32, 8},
    [BERTH_ONNX_FLOAT8E5M2FNUZ] = {"float8e5m2fnuz", BERTH_DTYPE_F32, 8},
    [BERTH_ONNX_UINT4] = {"uint4", BERTH_DTYPE_U8, 4},
    [BERTH_ONNX_INT4] = {"int4", BERTH_DTYPE_I8, 4},
    [BERTH_ONNX_FLOAT4E2M1] = {"float4e2m1", BERTH_DTYPE_F32, 4},
    [BERTH_ONNX_FLOAT8E8M0] = {"float8e8m0", BERTH_DTYPE_F32, 8},
    [BERTH_ONNX_UINT2] = {"uint2", BERTH_DTYPE_U8, 2},
    [BERTH_ONNX_INT2] = {"int2", BERTH_DTYPE_I8, 2},
};

bool berth_onnx_elem_dtype(int32_t elem, berth_dtype_t *out) {
  if (elem < 0 || elem >= BERTH_ONNX_ELEM_COUNT || elem_info[elem].dtype < 0) return false;
  *out = (berth_dtype_t)elem_info[elem].dtype;
  return true;
}

const char *berth_onnx_elem_name(int32_t elem) {
  if (elem < 0 || elem >= BERTH_ONNX_ELEM_COUNT) return "unknown";
  return elem_info[elem].name;
}

bool berth_onnx_elem_is_narrow(int32_t elem) {
  switch (elem) {
    case BERTH_ONNX_FLOAT16: case BERTH_ONNX_BFLOAT16: case BERTH_ONNX_FLOAT8E4M3FN:
    case BERTH_ONNX_FLOAT8E4M3FNUZ: case BERTH_ONNX_FLOAT8E5M2: case BERTH_ONNX_FLOAT8E5M2FNUZ:
    case BERTH_ONNX_UINT4: case BERTH_ONNX_INT4: case BERTH_ONNX_FLOAT4E2M1: case BERTH_ONNX_FLOAT8E8M0:
    case BERTH_ONNX_UINT2: case BERTH_ONNX_INT2: return true;
    default: return false;
  }
}

/* ==== small floats ===================================================================
 * A format: exponent and mantissa bits, bias, and how the top codes are used:
 *   IEEE  all-ones exponent is inf (mantissa 0) or NaN (float16, bfloat16, float8e5m2)
 *   FN    only all-ones exponent and mantissa is NaN, no inf (float8e4m3fn)
 *   FNUZ  only the code of -0 (0x80) is NaN, no inf, no -0 (float8e4m3fnuz, float8e5m2fnuz)
 *   NONE  every code is a number (float4e2m1) */
typedef enum { MF_IEEE, MF_FN, MF_FNUZ, MF_NONE } mf_kind_t;
typedef struct mf {
  int ebits, mbits, bias;
  mf_kind_t kind;
} mf_t;

static bool mf_format(int32_t elem, mf_t *f) {
  switch (elem) {
    case BERTH_ONNX_FLOAT16: *f = (mf_t){5, 10, 15, MF_IEEE}; return true;
    case BERTH_ONNX_BFLOAT16: *f = (mf_t){8, 7, 127, MF_IEEE}; return true;
    case BERTH_ONNX_FLOAT8E4M3FN: *f = (mf_t){4, 3, 7, MF_FN}; return true;
    case BERTH_ONNX_FLOAT8E4M3FNUZ: *f = (mf_t){4, 3, 8, MF_FNUZ}; return true;
    case BERTH_ONNX_FLOAT8E5M2: *f = (mf_t){5, 2, 15, MF_IEEE}; return true;
    case BERTH_ONNX_FLOAT8E5M2FNUZ: *f = (mf_t){5, 2, 16, MF_FNUZ}; return true;
    case BERTH_ONNX_FLOAT4E2M1: *f = (mf_t){2, 1, 1, MF_NONE}; return true;
    default: return false;
  }
}

static double mf_decode(const mf_t *f, uint32_t bits) {
  uint32_t emask = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;
  uint32_t sign = (bits >> (f->ebits + f->mbits)) & 1, e = (bits >> f->mbits) & emask, m = bits & mmask;
  if (f->kind == MF_IEEE && e == emask) return m ? NAN : sign ? -INFINITY : INFINITY;
  if (f->kind == MF_FN && e == emask && m == mmask) return NAN;
  if (f->kind == MF_FNUZ && sign && e == 0 && m == 0) return NAN;
  double v = e == 0 ? ldexp((double)m, 1 - f->bias - f->mbits) : ldexp(1.0 + ldexp((double)m, -f->mbits), (int)e - f->bias);
  return sign ? -v : v;
}

static double e8m0_decode(uint32_t bits) { return bits == 0xff ? NAN : ldexp(1.0, (int)bits - 127); }

/* ==== conversions ==================================================================== */

static double load_as_double(berth_dtype_t dt, const void *p, int64_t i) {
  switch (dt) {
    case BERTH_DTYPE_BOOL: return ((const uint8_t *)p)[i] != 0;
    case BERTH_DTYPE_I8: return ((const int8_t *)p)[i];
    case BERTH_DTYPE_U8: return ((const uint8_t *)p)[i];
    case BERTH_DTYPE_I16: return ((const int16_t *)p)[i];
    case BERTH_DTYPE_U16: return ((const uint16_t *)p)[i];
    case BERTH_DTYPE_I32: return ((const int32_t *)p)[i];
    case BERTH_DTYPE_U32: return ((const uint32_t *)p)[i];
    case BERTH_DTYPE_I64: return (double)((const int64_t *)p)[i];
    case BERTH_DTYPE_U64: return (double)((const uint64_t *)p)[i];
    case BERTH_DTYPE_F32: return ((const float *)p)[i];
    case BERTH_DTYPE_F64: return ((const double *)p)[i];
    default: return 0;
  }
}

_Static_assert(BERTH_ONNX_ROUND_UP == (int)BERTH_NARROW_ROUND_UP && BERTH_ONNX_ROUND_DOWN == (int)BERTH_NARROW_ROUND_DOWN &&
                   BERTH_ONNX_ROUND_NEAREST == (int)BERTH_NARROW_ROUND_NEAREST,
               "BERTH_ONNX_ROUND_* are berth_narrow_round_t");

bool ox_narrow_format(int32_t elem, berth_narrow_format_t *out) {
  switch (elem) {
    case BERTH_ONNX_FLOAT16: *out = BERTH_NARROW_F16; return true;
    case BERTH_ONNX_BFLOAT16: *out = BERTH_NARROW_BF16; return true;
    case BERTH_ONNX_FLOAT8E4M3FN: *out = BERTH_NARROW_F8E4M3FN; return true;
    case BERTH_ONNX_FLOAT8E4M3FNUZ: *out = BERTH_NARROW_F8E4M3FNUZ; return true;
    case BERTH_ONNX_FLOAT8E5M2: *out = BERTH_NARROW_F8E5M2; return true;
    case BERTH_ONNX_FLOAT8E5M2FNUZ: *out = BERTH_NARROW_F8E5M2FNUZ; return true;
    case BERTH_ONNX_FLOAT4E2M1: *out = BERTH_NARROW_F4E2M1; return true;
    case BERTH_ONNX_FLOAT8E8M0: *out = BERTH_NARROW_F8E8M0; return true;
    case BERTH_ONNX_INT4: *out = BERTH_NARROW_I4; return true;
    case BERTH_ONNX_UINT4: *out = BERTH_NARROW_U4; return true;
    case BERTH_ONNX_INT2: *out = BERTH_NARROW_I2; return true;
    case BERTH_ONNX_UINT2: *out = BERTH_NARROW_U2; return true;
    default: return false;
  }
}

void berth_onnx_convert_to_elem(berth_dtype_t from, const void *src, int32_t elem, int32_t saturate, int32_t round_mode,
                                void *to, int64_t n) {
  berth_narrow_format_t f;
  if (ox_narrow_format(elem, &f)) {
    if (round_mode < 0 || round_mode >= BERTH_NARROW_ROUND_COUNT) round_mode = BERTH_ONNX_ROUND_UP;
    berth_narrow_convert(f, saturate != 0, (berth_narrow_round_t)round_mode, from, src, to, n);
    return;
  }
  /* a wide type: plain copy or C conversion through double (callers use it for equal types) */
  berth_dtype_t dt;
  if (!berth_onnx_elem_dtype(elem, &dt)) return;
  if (dt == from) {
    memcpy(to, src, (size_t)n * berth_dtype_size(dt));
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    double d = load_as_double(from, src, i);
    switch (dt) {
      case BERTH_DTYPE_F32: ((float *)to)[i] = (float)d; break;
      case BERTH_DTYPE_F64: ((double *)to)[i] = d; break;
      default: break;
    }
  }
}

/* ==== TensorProto ==================================================================== */

/* Element i of a narrow type stored in `bits`-bit codes, widened to its compute dtype. */
static void store_code(int32_t elem, uint32_t code, void *out, int64_t i) {
  mf_t f;
  if (mf_format(elem, &f)) {
    ((float *)out)[i] = (float)mf_decode(&f, code);
  } else if (elem == BERTH_ONNX_FLOAT8E8M0) {
    ((float *)out)[i] = (float)e8m0_decode(code & 0xff);
  } else if (elem == BERTH_ONNX_INT4) {
    ((int8_t *)out)[i] = (int8_t)((int32_t)((code & 0xf) ^ 8) - 8);
  } else if (elem == BERTH_ONNX_INT2) {
    ((int8_t *)out)[i] = (int8_t)((int32_t)((code & 0x3) ^ 2) - 2);
  } else if (elem == BERTH_ONNX_UINT4) {
    ((uint8_t *)out)[i] = (uint8_t)(code & 0xf);
  } else if (elem == BERTH_ONNX_UINT2) {
    ((uint8_t *)out)[i] = (uint8_t)(code & 0x3);
  }
}

static uint64_t read_le(const uint8_t *b, size_t n) {
  uint64_t v = 0;
  for (size_t k = 0; k < n; k++) v |= (uint64_t)b[k] << (8 * k);
  return v;
}

/* Stores an integer or float given as bits (raw_data) into element i of dtype dt. */
static void store_wide(berth_dtype_t dt, uint64_t bits, void *out, int64_t i) {
  switch (dt) {
    case BERTH_DTYPE_BOOL: ((uint8_t *)out)[i] = (uint8_t)(bits != 0); break;
    case BERTH_DTYPE_I8: case BERTH_DTYPE_U8: ((uint8_t *)out)[i] = (uint8_t)bits; break;
    case BERTH_DTYPE_I16: case BERTH_DTYPE_U16: ((uint16_t *)out)[i] = (uint16_t)bits; break;
    case BERTH_DTYPE_I32: case BERTH_DTYPE_U32: case BERTH_DTYPE_F32: ((uint32_t *)out)[i] = (uint32_t)bits; break;
    default: ((uint64_t *)out)[i] = bits; break;
  }
}

/* The values int32_data may hold, one per entry, for element type elem (false: no check,
 * int32 and bool, whose nonzero is true). A narrow float's code is its bit pattern, which
 * writers store zero- or sign-extended. */
static bool int32_range(int32_t elem, int64_t *lo, int64_t *hi) {
  switch (elem) {
    case BERTH_ONNX_INT8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
    case BERTH_ONNX_UINT8: *lo = 0, *hi = UINT8_MAX; return true;
    case BERTH_ONNX_INT16: *lo = INT16_MIN, *hi = INT16_MAX; return true;
    case BERTH_ONNX_UINT16: *lo = 0, *hi = UINT16_MAX; return true;
    default: break;
  }
  unsigned bits = elem >= 0 && elem < BERTH_ONNX_ELEM_COUNT ? elem_info[elem].bits : 0;
  if (!berth_onnx_elem_is_narrow(elem) || bits == 0 || bits > 16) return false;
  if (elem == BERTH_ONNX_INT4 || elem == BERTH_ONNX_INT2) *lo = -((int64_t)1 << (bits - 1)), *hi = ((int64_t)1 << (bits - 1)) - 1;
  else if (elem == BERTH_ONNX_UINT4 || elem == BERTH_ONNX_UINT2) *lo = 0, *hi = ((int64_t)1 << bits) - 1;
  else *lo = -((int64_t)1 << (bits - 1)), *hi = ((int64_t)1 << bits) - 1;
  return true;
}

/* The type of t (element type elem, berth dtype dt): its storage must be inline and whole,
 * its rank and dims within berth's caps. */
static berth_status_t tensor_type(const Onnx__TensorProto *t, const char *name, berth_dtype_t dt, berth_type_t *out,
                                  berth_diag_t *diag) {
  if ((t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) || t->n_external_data)
    return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED,
                      "tensor '%s' keeps its data in an external file, which berth does not support (save the model "
                      "with its data inside)", name);
  if (t->segment) return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "tensor '%s' is segmented, which berth does not support", name);
  if (t->n_dims > BERTH_MAX_RANK)
    return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "tensor '%s' has rank %zu; berth supports at most %d", name,
                      t->n_dims, BERTH_MAX_RANK);
  berth_type_t type;
  memset(&type, 0, sizeof type);
  type.dtype = dt;
  type.rank = (int32_t)t->n_dims;
  for (size_t k = 0; k < t->n_dims; k++) {
    if (t->dims[k] < 0 || t->dims[k] > BERTH_MAX_DIM)
      return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "tensor '%s' has dim %zu = %lld, expected 0..%lld", name, k,
                        (long long)t->dims[k], (long long)BERTH_MAX_DIM);
    type.dims[k] = t->dims[k];
  }
  if (!berth_type_check(&type))
    return berth_fail(diag, BERTH_ERR_OUT_OF_RANGE, "tensor '%s' is larger than berth's cap of %lld bytes", name,
                      (long long)BERTH_MAX_TENSOR_BYTES);
  *out = type;
  return BERTH_OK;
}

/* The data fields disagree with the tensor's type: a corrupt file. */
#define BAD(...) return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, __VA_ARGS__)

/* The n values of t's raw_data (little-endian, sub-byte types packed) into out. */
static berth_status_t decode_raw(const Onnx__TensorProto *t, const char *name, int32_t elem, berth_dtype_t dt, int64_t n,
                                 void *out, berth_diag_t *diag) {
  unsigned bits = elem_info[elem].bits;
  bool narrow = berth_onnx_elem_is_narrow(elem);
  uint64_t need = bits >= 8 ? (uint64_t)n * (bits / 8) : ((uint64_t)n * bits + 7) / 8;
  if (t->raw_data.len != need)
    BAD("tensor '%s': raw_data has %zu bytes, expected %llu for %lld %s values", name, t->raw_data.len,
        (unsigned long long)need, (long long)n, berth_onnx_elem_name(elem));
  const uint8_t *r = t->raw_data.data;
  for (int64_t i = 0; i < n; i++) {
    if (bits >= 8) {
      uint64_t v = read_le(r + (size_t)i * (bits / 8), bits / 8);
      if (narrow) store_code(elem, (uint32_t)v, out, i);
      else store_wide(dt, v, out, i);
    } else {
      uint64_t bit = (uint64_t)i * bits;
      uint32_t code = (r[bit / 8] >> (bit % 8)) & ((1u << bits) - 1);
      store_code(elem, code, out, i);
    }
  }
  return BERTH_OK;
}

/* The n values of t's int32_data (one element per entry, or 8 / bits elements packed in
 * each) into out. */
static berth_status_t decode_int32_data(const Onnx__TensorProto *t, const char *name, int32_t elem, berth_dtype_t dt,
                                        int64_t n, void *out, berth_diag_t *diag) {
  unsigned bits = elem_info[elem].bits;
  bool narrow = berth_onnx_elem_is_narrow(elem);
  /* int32_data: one element per value, or 8 / bits elements packed in each */
  uint32_t per = bits < 8 ? 8 / bits : 1;
  size_t want = (size_t)((n + per - 1) / per);
  if (t->n_int32_data == want) {
    /* one value per entry: it must be one of the type (an int8 of 300 is corrupt, not
     * 44); a narrow float's code may be stored sign-extended */
    int64_t lo = 0, hi = 0;
    if (per == 1 && int32_range(elem, &lo, &hi))
      for (int64_t i = 0; i < n; i++)
        if (t->int32_data[i] < lo || t->int32_data[i] > hi)
          BAD("tensor '%s': int32_data[%lld] is %d, which is no %s value", name, (long long)i,
              (int)t->int32_data[i], berth_onnx_elem_name(elem));
    for (int64_t i = 0; i < n; i++) {
      uint32_t word = (uint32_t)t->int32_data[i / per];
      uint32_t code = per > 1 ? (word >> ((i % per) * bits)) & ((1u << bits) - 1) : word;
      if (narrow) store_code(elem, code, out, i);
      else store_wide(dt, (uint64_t)(int64_t)t->int32_data[i], out, i);
    }
  } else if (per > 1 && t->n_int32_data == (size_t)n) {
    int64_t lo = -((int64_t)1 << (bits - 1)), hi = ((int64_t)1 << bits) - 1;
    for (int64_t i = 0; i < n; i++) {
      if (t->int32_data[i] < lo || t->int32_data[i] > hi)
        BAD("tensor '%s': int32_data[%lld] is %d, which is no %s code", name, (long long)i, (int)t->int32_data[i],
            berth_onnx_elem_name(elem));
      store_code(elem, (uint32_t)t->int32_data[i], out, i);
    }
  } else {
    BAD("tensor '%s': int32_data has %zu values, expected %zu for %lld %s values", name, t->n_int32_data, want,
        (long long)n, berth_onnx_elem_name(elem));
  }
  return BERTH_OK;
}

/* The n values of t's typed data field for elem into out (bytes of them). */
static berth_status_t decode_typed(const Onnx__TensorProto *t, const char *name, int32_t elem, berth_dtype_t dt, int64_t n,
                                   void *out, size_t bytes, berth_diag_t *diag) {
  switch (elem) {
    case BERTH_ONNX_FLOAT:
      if (t->n_float_data != (size_t)n) BAD("tensor '%s': float_data has %zu values, expected %lld", name, t->n_float_data, (long long)n);
      memcpy(out, t->float_data, bytes);
      break;
    case BERTH_ONNX_DOUBLE:
      if (t->n_double_data != (size_t)n) BAD("tensor '%s': double_data has %zu values, expected %lld", name, t->n_double_data, (long long)n);
      memcpy(out, t->double_data, bytes);
      break;
    case BERTH_ONNX_INT64:
      if (t->n_int64_data != (size_t)n) BAD("tensor '%s': int64_data has %zu values, expected %lld", name, t->n_int64_data, (long long)n);
      memcpy(out, t->int64_data, bytes);
      break;
    case BERTH_ONNX_UINT32:
    case BERTH_ONNX_UINT64:
      if (t->n_uint64_data != (size_t)n) BAD("tensor '%s': uint64_data has %zu values, expected %lld", name, t->n_uint64_data, (long long)n);
      for (int64_t i = 0; i < n; i++) {
        if (elem == BERTH_ONNX_UINT32 && t->uint64_data[i] > UINT32_MAX)
          BAD("tensor '%s': uint64_data[%lld] is %llu, which is no uint32 value", name, (long long)i,
              (unsigned long long)t->uint64_data[i]);
        store_wide(dt, t->uint64_data[i], out, i);
      }
      break;
    default: return decode_int32_data(t, name, elem, dt, n, out, diag);
  }
  return BERTH_OK;
}
#undef BAD

berth_status_t ox_tensor_decode(const Onnx__TensorProto *t, int32_t *elem_out, berth_type_t *type_out, void **data_out,
                                berth_diag_t *diag) {
  const char *name = t->name ? t->name : "";
  int32_t elem = t->has_data_type ? t->data_type : BERTH_ONNX_UNDEFINED;
  berth_dtype_t dt;
  if (!berth_onnx_elem_dtype(elem, &dt))
    return berth_fail(diag, BERTH_ERR_UNIMPLEMENTED, "tensor '%s' has element type %s (%d), which berth does not support",
                      name, berth_onnx_elem_name(elem), (int)elem);
  berth_type_t type;
  OX_TRY(tensor_type(t, name, dt, &type, diag));
  int64_t n = berth_type_numel(&type);
  size_t bytes = berth_type_bytes(&type);
  /* Before allocating: the file must hold data for the values its dims declare (a few bytes
   * of file must not make the importer allocate gigabytes). Every value takes at least two
   * bits of raw_data, or one entry of a typed field, which packs at most eight 4-bit or
   * sixteen 2-bit values in one int32; the exact count is checked below. */
  uint64_t held = (uint64_t)t->raw_data.len * 4 + (uint64_t)t->n_float_data + (uint64_t)t->n_double_data +
                  (uint64_t)t->n_int64_data + (uint64_t)t->n_uint64_data + (uint64_t)t->n_int32_data * 16;
  if ((uint64_t)n > held)
    return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "tensor '%s' declares %lld values but holds data for at most %llu",
                      name, (long long)n, (unsigned long long)held);
  void *out = malloc(bytes ? bytes : 1);
  if (!out) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "tensor '%s': out of memory (%zu bytes)", name, bytes);
  memset(out, 0, bytes ? bytes : 1);
  berth_status_t st = BERTH_OK;
  if (t->has_raw_data && (t->raw_data.len > 0 || n == 0)) st = decode_raw(t, name, elem, dt, n, out, diag);
  else if (n > 0) st = decode_typed(t, name, elem, dt, n, out, bytes, diag);
  if (st) {
    free(out);
    return st;
  }
  *elem_out = elem;
  *type_out = type;
  *data_out = out;
  return BERTH_OK;
}

berth_status_t berth_onnx_tensor_parse(const void *bytes, size_t len, berth_onnx_tensor_t *out, berth_diag_t *diag) {
  memset(out, 0, sizeof *out);
  berth_status_t st = ox_wire_check_tensor((const uint8_t *)bytes, len, diag);
  if (st) return st;
  Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, (const uint8_t *)bytes);
  if (!t) return berth_fail(diag, BERTH_ERR_CORRUPT_DATA, "not a TensorProto (protobuf decoding failed)");
  st = ox_tensor_decode(t, &out->elem, &out->type, &out->data, diag);
  if (st == BERTH_OK && t->name) {
    size_t n = strlen(t->name);
    out->name = malloc(n + 1);
    if (out->name) memcpy(out->name, t->name, n + 1);
  }
  onnx__tensor_proto__free_unpacked(t, NULL);
  if (st) berth_diag_one_line(diag); /* a name in the file may hold newlines */
  return st;
}

void berth_onnx_tensor_deinit(berth_onnx_tensor_t *t) {
  if (!t) return;
  free(t->data);
  free(t->name);
  memset(t, 0, sizeof *t);
}
