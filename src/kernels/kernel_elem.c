/* Element comparison shared by the Unique kernel and the ONNX importer (kernel_elem.h). */
#include "kernel_elem.h"

int berth_elem_cmp(berth_dtype_t dt, const void *x, int64_t i, int64_t j) {
  switch (dt) {
#define CMP_INT(E, T)                                     \
  case BERTH_DTYPE_##E: {                                 \
    T a = ((const T *)x)[i], b = ((const T *)x)[j];       \
    return a < b ? -1 : a > b;                            \
  }
    CMP_INT(BOOL, uint8_t) CMP_INT(I8, int8_t) CMP_INT(U8, uint8_t) CMP_INT(I16, int16_t) CMP_INT(U16, uint16_t)
    CMP_INT(I32, int32_t) CMP_INT(U32, uint32_t) CMP_INT(I64, int64_t) CMP_INT(U64, uint64_t)
#undef CMP_INT
    default: {
      double a = dt == BERTH_DTYPE_F32 ? ((const float *)x)[i] : ((const double *)x)[i];
      double b = dt == BERTH_DTYPE_F32 ? ((const float *)x)[j] : ((const double *)x)[j];
      if (a != a || b != b) return (a != a) - (b != b);
      return a < b ? -1 : a > b;
    }
  }
}
