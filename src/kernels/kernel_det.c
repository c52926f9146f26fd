/* det(x) -> (y, work): ONNX Det. The determinant of each square matrix in the last two dims
 * of x (f32 or f64; y has x's dtype and its leading dims), by LU decomposition with partial
 * pivoting in f64. `work` (f64[n, n]) is the kernel's scratch, an output only because a
 * kernel allocates nothing; the ONNX importer drops it. */
#include "kernel_util.h"

#include <math.h>
#include <string.h>

static berth_status_t det_infer(const berth_attr_value_t *attrs, const berth_type_t *in, int32_t n_in, berth_type_t *out,
                                berth_diag_t *diag) {
  (void)attrs;
  BERTH_TRY(berth_kernel_check_inputs(&berth_op_def_det, in, n_in, diag));
  BERTH_TRY(berth_kernel_check_dtype("det", 0, in[0].dtype, BERTH_MASK_FLOAT, diag));
  const berth_type_t *x = &in[0];
  char a[160];
  if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "det: input %s, expected square matrices in the last two dims",
                      berth_type_format(x, a, sizeof a));
  berth_kernel_type_init(&out[0], x->dtype, x->rank - 2);
  memcpy(out[0].dims, x->dims, (size_t)(x->rank - 2) * sizeof x->dims[0]);
  berth_kernel_type_init(&out[1], BERTH_DTYPE_F64, 2);
  out[1].dims[0] = out[1].dims[1] = x->dims[x->rank - 1];
  BERTH_TRY(berth_kernel_check_output("det", &out[0], diag));
  return berth_kernel_check_output("det", &out[1], diag);
}

/* The determinant of the n x n matrix in m (destroyed). */
static double lu_det(double *m, int64_t n) {
  double det = 1;
  for (int64_t c = 0; c < n; c++) {
    int64_t p = c;
    for (int64_t r = c + 1; r < n; r++)
      if (fabs(m[r * n + c]) > fabs(m[p * n + c])) p = r;
    if (m[p * n + c] == 0) return 0; /* singular (a NaN pivot falls through and propagates) */
    if (p != c) {
      for (int64_t j = 0; j < n; j++) {
        double t = m[c * n + j];
        m[c * n + j] = m[p * n + j];
        m[p * n + j] = t;
      }
      det = -det;
    }
    double piv = m[c * n + c];
    det *= piv;
    for (int64_t r = c + 1; r < n; r++) {
      double f = m[r * n + c] / piv;
      if (f == 0) continue;
      for (int64_t j = c + 1; j < n; j++) m[r * n + j] -= f * m[c * n + j];
    }
  }
  return det;
}

static void det_run(const berth_kernel_call_t *call) {
  const berth_type_t *x = call->in[0].type;
  int64_t count = berth_type_numel(call->out[0].type), n = x->dims[x->rank - 1], nn = n * n;
  double *w = (double *)call->out[1].data;
  for (int64_t b = 0; b < count; b++) {
    if (x->dtype == BERTH_DTYPE_F32) {
      const float *src = (const float *)call->in[0].data + b * nn;
      for (int64_t i = 0; i < nn; i++) w[i] = src[i];
      ((float *)call->out[0].data)[b] = (float)lu_det(w, n);
    } else {
      const double *src = (const double *)call->in[0].data + b * nn;
      for (int64_t i = 0; i < nn; i++) w[i] = src[i];
      ((double *)call->out[0].data)[b] = lu_det(w, n);
    }
  }
}

const berth_op_def_t berth_op_def_det = {"det", BERTH_OPKIND_KERNEL, 1, 1, 2, 0, NULL, det_infer, det_run};
