/* bench/ort_compare: berth against native onnxruntime (its C API, loaded with dlopen), one
 * thread, side by side in one process. A program that prints tables, not a test.
 *
 *   bench/ort_compare [--rounds N] [--calls N] [--only TEXT] [--no-zoo] [--no-real] [--no-layers] [--no-kernels] [--plain-layout]
 *                     [--direct-3x3]
 *
 * Contenders: berth (the model compiled with `berth compile`, run by libberth_runtime with
 * the kernel variant BERTH_KERNELS picks, default the widest this CPU has) and onnxruntime
 * (build/vad-deps/node_modules/onnxruntime-node/.../libonnxruntime.so.1; 1 intra-op and 1
 * inter-op thread, sequential execution, ORT_ENABLE_ALL, inputs and outputs bound once
 * over fixed buffers). When the library or the C API headers are absent the program says
 * so and times berth alone.
 *
 * Models: Silero VAD v5 in its three configurations (16 kHz / 512 with the rate folded, the
 * both-rate program at 8 kHz / 256 and 16 kHz / 256) and the light model-zoo networks of
 * ../shared/data/onnx-backend-tests/light-tests that berth imports. Same random inputs for
 * both (Silero: audio in [-0.5, 0.5], zero state). Each round times --calls runs of berth,
 * then of onnxruntime (interleaved, after one warm-up call each, and each round after one
 * untimed call of its contender); only execute / Run is
 * timed. Printed: min and median per call, the ratio of the medians, the largest absolute
 * difference between the two first outputs, and the growth of the resident set while each
 * contender was set up and first run (both share a process, so a per-contender peak RSS is
 * this growth; the process's peak is printed at the end). Then the time to the first result
 * (CPU time): berth's load of its compiled program (file read, checksum, every field checked,
 * the plan verified, a method initialised) and first call, onnxruntime's CreateSession (the
 * ONNX file read, the graph optimised, weights prepacked) and first Run; berth's compile step
 * runs ahead of time and is not counted, as it would not be on a device.
 *
 * Conv layers: the ResNet-50 and SqueezeNet shapes of the kernel classes as one-node ONNX
 * models (written here, weights an initializer), berth against onnxruntime like the networks
 * above; then the pooling layers of the zoo CNNs (MaxPool, AveragePool) the same way. The
 * one-node models compile with --alloc-inputs 0: berth reads the caller's input in place, as
 * onnxruntime reads its bound OrtValue, so a row times the kernel and not a copy of its input
 * into the arena (a 3.2 MB copy was a tenth of the 1x1 256->64 56x56 row; inside a network a
 * layer's input is its producer's output, never copied).
 *
 * Kernel classes: one-op programs (large conv 3x3 and 1x1, depthwise conv, matmul, gemm, a
 * Silero-sized LSTM step) timed the same way, as GFLOP/s and as a fraction of this core's
 * FP32 peak, measured in the same run by a register-blocked FMA loop (AVX-512 or AVX2, the
 * widest the CPU has). Times are the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so
 * that waiting for a core on a shared machine does not count; caches are still shared, so
 * rerun when the machine is quiet. */
#define _GNU_SOURCE
#include <berth/kernels.h>
#include <berth/memory.h>
#include <berth/runtime.h>

#include "onnx_one_node.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#if BERTH_HAVE_ORT_HEADER
#include <onnxruntime_c_api.h>
#endif

#define ROOT BERTH_SOURCE_DIR
#define SILERO ROOT "/build/vad-deps/node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx"
#define ZOO BERTH_DATA_DIR "/onnx-backend-tests/light-tests"
#define MAX_IO 8
/* the one-node layer models: the input read in place (see the header) */
#define LAYER_SPECS "--alloc-inputs 0"

/* CPU time of this thread: on a shared machine, time spent waiting for a core does not
 * count (onnxruntime with one intra-op thread runs in the calling thread too). */
static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}
static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double rss_mb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, rss = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
    fclose(f);
  }
  return (double)rss * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float rndf(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((rng >> 40) & 0xFFFFFF) / 16777216.0f - 0.5f;
}

/* ---- berth: compile with the tool, load, bind once ---------------------------------- */

typedef struct bprog {
  void *bytes, *pmem, *mmem;
  berth_program_t *prog;
  berth_method_t *m;
  int32_t n_in, n_out;
  berth_tensor_info_t in[MAX_IO], out[MAX_IO];
  void *out_buf[MAX_IO];
  double rss_growth;
  double load_us; /* the file read, checked, loaded and a method initialised (CPU time) */
} bprog_t;

static void *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = n < 0 ? NULL : berth_host_alloc((size_t)n + 64); /* the weights on huge pages, as the tool loads them */
  if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return p;
}

static int g_plain_layout; /* --plain-layout: compile every conv in plain NCHW (to measure the layout) */
static int g_direct_3x3;   /* --direct-3x3: blocked 3x3 convs direct, not by Winograd (to measure it) */

/* `berth compile SRC -o OUT SPECS`; 0 on success (else the tool's first lines are printed) */
static int berth_compile(const char *src, const char *specs, const char *out) {
  char cmd[4096], log[256];
  snprintf(log, sizeof log, "%s.log", out);
  snprintf(cmd, sizeof cmd, "'%s' compile '%s' -o '%s' %s%s%s > '%s' 2>&1", BERTH_TOOL, src, out, specs,
           g_plain_layout ? " --plain-layout" : "", g_direct_3x3 ? " --direct-3x3" : "", log);
  int rc = system(cmd);
  if (rc != 0) {
    FILE *f = fopen(log, "r");
    char line[512];
    for (int i = 0; f && i < 3 && fgets(line, sizeof line, f); i++) printf("    berth compile: %s", line);
    if (f) fclose(f);
  }
  unlink(log);
  return rc != 0 || access(out, R_OK) != 0;
}

static int bprog_load(bprog_t *b, const char *path) {
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  size_t len;
  memset(b, 0, sizeof *b);
  double r0 = rss_mb(), t0 = now_us();
  b->bytes = read_all(path, &len);
  berth_program_sizes_t sz;
  if (!b->bytes || berth_program_query(b->bytes, len, &sz, &diag)) goto fail;
  b->pmem = malloc(sz.program_bytes);
  void *scratch = malloc(sz.scratch_bytes ? sz.scratch_bytes : 1);
  if (berth_program_load(b->bytes, len, b->pmem, sz.program_bytes, scratch, sz.scratch_bytes, &b->prog, &diag)) goto fail;
  free(scratch);
  int32_t m = berth_program_method_find(b->prog, "forward");
  if (m < 0) m = 0;
  size_t need = berth_method_memory_size(b->prog, m);
  b->mmem = berth_host_alloc(need);
  if (berth_method_init(b->prog, m, b->mmem, need, NULL, 0, &b->m, &diag)) goto fail;
  b->n_in = berth_program_input_count(b->prog, m);
  b->n_out = berth_program_output_count(b->prog, m);
  if (b->n_in > MAX_IO || b->n_out > MAX_IO) {
    snprintf(msg, sizeof msg, "more than %d inputs or outputs", MAX_IO);
    goto fail;
  }
  for (int32_t i = 0; i < b->n_in; i++) berth_program_input_info(b->prog, m, i, &b->in[i]);
  for (int32_t j = 0; j < b->n_out; j++) {
    berth_program_output_info(b->prog, m, j, &b->out[j]);
    if (!berth_program_outputs_planned(b->prog)) {
      b->out_buf[j] = aligned_alloc(64, (b->out[j].bytes + 63) / 64 * 64 + 64);
      if (berth_method_set_output(b->m, j, b->out_buf[j], b->out[j].bytes, &diag)) goto fail;
    }
  }
  b->rss_growth = rss_mb() - r0;
  b->load_us = now_us() - t0;
  return 0;
fail:
  printf("    berth: %s: %s\n", path, msg);
  return 1;
}

/* binds the inputs (planned inputs are copied, so they are bound before every call) */
static int bprog_run(bprog_t *b, void *const *data) {
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  for (int32_t i = 0; i < b->n_in; i++)
    if (berth_method_set_input(b->m, i, data[i], b->in[i].bytes, &diag)) goto fail;
  if (berth_method_execute(b->m, &diag)) goto fail;
  return 0;
fail:
  printf("    berth: %s\n", msg);
  return 1;
}
static const float *bprog_out0(bprog_t *b) {
  const void *p = NULL;
  berth_method_output(b->m, 0, &p, NULL, NULL); /* after a successful execute: cannot fail */
  return (const float *)p;
}

/* ---- onnxruntime through its C API ----------------------------------------------------- */

#if BERTH_HAVE_ORT_HEADER
static const OrtApi *ort;
static OrtEnv *ort_env;
static OrtMemoryInfo *ort_mem;

static int ort_ok(OrtStatus *s, const char *what) {
  if (!s) return 1;
  printf("    onnxruntime: %s: %s\n", what, ort->GetErrorMessage(s));
  ort->ReleaseStatus(s);
  return 0;
}

static int ort_open(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s", ROOT "/build/vad-deps/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1");
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("onnxruntime: not found (%s), timing berth alone\n", dlerror());
    return 0;
  }
  const OrtApiBase *(*get_base)(void) = (const OrtApiBase *(*)(void))dlsym(h, "OrtGetApiBase");
  if (!get_base || !(ort = get_base()->GetApi(ORT_API_VERSION))) {
    printf("onnxruntime: %s lacks API version %d, timing berth alone\n", path, ORT_API_VERSION);
    return 0;
  }
  printf("onnxruntime: %s (version %s), 1 intra-op + 1 inter-op thread, sequential, ENABLE_ALL\n", path,
         get_base()->GetVersionString());
  if (!ort_ok(ort->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "bench", &ort_env), "CreateEnv") ||
      !ort_ok(ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &ort_mem), "CreateCpuMemoryInfo")) {
    ort = NULL;
    return 0;
  }
  return 1;
}

typedef struct osess {
  OrtSession *s;
  size_t n_in, n_out;
  char *in_names[MAX_IO], *out_names[MAX_IO];
  OrtValue *in[MAX_IO], *out[MAX_IO];
  double rss_growth;
  double load_us; /* CreateSession: the model read, optimised and its weights prepacked (CPU time) */
} osess_t;

/* binds the inputs to berth's buffers by name and the outputs to fresh buffers shaped like berth's */
static int osess_open(osess_t *o, const char *model, const bprog_t *b, void *const *bdata,
                      const char *extra_name, int64_t *extra_i64, float **out0) {
  memset(o, 0, sizeof *o);
  double r0 = rss_mb(), t0 = now_us();
  OrtSessionOptions *so;
  if (!ort_ok(ort->CreateSessionOptions(&so), "CreateSessionOptions")) return 1;
  int ok = ort_ok(ort->SetIntraOpNumThreads(so, 1), "SetIntraOpNumThreads") &&
           ort_ok(ort->SetInterOpNumThreads(so, 1), "SetInterOpNumThreads") &&
           ort_ok(ort->SetSessionExecutionMode(so, ORT_SEQUENTIAL), "SetSessionExecutionMode") &&
           ort_ok(ort->SetSessionGraphOptimizationLevel(so, ORT_ENABLE_ALL), "SetSessionGraphOptimizationLevel") &&
           ort_ok(ort->CreateSession(ort_env, model, so, &o->s), "CreateSession");
  ort->ReleaseSessionOptions(so);
  if (!ok) return 1;
  o->load_us = now_us() - t0;
  OrtAllocator *al;
  if (!ort_ok(ort->GetAllocatorWithDefaultOptions(&al), "GetAllocatorWithDefaultOptions") ||
      !ort_ok(ort->SessionGetInputCount(o->s, &o->n_in), "SessionGetInputCount") ||
      !ort_ok(ort->SessionGetOutputCount(o->s, &o->n_out), "SessionGetOutputCount"))
    return 1;
  if (o->n_in > MAX_IO || o->n_out > MAX_IO) return 1;
  for (size_t i = 0; i < o->n_in; i++) {
    if (!ort_ok(ort->SessionGetInputName(o->s, i, al, &o->in_names[i]), "SessionGetInputName")) return 1;
    int found = 0;
    for (int32_t k = 0; k < b->n_in; k++)
      if (strcmp(b->in[k].name, o->in_names[i]) == 0) {
        const berth_type_t *t = &b->in[k].type;
        ONNXTensorElementDataType et = t->dtype == BERTH_DTYPE_I64 ? ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64
                                                                   : ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
        if (!ort_ok(ort->CreateTensorWithDataAsOrtValue(ort_mem, bdata[k], b->in[k].bytes, t->dims, (size_t)t->rank,
                                                        et, &o->in[i]),
                    "CreateTensorWithDataAsOrtValue"))
          return 1;
        found = 1;
      }
    if (!found && extra_name && strcmp(extra_name, o->in_names[i]) == 0) { /* folded into berth's program */
      if (!ort_ok(ort->CreateTensorWithDataAsOrtValue(ort_mem, extra_i64, sizeof *extra_i64, NULL, 0,
                                                      ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &o->in[i]),
                  "CreateTensorWithDataAsOrtValue"))
        return 1;
      found = 1;
    }
    if (!found) {
      printf("    onnxruntime: input %s has no berth counterpart\n", o->in_names[i]);
      return 1;
    }
  }
  for (size_t j = 0; j < o->n_out; j++) {
    if (!ort_ok(ort->SessionGetOutputName(o->s, j, al, &o->out_names[j]), "SessionGetOutputName")) return 1;
    if ((int32_t)j >= b->n_out) return 1;
    const berth_type_t *t = &b->out[j].type;
    float *buf = aligned_alloc(64, (b->out[j].bytes + 63) / 64 * 64 + 64);
    if (j == 0) *out0 = buf;
    if (!ort_ok(ort->CreateTensorWithDataAsOrtValue(ort_mem, buf, b->out[j].bytes, t->dims, (size_t)t->rank,
                                                    ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &o->out[j]),
                "CreateTensorWithDataAsOrtValue"))
      return 1;
  }
  o->rss_growth = rss_mb() - r0;
  return 0;
}
static int osess_run(osess_t *o) {
  return ort_ok(ort->Run(o->s, NULL, (const char *const *)o->in_names, (const OrtValue *const *)o->in, o->n_in,
                         (const char *const *)o->out_names, o->n_out, o->out),
                "Run")
             ? 0
             : 1;
}
#else
static int ort_open(void) {
  printf("onnxruntime: the C API headers were absent at build time (../shared/reference/onnxruntime-c-api), "
         "timing berth alone\n");
  return 0;
}
#endif

/* ---- one model, both contenders ------------------------------------------------------- */

typedef struct stats {
  double min, med;
} stats_t;
static stats_t summarize(double *t, size_t n) {
  qsort(t, n, sizeof *t, cmp_d);
  stats_t s = {n ? t[0] : 0, n ? t[n / 2] : 0};
  return s;
}

static int g_rounds = 5, g_calls = 200, g_have_ort;

/* Times one model. specs: the tool's --input options; fill(k, info, buf) fills input k. */
static void bench_model(const char *label, const char *onnx, const char *specs, const char *folded_name,
                        int64_t folded_value, void (*fill)(int32_t, const berth_tensor_info_t *, void *),
                        int calls) {
  char out[512];
  snprintf(out, sizeof out, "/tmp/berth_ort_compare_%d.berth", (int)getpid());
  printf("%s\n", label);
  fflush(stdout);
  if (berth_compile(onnx, specs, out)) {
    printf("    (berth cannot compile it: skipped)\n");
    return;
  }
  bprog_t b;
  int bad = bprog_load(&b, out);
  unlink(out);
  if (bad) return;
  void *data[MAX_IO];
  for (int32_t k = 0; k < b.n_in; k++) {
    data[k] = aligned_alloc(64, (b.in[k].bytes + 63) / 64 * 64 + 64);
    fill(k, &b.in[k], data[k]);
  }
  double r0 = rss_mb(), t0 = now_us();
  if (bprog_run(&b, data)) return;
  const double b_first = now_us() - t0;
  b.rss_growth += rss_mb() - r0;
  int use_ort = 0;
  float *ort_out0 = NULL;
  double o_first = 0, o_load = 0;
#if BERTH_HAVE_ORT_HEADER
  osess_t o;
  if (g_have_ort) {
    use_ort = !osess_open(&o, onnx, &b, data, folded_name, &folded_value, &ort_out0);
    if (use_ort) {
      r0 = rss_mb(), t0 = now_us();
      use_ort = !osess_run(&o);
      o_first = now_us() - t0, o_load = o.load_us;
      o.rss_growth += rss_mb() - r0;
    }
  }
#else
  (void)folded_name;
  (void)folded_value;
#endif
  size_t n = (size_t)g_rounds * (size_t)calls;
  double *tb = malloc(n * sizeof *tb), *to = malloc(n * sizeof *to);
  size_t nb = 0, no = 0;
  /* each round starts with one untimed call per contender: the first call after the other
   * contender's round finds the caches and TLBs holding the other's data (onnxruntime's
   * first ResNet-50 call after berth's round took 170-215 ms against 100-140 for the next,
   * without a page fault), and a program run again and again, as an application runs it,
   * does not */
  for (int r = 0; r < g_rounds; r++) {
    if (bprog_run(&b, data)) return;
    for (int c = 0; c < calls; c++) {
      double t0 = now_us();
      if (bprog_run(&b, data)) return;
      tb[nb++] = now_us() - t0;
    }
#if BERTH_HAVE_ORT_HEADER
    if (use_ort && osess_run(&o)) return;
    if (use_ort)
      for (int c = 0; c < calls; c++) {
        double t0 = now_us();
        if (osess_run(&o)) return;
        to[no++] = now_us() - t0;
      }
#endif
  }
  stats_t sb = summarize(tb, nb);
  printf("    berth (%s)   min %10.1f us  median %10.1f us   RSS +%.1f MB\n",
         berth_kernels_isa_name(berth_kernels_active()), sb.min, sb.med, b.rss_growth);
  if (use_ort) {
    stats_t so = summarize(to, no);
    const float *bo = bprog_out0(&b);
    double diff = 0;
    size_t cnt = b.out[0].bytes / sizeof(float);
    for (size_t i = 0; i < cnt; i++) { /* equal infinities and NaN against NaN agree; NaN against a number: NaN */
      const bool same = bo[i] == ort_out0[i] || (bo[i] != bo[i] && ort_out0[i] != ort_out0[i]);
      double d = same ? 0.0 : fabs((double)bo[i] - ort_out0[i]);
      if (d > diff || d != d) diff = d;
    }
#if BERTH_HAVE_ORT_HEADER
    printf("    onnxruntime  min %10.1f us  median %10.1f us   RSS +%.1f MB\n", so.min, so.med, o.rss_growth);
#endif
    printf("    ratio berth / onnxruntime: min %.2f, median %.2f; output 0 max |diff| %.3g over %zu values\n",
           sb.min / so.min, sb.med / so.med, diff, cnt);
    printf("    to the first result: berth %.1f ms load + %.1f ms first call, onnxruntime %.1f ms session + %.1f ms "
           "first call\n",
           b.load_us / 1e3, b_first / 1e3, o_load / 1e3, o_first / 1e3);
  }
  fflush(stdout);
  free(tb);
  free(to);
}

static int silero_rate;
static void fill_silero(int32_t k, const berth_tensor_info_t *info, void *buf) {
  if (strcmp(info->name, "sr") == 0) {
    *(int64_t *)buf = silero_rate;
    return;
  }
  size_t n = info->bytes / sizeof(float);
  for (size_t i = 0; i < n; i++) ((float *)buf)[i] = strcmp(info->name, "state") == 0 ? 0.0f : rndf();
}
static void fill_random(int32_t k, const berth_tensor_info_t *info, void *buf) {
  size_t n = info->bytes / sizeof(float);
  if (info->type.dtype == BERTH_DTYPE_F32)
    for (size_t i = 0; i < n; i++) ((float *)buf)[i] = rndf();
  else
    memset(buf, 0, info->bytes);
}

/* ---- kernel classes and peak ---------------------------------------------------------- */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
typedef float v16 __attribute__((vector_size(64)));
typedef float v8 __attribute__((vector_size(32)));
/* 12 independent FMA chains in registers (more than latency x ports), no loads: the FP32
 * peak. Named variables, not an array: an array stays in memory at -O2. */
#define PEAK_FN(name, V, TGT)                                                                  \
  __attribute__((target(TGT), noinline)) static double name(long iters) {                     \
    V m = (V){0} + 0.999999f, c = (V){0} + 1e-7f;                                              \
    V a0 = m, a1 = a0 + c, a2 = a1 + c, a3 = a2 + c, a4 = a3 + c, a5 = a4 + c, a6 = a5 + c,    \
      a7 = a6 + c, a8 = a7 + c, a9 = a8 + c, a10 = a9 + c, a11 = a10 + c;                      \
    for (long k = 0; k < iters; k++) {                                                         \
      a0 = a0 * m + c, a1 = a1 * m + c, a2 = a2 * m + c, a3 = a3 * m + c;                      \
      a4 = a4 * m + c, a5 = a5 * m + c, a6 = a6 * m + c, a7 = a7 * m + c;                      \
      a8 = a8 * m + c, a9 = a9 * m + c, a10 = a10 * m + c, a11 = a11 * m + c;                  \
    }                                                                                          \
    V s = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11));       \
    return (double)s[0];                                                                       \
  }
PEAK_FN(peak512, v16, "avx512f,fma")
PEAK_FN(peak256, v8, "avx2,fma")
static double measure_peak(const char **what) {
  int wide = __builtin_cpu_supports("avx512f");
  if (!wide && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return 0;
  *what = wide ? "AVX-512 FMA" : "AVX2 FMA";
  const long iters = 2000000;
  const double flops = (double)iters * 12 * (wide ? 16 : 8) * 2;
  double best = 0;
  volatile double sink = 0;
  for (int r = 0; r < 5; r++) {
    double t0 = now_us();
    sink += wide ? peak512(iters) : peak256(iters);
    double g = flops / ((now_us() - t0) * 1e3);
    if (g > best) best = g;
  }
  (void)sink;
  return best;
}
#else
static double measure_peak(const char **what) {
  *what = "none";
  return 0;
}
#endif

typedef struct kclass {
  const char *name, *bir;
  double flops;
  /* the same layer as conv_packed (weights pre-packed as the ONNX import packs them),
   * timed interleaved with bir: NULL for none */
  const char *packed_bir;
  /* and as conv_blocked over channel-blocked tensors, as the layout pass runs a network's
   * convs (src/passes/layout.c): NULL for none */
  const char *blocked_bir;
  /* and as conv_winograd (Winograd's F(2x2, 3x3) over blocked tensors, what the layout pass
   * makes of a 3x3 stride-1 conv on a plane of 144 outputs or more): NULL for none */
  const char *winograd_bir;
} kclass_t;

/* Compiles one kernel class's program and loads it with random inputs; 0 on success. */
static int kclass_build(const char *bir, const char *src, const char *out, bprog_t *b, void **data) {
  FILE *f = fopen(src, "w");
  if (!f) return 1;
  fprintf(f, "program {alloc_inputs = 0, alloc_outputs = 0}\n\n%s", bir);
  fclose(f);
  if (berth_compile(src, "", out) || bprog_load(b, out)) return 1;
  for (int32_t k = 0; k < b->n_in; k++) {
    data[k] = aligned_alloc(64, (b->in[k].bytes + 63) / 64 * 64 + 64);
    fill_random(k, &b->in[k], data[k]);
  }
  return 0;
}

static void kclass_print(const char *name, double flops, stats_t s, double peak) {
  double g = flops / (s.med * 1e3), gmin = flops / (s.min * 1e3);
  printf("  %-55s %10.1f %10.1f %7.0f%% %7.0f%%\n", name, s.med, g, peak > 0 ? 100 * g / peak : 0,
         peak > 0 ? 100 * gmin / peak : 0);
}

/* The plain read of n floats, four quarters side by side and prefetched ahead (four streams
 * keep more of the memory's bandwidth busy than one): what a memory-bound kernel over as many bytes can
 * reach, measured next to it. */
typedef float rd_v4 __attribute__((vector_size(16)));
__attribute__((noinline)) static float stream_read(const float *p, size_t n) {
  rd_v4 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, x0, x1, x2, x3;
  const size_t m = n / 16 * 4;
  for (size_t i = 0; i < m; i += 4) {
    if (i % 16 == 0) /* 2 KiB ahead in each stream, as matmul_packed's row path */
      for (size_t r = 0; r < 4; r++) __builtin_prefetch(p + r * m + i + 512, 0, 3);
    memcpy(&x0, p + i, 16), memcpy(&x1, p + m + i, 16), memcpy(&x2, p + 2 * m + i, 16), memcpy(&x3, p + 3 * m + i, 16);
    s0 += x0, s1 += x1, s2 += x2, s3 += x3;
  }
  s0 += s1 + s2 + s3;
  return s0[0] + s0[1] + s0[2] + s0[3];
}

/* GB/s of a GEMV over `bytes` of weights, plain and packed, and of stream_read over as many
 * bytes timed interleaved with them (median, and at the minimum) */
static void kclass_print_bw(double bytes, stats_t s, stats_t sp, stats_t r) {
  printf("  %-55s %.1f (%.1f at min) GB/s plain, %.1f (%.1f) packed; a read of %.0f MB: %.1f (%.1f)\n",
         "  weights streamed, median (min):", bytes / (s.med * 1e3), bytes / (s.min * 1e3), bytes / (sp.med * 1e3),
         bytes / (sp.min * 1e3), bytes / 1048576.0, bytes / (r.med * 1e3), bytes / (r.min * 1e3));
}

static void bench_kernels(double peak, const char *only) {
  static const kclass_t K[] = {
      {"conv 3x3, 64->64, 56x56 (ResNet-50 stage 1)",
       "func @forward(%x : f32[1,64,56,56], %w : f32[64,64,3,3]) -> (f32[1,64,56,56]) {\n"
       "  %y = conv(%x, %w) {pads = [1, 1, 1, 1]} : f32[1,64,56,56]\n  return %y\n}\n",
       2.0 * 64 * 64 * 9 * 56 * 56,
       "func @forward(%x : f32[1,64,56,56], %w : f32[1,6,576,12]) -> (f32[1,64,56,56]) {\n"
       "  %y = conv_packed(%x, %w) { pads = [1, 1, 1, 1], wshape = [64, 64, 3, 3]} : f32[1,64,56,56]\n  return %y\n}\n",
       "func @forward(%x : f32[1,4,56,56,16], %w : f32[4,4,9,256]) -> (f32[1,4,56,56,16]) {\n"
       "  %y = conv_blocked(%x, %w) {pads = [1, 1, 1, 1], wshape = [64, 64, 3, 3]} : f32[1,4,56,56,16]\n  return %y\n}\n",
       "func @forward(%x : f32[1,4,56,56,16], %w : f32[16,4,4,256]) -> (f32[1,4,56,56,16]) {\n"
       "  %y = conv_winograd(%x, %w) {pads = [1, 1, 1, 1], wshape = [64, 64, 3, 3]} : f32[1,4,56,56,16]\n  return %y\n}\n"},
      {"conv 3x3, 128->128, 28x28 (ResNet-50 stage 2)",
       "func @forward(%x : f32[1,128,28,28], %w : f32[128,128,3,3]) -> (f32[1,128,28,28]) {\n"
       "  %y = conv(%x, %w) {pads = [1, 1, 1, 1]} : f32[1,128,28,28]\n  return %y\n}\n",
       2.0 * 128 * 128 * 9 * 28 * 28,
       "func @forward(%x : f32[1,128,28,28], %w : f32[1,11,1152,12]) -> (f32[1,128,28,28]) {\n"
       "  %y = conv_packed(%x, %w) { pads = [1, 1, 1, 1], wshape = [128, 128, 3, 3]} : f32[1,128,28,28]\n  return %y\n}\n",
       "func @forward(%x : f32[1,8,28,28,16], %w : f32[8,8,9,256]) -> (f32[1,8,28,28,16]) {\n"
       "  %y = conv_blocked(%x, %w) {pads = [1, 1, 1, 1], wshape = [128, 128, 3, 3]} : f32[1,8,28,28,16]\n  return %y\n}\n",
       "func @forward(%x : f32[1,8,28,28,16], %w : f32[16,8,8,256]) -> (f32[1,8,28,28,16]) {\n"
       "  %y = conv_winograd(%x, %w) {pads = [1, 1, 1, 1], wshape = [128, 128, 3, 3]} : f32[1,8,28,28,16]\n  return %y\n}\n"},
      {"conv 3x3, 256->256, 14x14 (ResNet-50 stage 3)",
       "func @forward(%x : f32[1,256,14,14], %w : f32[256,256,3,3]) -> (f32[1,256,14,14]) {\n"
       "  %y = conv(%x, %w) {pads = [1, 1, 1, 1]} : f32[1,256,14,14]\n  return %y\n}\n",
       2.0 * 256 * 256 * 9 * 14 * 14,
       "func @forward(%x : f32[1,256,14,14], %w : f32[1,22,2304,12]) -> (f32[1,256,14,14]) {\n"
       "  %y = conv_packed(%x, %w) { pads = [1, 1, 1, 1], wshape = [256, 256, 3, 3]} : f32[1,256,14,14]\n  return %y\n}\n",
       "func @forward(%x : f32[1,16,14,14,16], %w : f32[16,16,9,256]) -> (f32[1,16,14,14,16]) {\n"
       "  %y = conv_blocked(%x, %w) {pads = [1, 1, 1, 1], wshape = [256, 256, 3, 3]} : f32[1,16,14,14,16]\n  return %y\n}\n",
       "func @forward(%x : f32[1,16,14,14,16], %w : f32[16,16,16,256]) -> (f32[1,16,14,14,16]) {\n"
       "  %y = conv_winograd(%x, %w) {pads = [1, 1, 1, 1], wshape = [256, 256, 3, 3]} : f32[1,16,14,14,16]\n  return %y\n}\n"},
      {"conv 3x3, 512->512, 7x7 (ResNet-50 stage 4)",
       "func @forward(%x : f32[1,512,7,7], %w : f32[512,512,3,3]) -> (f32[1,512,7,7]) {\n"
       "  %y = conv(%x, %w) {pads = [1, 1, 1, 1]} : f32[1,512,7,7]\n  return %y\n}\n",
       2.0 * 512 * 512 * 9 * 7 * 7,
       "func @forward(%x : f32[1,512,7,7], %w : f32[1,16,4608,32]) -> (f32[1,512,7,7]) {\n"
       "  %y = conv_packed(%x, %w) { pads = [1, 1, 1, 1], wshape = [512, 512, 3, 3]} : f32[1,512,7,7]\n  return %y\n}\n",
       "func @forward(%x : f32[1,32,7,7,16], %w : f32[32,32,9,256]) -> (f32[1,32,7,7,16]) {\n"
       "  %y = conv_blocked(%x, %w) {pads = [1, 1, 1, 1], wshape = [512, 512, 3, 3]} : f32[1,32,7,7,16]\n  return %y\n}\n",
       "func @forward(%x : f32[1,32,7,7,16], %w : f32[16,32,32,256]) -> (f32[1,32,7,7,16]) {\n"
       "  %y = conv_winograd(%x, %w) {pads = [1, 1, 1, 1], wshape = [512, 512, 3, 3]} : f32[1,32,7,7,16]\n  return %y\n}\n"},
      {"conv 1x1, 256->1024, 14x14 (ResNet-50 stage 3)",
       "func @forward(%x : f32[1,256,14,14], %w : f32[1024,256,1,1]) -> (f32[1,1024,14,14]) {\n"
       "  %y = conv(%x, %w) : f32[1,1024,14,14]\n  return %y\n}\n",
       2.0 * 256 * 1024 * 14 * 14,
       "func @forward(%x : f32[1,256,14,14], %w : f32[1,86,256,12]) -> (f32[1,1024,14,14]) {\n"
       "  %y = conv_packed(%x, %w) { wshape = [1024, 256, 1, 1]} : f32[1,1024,14,14]\n  return %y\n}\n",
       "func @forward(%x : f32[1,16,14,14,16], %w : f32[64,16,1,256]) -> (f32[1,64,14,14,16]) {\n"
       "  %y = conv_blocked(%x, %w) {wshape = [1024, 256, 1, 1]} : f32[1,64,14,14,16]\n  return %y\n}\n", NULL},
      {"conv 1x1, 256->64, 56x56",
       "func @forward(%x : f32[1,256,56,56], %w : f32[64,256,1,1]) -> (f32[1,64,56,56]) {\n"
       "  %y = conv(%x, %w) : f32[1,64,56,56]\n  return %y\n}\n",
       2.0 * 256 * 64 * 56 * 56,
       "func @forward(%x : f32[1,256,56,56], %w : f32[1,6,256,12]) -> (f32[1,64,56,56]) {\n"
       "  %y = conv_packed(%x, %w) { wshape = [64, 256, 1, 1]} : f32[1,64,56,56]\n  return %y\n}\n",
       "func @forward(%x : f32[1,16,56,56,16], %w : f32[4,16,1,256]) -> (f32[1,4,56,56,16]) {\n"
       "  %y = conv_blocked(%x, %w) {wshape = [64, 256, 1, 1]} : f32[1,4,56,56,16]\n  return %y\n}\n", NULL},
      {"conv 1x1, 512->2048, 7x7 (ResNet-50 stage 4)",
       "func @forward(%x : f32[1,512,7,7], %w : f32[2048,512,1,1]) -> (f32[1,2048,7,7]) {\n"
       "  %y = conv(%x, %w) : f32[1,2048,7,7]\n  return %y\n}\n",
       2.0 * 512 * 2048 * 7 * 7, NULL,
       "func @forward(%x : f32[1,32,7,7,16], %w : f32[128,32,1,256]) -> (f32[1,128,7,7,16]) {\n"
       "  %y = conv_blocked(%x, %w) {wshape = [2048, 512, 1, 1]} : f32[1,128,7,7,16]\n  return %y\n}\n", NULL},
      {"conv 1x1, 2048->512, 7x7 (ResNet-50 stage 4)",
       "func @forward(%x : f32[1,2048,7,7], %w : f32[512,2048,1,1]) -> (f32[1,512,7,7]) {\n"
       "  %y = conv(%x, %w) : f32[1,512,7,7]\n  return %y\n}\n",
       2.0 * 2048 * 512 * 7 * 7, NULL,
       "func @forward(%x : f32[1,128,7,7,16], %w : f32[32,128,1,256]) -> (f32[1,32,7,7,16]) {\n"
       "  %y = conv_blocked(%x, %w) {wshape = [512, 2048, 1, 1]} : f32[1,32,7,7,16]\n  return %y\n}\n", NULL},
      {"conv 1-D k3, 128->128, 8 positions (Silero encoder)",
       "func @forward(%x : f32[1,128,10], %w : f32[128,128,3]) -> (f32[1,128,8]) {\n"
       "  %y = conv(%x, %w) : f32[1,128,8]\n  return %y\n}\n",
       2.0 * 128 * 128 * 3 * 8, NULL, NULL, NULL},
      {"depthwise conv 3x3, 128 ch, 56x56",
       "func @forward(%x : f32[1,128,56,56], %w : f32[128,1,3,3]) -> (f32[1,128,56,56]) {\n"
       "  %y = conv(%x, %w) {pads = [1, 1, 1, 1], group = 128} : f32[1,128,56,56]\n  return %y\n}\n",
       2.0 * 128 * 9 * 56 * 56, NULL, NULL, NULL},
      {"depthwise conv 3x3, 32 ch, 112x112 (MobileNet)",
       "func @forward(%x : f32[1,32,112,112], %w : f32[32,1,3,3]) -> (f32[1,32,112,112]) {\n"
       "  %y = conv(%x, %w) {pads = [1, 1, 1, 1], group = 32} : f32[1,32,112,112]\n  return %y\n}\n",
       2.0 * 32 * 9 * 112 * 112, NULL, NULL, NULL},
      {"depthwise conv 3x3, 512 ch, 14x14 (MobileNet)",
       "func @forward(%x : f32[1,512,14,14], %w : f32[512,1,3,3]) -> (f32[1,512,14,14]) {\n"
       "  %y = conv(%x, %w) {pads = [1, 1, 1, 1], group = 512} : f32[1,512,14,14]\n  return %y\n}\n",
       2.0 * 512 * 9 * 14 * 14, NULL, NULL, NULL},
      {"depthwise conv 3x3 stride 2, 64 ch, 112x112 -> 56x56",
       "func @forward(%x : f32[1,64,112,112], %w : f32[64,1,3,3]) -> (f32[1,64,56,56]) {\n"
       "  %y = conv(%x, %w) {strides = [2, 2], pads = [1, 1, 1, 1], group = 64} : f32[1,64,56,56]\n"
       "  return %y\n}\n",
       2.0 * 64 * 9 * 56 * 56, NULL, NULL, NULL},
      {"depthwise conv 5x5, 240 ch, 14x14 (MobileNetV3)",
       "func @forward(%x : f32[1,240,14,14], %w : f32[240,1,5,5]) -> (f32[1,240,14,14]) {\n"
       "  %y = conv(%x, %w) {pads = [2, 2, 2, 2], group = 240} : f32[1,240,14,14]\n  return %y\n}\n",
       2.0 * 240 * 25 * 14 * 14, NULL, NULL, NULL},
      {"matmul 256x512 * 512x512",
       "func @forward(%a : f32[256,512], %b : f32[512,512]) -> (f32[256,512]) {\n"
       "  %y = matmul(%a, %b) : f32[256,512]\n  return %y\n}\n",
       2.0 * 256 * 512 * 512,
       "func @forward(%a : f32[256,512], %w : f32[16,512,32]) -> (f32[256,512]) {\n"
       "  %y = matmul_packed(%a, %w) {wshape = [512, 512]} : f32[256,512]\n  return %y\n}\n", NULL, NULL},
      {"matmul 512x512 * 512x512 (square)",
       "func @forward(%a : f32[512,512], %b : f32[512,512]) -> (f32[512,512]) {\n"
       "  %y = matmul(%a, %b) : f32[512,512]\n  return %y\n}\n",
       2.0 * 512 * 512 * 512,
       "func @forward(%a : f32[512,512], %w : f32[16,512,32]) -> (f32[512,512]) {\n"
       "  %y = matmul_packed(%a, %w) {wshape = [512, 512]} : f32[512,512]\n  return %y\n}\n", NULL, NULL},
      {"gemm 512x512 * (512x512)^T + bias (square, trans_b)",
       "func @forward(%a : f32[512,512], %b : f32[512,512], %c : f32[512]) -> (f32[512,512]) {\n"
       "  %y = gemm(%a, %b, %c) {trans_b = 1} : f32[512,512]\n  return %y\n}\n",
       2.0 * 512 * 512 * 512,
       "func @forward(%a : f32[512,512], %w : f32[16,512,32], %c : f32[512]) -> (f32[512,512]) {\n"
       "  %y = matmul_packed(%a, %w, %c) {wshape = [512, 512]} : f32[512,512]\n  return %y\n}\n", NULL, NULL},
      {"matmul 40x120 * 120x6625 (PaddleOCR rec head)",
       "func @forward(%a : f32[1,40,120], %b : f32[120,6625]) -> (f32[1,40,6625]) {\n"
       "  %y = matmul(%a, %b) : f32[1,40,6625]\n  return %y\n}\n",
       2.0 * 40 * 120 * 6625,
       "func @forward(%a : f32[1,40,120], %w : f32[208,120,32]) -> (f32[1,40,6625]) {\n"
       "  %y = matmul_packed(%a, %w) {wshape = [120, 6625]} : f32[1,40,6625]\n  return %y\n}\n", NULL, NULL},
      {"gemm 64x1024 * (1000x1024)^T (FC layer, batch 64)",
       "func @forward(%a : f32[64,1024], %b : f32[1000,1024]) -> (f32[64,1000]) {\n"
       "  %y = gemm(%a, %b) {trans_b = 1} : f32[64,1000]\n  return %y\n}\n",
       2.0 * 64 * 1024 * 1000,
       "func @forward(%a : f32[64,1024], %w : f32[32,1024,32]) -> (f32[64,1000]) {\n"
       "  %y = matmul_packed(%a, %w) {wshape = [1024, 1000]} : f32[64,1000]\n  return %y\n}\n", NULL, NULL},
      {"gemm 1x2048 * (1000x2048)^T (FC layer, one input: GEMV)",
       "func @forward(%a : f32[1,2048], %b : f32[1000,2048]) -> (f32[1,1000]) {\n"
       "  %y = gemm(%a, %b) {trans_b = 1} : f32[1,1000]\n  return %y\n}\n",
       2.0 * 2048 * 1000,
       "func @forward(%a : f32[1,2048], %w : f32[32,2048,32]) -> (f32[1,1000]) {\n"
       "  %y = matmul_packed(%a, %w) {wshape = [2048, 1000]} : f32[1,1000]\n  return %y\n}\n", NULL, NULL},
      {"matmul 1x4096 * 4096x4096 (GEMV)",
       "func @forward(%a : f32[1,4096], %b : f32[4096,4096]) -> (f32[1,4096]) {\n"
       "  %y = matmul(%a, %b) : f32[1,4096]\n  return %y\n}\n",
       2.0 * 4096 * 4096,
       "func @forward(%a : f32[1,4096], %w : f32[128,4096,32]) -> (f32[1,4096]) {\n"
       "  %y = matmul_packed(%a, %w) {wshape = [4096, 4096]} : f32[1,4096]\n  return %y\n}\n", NULL, NULL},
      {"gemm 1x4096 * (4096x4096)^T + bias (AlexNet fc7, GEMV)",
       "func @forward(%a : f32[1,4096], %b : f32[4096,4096], %c : f32[4096]) -> (f32[1,4096]) {\n"
       "  %y = gemm(%a, %b, %c) {trans_b = 1} : f32[1,4096]\n  return %y\n}\n",
       2.0 * 4096 * 4096,
       "func @forward(%a : f32[1,4096], %w : f32[128,4096,32], %c : f32[4096]) -> (f32[1,4096]) {\n"
       "  %y = matmul_packed(%a, %w, %c) {wshape = [4096, 4096]} : f32[1,4096]\n  return %y\n}\n", NULL, NULL},
      {"gemm 1x9216 * (4096x9216)^T + bias (AlexNet fc6, GEMV)",
       "func @forward(%a : f32[1,9216], %b : f32[4096,9216], %c : f32[4096]) -> (f32[1,4096]) {\n"
       "  %y = gemm(%a, %b, %c) {trans_b = 1} : f32[1,4096]\n  return %y\n}\n",
       2.0 * 9216 * 4096,
       "func @forward(%a : f32[1,9216], %w : f32[128,9216,32], %c : f32[4096]) -> (f32[1,4096]) {\n"
       "  %y = matmul_packed(%a, %w, %c) {wshape = [9216, 4096]} : f32[1,4096]\n  return %y\n}\n", NULL, NULL},
  };
  printf("\nkernel classes (berth, %s variant; peak %.1f GFLOP/s):\n", berth_kernels_isa_name(berth_kernels_active()),
         peak);
  printf("  %-55s %10s %10s %8s %8s\n", "", "median us", "GFLOP/s", "of peak", "(at min)");
  char src[256], out[256];
  snprintf(src, sizeof src, "/tmp/berth_ort_kernel_%d.bir", (int)getpid());
  snprintf(out, sizeof out, "/tmp/berth_ort_kernel_%d.berth", (int)getpid());
  for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
    if (only && !strstr(K[i].name, only)) continue;
    bprog_t b, bp;
    void *data[MAX_IO], *pdata[MAX_IO];
    if (kclass_build(K[i].bir, src, out, &b, data)) {
      printf("  %-55s (could not build)\n", K[i].name);
      continue;
    }
    const int packed = K[i].packed_bir && !kclass_build(K[i].packed_bir, src, out, &bp, pdata);
    if (packed) memcpy(pdata[0], data[0], b.in[0].bytes); /* the same input */
    bprog_t bb;
    void *bdata[MAX_IO];
    const int blocked = K[i].blocked_bir && !kclass_build(K[i].blocked_bir, src, out, &bb, bdata);
    bprog_t bw;
    void *wdata[MAX_IO];
    const int wino = K[i].winograd_bir && !kclass_build(K[i].winograd_bir, src, out, &bw, wdata);
    int calls = K[i].flops > 1e8 ? 10 : K[i].flops > 1e6 ? 100 : 2000;
    if (calls < g_calls / 10) calls = g_calls / 10; /* --calls 1000: 100 calls of each class */
    double *t = malloc((size_t)calls * sizeof *t), *tp = malloc((size_t)calls * sizeof *tp),
           *tb = malloc((size_t)calls * sizeof *tb), *tw = malloc((size_t)calls * sizeof *tw);
    /* a GEMV (one row) streams its f32 weights once (4 K N bytes, twice its flops): a plain
     * read of as many bytes, interleaved too, is its ceiling */
    const size_t rn = packed && strstr(K[i].name, "GEMV") ? (size_t)(K[i].flops / 2) : 0;
    float *rbuf = rn ? aligned_alloc(64, (rn * sizeof(float) + 63) / 64 * 64) : NULL;
    double *tr = rn ? malloc((size_t)calls * sizeof *tr) : NULL;
    volatile float sink = 0;
    for (size_t j = 0; j < rn; j++) rbuf[j] = (float)(j & 255);
    bprog_run(&b, data);
    if (packed) bprog_run(&bp, pdata);
    if (blocked) bprog_run(&bb, bdata);
    if (wino) bprog_run(&bw, wdata);
    for (int c = 0; c < calls; c++) { /* interleaved with the packed, blocked and Winograd programs, when there are */
      double t0 = now_us();
      bprog_run(&b, data);
      t[c] = now_us() - t0;
      if (blocked) {
        t0 = now_us();
        bprog_run(&bb, bdata);
        tb[c] = now_us() - t0;
      }
      if (wino) {
        t0 = now_us();
        bprog_run(&bw, wdata);
        tw[c] = now_us() - t0;
      }
      if (!packed) continue;
      t0 = now_us();
      bprog_run(&bp, pdata);
      tp[c] = now_us() - t0;
      if (!rbuf) continue;
      t0 = now_us();
      sink += stream_read(rbuf, rn);
      tr[c] = now_us() - t0;
    }
    (void)sink;
    stats_t s = summarize(t, (size_t)calls);
    kclass_print(K[i].name, K[i].flops, s, peak);
    if (packed) {
      stats_t sp = summarize(tp, (size_t)calls);
      char name[160];
      snprintf(name, sizeof name, "  same, weights pre-packed (time ratio %.2f)", sp.med / s.med);
      kclass_print(name, K[i].flops, sp, peak);
      if (rbuf) kclass_print_bw(2.0 * K[i].flops, s, sp, summarize(tr, (size_t)calls));
      for (int32_t k = 0; k < bp.n_in; k++) free(pdata[k]);
    }
    if (blocked) {
      stats_t sb = summarize(tb, (size_t)calls);
      char name[160];
      snprintf(name, sizeof name, "  same, channel-blocked (conv_blocked; time ratio %.2f)", sb.med / s.med);
      kclass_print(name, K[i].flops, sb, peak);
      for (int32_t k = 0; k < bb.n_in; k++) free(bdata[k]);
    }
    if (wino) { /* GFLOP/s of the direct conv's flops: the rate it would need to match */
      stats_t sw = summarize(tw, (size_t)calls);
      char name[160];
      snprintf(name, sizeof name, "  same, Winograd F(2x2,3x3) (conv_winograd; time ratio %.2f)", sw.med / s.med);
      kclass_print(name, K[i].flops, sw, peak);
      for (int32_t k = 0; k < bw.n_in; k++) free(wdata[k]);
    }
    free(t);
    free(tp);
    free(tb);
    free(tw);
    free(tr);
    free(rbuf);
    for (int32_t k = 0; k < b.n_in; k++) free(data[k]);
  }
  unlink(src);
  unlink(out);
}

/* ---- one-node ONNX models, berth against onnxruntime (written by onnx_one_node.c) ---------- */

/* The ResNet-50, Inception and SqueezeNet conv layers as one-node models (weights an initializer, so
 * onnxruntime may prepack them). */
static void bench_conv_layers(const char *only) {
  static const struct {
    const char *name;
    int64_t c, m, h, k, group, s;
  } L[] = {
      {"Conv 3x3, 64->64, 56x56", 64, 64, 56, 3, 1, 1},
      {"Conv 3x3, 128->128, 28x28", 128, 128, 28, 3, 1, 1},
      {"Conv 3x3, 256->256, 14x14", 256, 256, 14, 3, 1, 1},
      {"Conv 3x3, 512->512, 7x7", 512, 512, 7, 3, 1, 1},
      {"Conv 1x1, 256->1024, 14x14", 256, 1024, 14, 1, 1, 1},
      {"Conv 1x1, 512->2048, 7x7 (ResNet-50 stage 4)", 512, 2048, 7, 1, 1, 1},
      {"Conv 1x1, 2048->512, 7x7 (ResNet-50 stage 4)", 2048, 512, 7, 1, 1, 1},
      {"Conv 1x1, 1024->128, 7x7 (Inception v2)", 1024, 128, 7, 1, 1, 1},
      {"Conv 1x1, 1024->352, 7x7 (Inception v2)", 1024, 352, 7, 1, 1, 1},
      {"Conv 3x3, 224->224, 7x7 (Inception v2)", 224, 224, 7, 3, 1, 1},
      {"Conv 1x1, 256->64, 56x56", 256, 64, 56, 1, 1, 1},
      {"Conv 1x1, 512->128, 28x28 (ResNet-50 stage 2)", 512, 128, 28, 1, 1, 1},
      {"Conv 1x1 stride 2, 256->512, 56x56 (ResNet-50 projection)", 256, 512, 56, 1, 1, 2},
      {"Conv 1x1 stride 2, 512->1024, 28x28 (ResNet-50 projection)", 512, 1024, 28, 1, 1, 2},
      {"Conv 1x1 stride 2, 1024->2048, 14x14 (ResNet-50 projection)", 1024, 2048, 14, 1, 1, 2},
      {"Conv 1x1, 1024->256, 14x14 (ResNet-50 stage 3)", 1024, 256, 14, 1, 1, 1},
      {"Conv 1x1, 256->64, 28x28 (Inception v2)", 256, 64, 28, 1, 1, 1},
      {"Conv 1x1, 576->128, 14x14 (Inception v2)", 576, 128, 14, 1, 1, 1},
      {"Conv 3x3, 128->160, 14x14 (Inception v2)", 128, 160, 14, 3, 1, 1},
      {"Conv 3x3 stride 2, 3->64, 224x224 (SqueezeNet conv1, pads 1)", 3, 64, 224, 3, 1, 2},
      {"Conv 1x1, 64->16, 55x55 (SqueezeNet squeeze)", 64, 16, 55, 1, 1, 1},
      {"Conv 1x1, 16->64, 55x55 (SqueezeNet expand)", 16, 64, 55, 1, 1, 1},
      {"Conv 3x3, 16->64, 55x55 (SqueezeNet expand)", 16, 64, 55, 3, 1, 1},
      {"Conv 3x3, 32->128, 27x27 (SqueezeNet expand)", 32, 128, 27, 3, 1, 1},
      {"Conv 1x1, 64->256, 13x13 (SqueezeNet expand)", 64, 256, 13, 1, 1, 1},
      {"Conv 3x3, 64->256, 13x13 (SqueezeNet expand)", 64, 256, 13, 3, 1, 1},
      {"Conv 1x1, 512->1000, 13x13 (SqueezeNet conv10)", 512, 1000, 13, 1, 1, 1},
      {"Conv 7x7 stride 2, 3->64, 224x224 (ResNet-50, DenseNet-121 first)", 3, 64, 224, 7, 1, 2},
      {"Conv 3x3, 128->32, 28x28 (DenseNet-121)", 128, 32, 28, 3, 1, 1},
      {"Conv 3x3, 128->32, 14x14 (DenseNet-121)", 128, 32, 14, 3, 1, 1},
      {"Conv depthwise 3x3, 32 ch, 112x112", 32, 32, 112, 3, 32, 1},
      {"Conv depthwise 3x3, 128 ch, 56x56", 128, 128, 56, 3, 128, 1},
      {"Conv depthwise 3x3, 512 ch, 14x14", 512, 512, 14, 3, 512, 1},
      {"Conv depthwise 3x3 stride 2, 64 ch, 112x112", 64, 64, 112, 3, 64, 2},
      {"Conv depthwise 3x3 stride 2, 256 ch, 28x28", 256, 256, 28, 3, 256, 2},
      {"Conv depthwise 5x5, 240 ch, 14x14", 240, 240, 14, 5, 240, 1},
      {"Conv depthwise 3x3, 960 ch, 7x7", 960, 960, 7, 3, 960, 1},
      {"Conv depthwise 3x3 stride 2, 480 ch, 14x14", 480, 480, 14, 3, 480, 2},
      {"Conv depthwise 3x3, 240 ch, 28x28", 240, 240, 28, 3, 240, 1},
      {"Conv depthwise 3x3 stride 2, 240 ch, 56x56", 240, 240, 56, 3, 240, 2},
      {"Conv depthwise 5x5 stride 2, 240 ch, 28x28", 240, 240, 28, 5, 240, 2},
  };
  char path[256], label[256];
  snprintf(path, sizeof path, "/tmp/berth_ort_conv_%d.onnx", (int)getpid());
  for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
    if (only && !strstr(L[i].name, only)) continue;
    if (onnx_write_conv(path, L[i].c, L[i].m, L[i].h, L[i].k, L[i].group, L[i].s, rndf)) {
      printf("%s: cannot write %s\n", L[i].name, path);
      continue;
    }
    const int64_t o = (L[i].h + 2 * (L[i].k / 2) - L[i].k) / L[i].s + 1;
    const double gflop = 2.0 * (double)(L[i].c / L[i].group * L[i].m * L[i].k * L[i].k * o * o) / 1e9;
    snprintf(label, sizeof label, "%s (one-node ONNX model, %.3f GFLOP)", L[i].name, gflop);
    int calls = g_calls / 20 > 3 ? g_calls / 20 : 3;
    bench_model(label, path, LAYER_SPECS, NULL, 0, fill_random, calls);
  }
  unlink(path);
}

/* The pooling layers of the light model-zoo CNNs as one-node ONNX models. */
static void bench_pool_layers(const char *only) {
  static const struct {
    const char *name, *op;
    int64_t c, h, k, s, pad;
    int ceil;
  } L[] = {
      {"MaxPool 3x3 stride 2 ceil, 96 ch, 111x111 (SqueezeNet)", "MaxPool", 96, 111, 3, 2, 0, 1},
      {"MaxPool 3x3 stride 2 ceil, 256 ch, 27x27 (SqueezeNet)", "MaxPool", 256, 27, 3, 2, 0, 1},
      {"MaxPool 3x3 stride 2, 64 ch, 112x112 (ResNet-50, DenseNet)", "MaxPool", 64, 112, 3, 2, 1, 0},
      {"MaxPool 3x3 stride 1, 192 ch, 28x28 (Inception)", "MaxPool", 192, 28, 3, 1, 1, 0},
      {"MaxPool 3x3 stride 1, 832 ch, 7x7 (Inception)", "MaxPool", 832, 7, 3, 1, 1, 0},
      {"AveragePool 3x3 stride 1, 256 ch, 28x28 (Inception v2)", "AveragePool", 256, 28, 3, 1, 1, 0},
      {"AveragePool 2x2 stride 2, 128 ch, 56x56 (DenseNet)", "AveragePool", 128, 56, 2, 2, 0, 0},
      {"AveragePool 3x3 stride 1, 576 ch, 14x14 (Inception v2)", "AveragePool", 576, 14, 3, 1, 1, 0},
      {"MaxPool 3x3 stride 2 ceil, 576 ch, 14x14 (Inception v2)", "MaxPool", 576, 14, 3, 2, 0, 1},
      {"AveragePool 7x7 global, 1024 ch, 7x7 (Inception v2)", "AveragePool", 1024, 7, 7, 1, 0, 0},
      {"AveragePool 7x7 global, 2048 ch, 7x7 (ResNet-50)", "AveragePool", 2048, 7, 7, 1, 0, 0},
  };
  char path[256], label[256];
  snprintf(path, sizeof path, "/tmp/berth_ort_pool_%d.onnx", (int)getpid());
  for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
    if (only && !strstr(L[i].name, only)) continue;
    if (onnx_write_pool(path, L[i].op, L[i].c, L[i].h, L[i].k, L[i].s, L[i].pad, L[i].ceil)) {
      printf("%s: cannot write %s\n", L[i].name, path);
      continue;
    }
    snprintf(label, sizeof label, "%s (one-node ONNX model)", L[i].name);
    bench_model(label, path, LAYER_SPECS, NULL, 0, fill_random, g_calls);
  }
  unlink(path);
}

/* Upsampling layers (Resize) as one-node ONNX models: PP-OCR det's nearest 2x and the
 * bilinear forms segmentation heads use. */
static void bench_resize_layers(const char *only) {
  static const struct {
    const char *name, *mode, *ctm;
    int64_t c, h, scale;
  } L[] = {
      {"Resize nearest 2x, 96 ch, 40x40 (PP-OCR det)", "nearest", "asymmetric", 96, 40, 2},
      {"Resize linear 2x half_pixel, 96 ch, 40x40", "linear", "half_pixel", 96, 40, 2},
      {"Resize linear 2x align_corners, 64 ch, 56x56", "linear", "align_corners", 64, 56, 2},
      {"Resize cubic 2x half_pixel, 16 ch, 64x64", "cubic", "half_pixel", 16, 64, 2},
  };
  char path[256], label[256];
  snprintf(path, sizeof path, "/tmp/berth_ort_resize_%d.onnx", (int)getpid());
  for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
    if (only && !strstr(L[i].name, only)) continue;
    if (onnx_write_resize(path, L[i].mode, L[i].ctm, L[i].c, L[i].h, L[i].scale)) {
      printf("%s: cannot write %s\n", L[i].name, path);
      continue;
    }
    snprintf(label, sizeof label, "%s (one-node ONNX model)", L[i].name);
    bench_model(label, path, LAYER_SPECS, NULL, 0, fill_random, g_calls);
  }
  unlink(path);
}

static void bench_op_rows(const char *only) {
#define P64 {1, 64, 112, 112}
  static const struct {
    const char *name, *op;
    int64_t x[4], y[4];
    int kind;
  } L[] = {
      {"Op Softmax last axis, 8x197x197", "Softmax", {1, 8, 197, 197}, {1, 8, 197, 197}, OP_AXIS_LAST},
      {"Op LayerNormalization, 197x768", "LayerNormalization", {1, 1, 197, 768}, {1, 1, 197, 768}, OP_LN},
      {"Op LogSoftmax last axis, 8x197x197", "LogSoftmax", {1, 8, 197, 197}, {1, 8, 197, 197}, OP_AXIS_LAST},
      {"Op Softmax over 1000 classes", "Softmax", {1, 1, 1, 1000}, {1, 1, 1, 1000}, OP_AXIS_LAST},
      {"Op MatMul 197x768 by 768x768", "MatMul", {1, 1, 197, 768}, {1, 1, 197, 768}, OP_MATMUL},
      {"Op MatMul 197x768 by 768x3072", "MatMul", {1, 1, 197, 768}, {1, 1, 197, 3072}, OP_MATMUL},
      {"Op Transpose 0213, 197x12x64", "Transpose", {1, 197, 12, 64}, {1, 12, 197, 64}, OP_PERM_0213},
      {"Op Transpose 0231 (NCHW to NHWC), 64x56x56", "Transpose", {1, 64, 56, 56}, {1, 56, 56, 64}, OP_PERM_0231},
      {"Op Erf, 64x112x112", "Erf", P64, P64, OP_PLAIN},
      {"Op Sigmoid, 64x112x112", "Sigmoid", P64, P64, OP_PLAIN},
      {"Op Tanh, 64x112x112", "Tanh", P64, P64, OP_PLAIN},
      {"Op Exp, 64x112x112", "Exp", P64, P64, OP_PLAIN},
      {"Op Sqrt, 64x112x112", "Sqrt", P64, P64, OP_PLAIN},
      {"Op HardSigmoid, 64x112x112", "HardSigmoid", P64, P64, OP_PLAIN},
      {"Op Elu, 64x112x112", "Elu", P64, P64, OP_PLAIN},
      {"Op Softplus, 64x112x112", "Softplus", P64, P64, OP_PLAIN},
      {"Op LeakyRelu, 64x112x112", "LeakyRelu", P64, P64, OP_PLAIN},
      {"Op Clip max 6, 64x112x112", "Clip", P64, P64, OP_CLIP_06},
      {"Op PRelu per channel, 64x112x112", "PRelu", P64, P64, OP_PRELU},
      {"Op Mul per channel, 64x112x112", "Mul", P64, P64, OP_PER_CHANNEL},
      {"Op Add per channel, 64x112x112", "Add", P64, P64, OP_PER_CHANNEL},
      {"Op Div per channel, 64x112x112", "Div", P64, P64, OP_PER_CHANNEL},
      {"Op Max per channel, 64x112x112", "Max", P64, P64, OP_PER_CHANNEL},
      {"Op Pow 2, 64x112x112", "Pow", P64, P64, OP_POW_2},
      {"Op ReduceMean last axis, 64x56x56", "ReduceMean", {1, 64, 56, 56}, {1, 64, 56, 1}, OP_AXES_3},
      {"Op ReduceSum last axis, 64x56x56", "ReduceSum", {1, 64, 56, 56}, {1, 64, 56, 1}, OP_RSUM_3},
      {"Op ReduceMean spatial, 64x56x56", "ReduceMean", {1, 64, 56, 56}, {1, 64, 1, 1}, OP_AXES_23},
      {"Op ReduceMax channels, 64x56x56", "ReduceMax", {1, 64, 56, 56}, {1, 1, 56, 56}, OP_AXES_1},
      {"Op GlobalAveragePool, 512x28x28", "GlobalAveragePool", {1, 512, 28, 28}, {1, 512, 1, 1}, OP_PLAIN},
      {"Op DepthToSpace 2, 256x28x28", "DepthToSpace", {1, 256, 28, 28}, {1, 64, 56, 56}, OP_BLOCK_2},
      {"Op SpaceToDepth 2, 64x56x56", "SpaceToDepth", {1, 64, 56, 56}, {1, 256, 28, 28}, OP_BLOCK_2},
      {"Op Pad 1 (constant), 64x56x56", "Pad", {1, 64, 56, 56}, {1, 64, 58, 58}, OP_PAD_1},
      {"Op Tile 1x1x2x2, 64x28x28", "Tile", {1, 64, 28, 28}, {1, 64, 56, 56}, OP_TILE_22},
      {"Op Concat channels, 2 x 64x56x56", "Concat", {1, 64, 56, 56}, {1, 128, 56, 56}, OP_SAME},
      {"Op Gather every other channel, 64x56x56", "Gather", {1, 64, 56, 56}, {1, 32, 56, 56}, OP_GATHER_1},
      {"Op Expand 64x1x1 to 64x56x56", "Expand", {1, 64, 1, 1}, {1, 64, 56, 56}, OP_EXPAND},
      {"Op CumSum last axis, 64x56x56", "CumSum", {1, 64, 56, 56}, {1, 64, 56, 56}, OP_CUMSUM_3},
      {"Op LRN 5, 64x56x56", "LRN", {1, 64, 56, 56}, {1, 64, 56, 56}, OP_LRN_5},
  };
#undef P64
  char path[256], label[256];
  snprintf(path, sizeof path, "/tmp/berth_ort_op_%d.onnx", (int)getpid());
  for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
    if (only && !strstr(L[i].name, only)) continue;
    if (onnx_write_op(path, L[i].op, L[i].kind, L[i].x, L[i].y)) {
      printf("%s: cannot write %s\n", L[i].name, path);
      continue;
    }
    snprintf(label, sizeof label, "%s (one-node ONNX model)", L[i].name);
    bench_model(label, path, LAYER_SPECS, NULL, 0, fill_random, g_calls);
  }
  unlink(path);
}

/* The real models of tools/models/models.txt (fetched into build/model-deps by
 * tools/models/fetch-models.sh): each line "NAME FILE INPUT..." gives the input shapes;
 * an input whose fill is a number is bound at compile time, the others get random data. */
static void bench_real_models(const char *only) {
  const char *manifest = BERTH_SOURCE_DIR "/tools/models/models.txt";
  const char *root = BERTH_SOURCE_DIR "/build/model-deps/node_modules";
  FILE *f = fopen(manifest, "r");
  if (!f) {
    printf("real models: %s absent, skipped\n", manifest);
    return;
  }
  char line[2048];
  while (fgets(line, sizeof line, f)) {
    char name[128], file[512], specs[1536] = "";
    int used = 0;
    if (line[0] == '#' || sscanf(line, "%127s %511s %n", name, file, &used) < 2) continue;
    if (only && !strstr(name, only)) continue;
    for (char *tok = strtok(line + used, " \n"); tok; tok = strtok(NULL, " \n")) {
      char *eq = strrchr(tok, '=');
      if (!eq) continue;
      bool number = strspn(eq + 1, "-0123456789.") == strlen(eq + 1);
      if (!number) *eq = '\0'; /* a shape only: random data at run time */
      size_t at = strlen(specs);
      snprintf(specs + at, sizeof specs - at, " --input '%s'", tok);
    }
    char path[1024], label[256];
    snprintf(path, sizeof path, "%s/%s", root, file);
    if (access(path, R_OK) != 0) {
      printf("%s: %s absent (tools/models/fetch-models.sh), skipped\n", name, path);
      continue;
    }
    snprintf(label, sizeof label, "%s (real model from npm, batch 1)", name);
    int calls = g_calls / 10 > 2 ? g_calls / 10 : 2;
    bench_model(label, path, specs, NULL, 0, fill_random, calls);
  }
  fclose(f);
}

int main(int argc, char **argv) {
  int zoo = 1, kernels = 1, layers = 1, real = 1;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) g_rounds = atoi(argv[++i]);
    else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc) g_calls = atoi(argv[++i]);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else if (strcmp(argv[i], "--no-zoo") == 0) zoo = 0;
    else if (strcmp(argv[i], "--no-real") == 0) real = 0;
    else if (strcmp(argv[i], "--plain-layout") == 0) g_plain_layout = 1;
    else if (strcmp(argv[i], "--direct-3x3") == 0) g_direct_3x3 = 1;
    else if (strcmp(argv[i], "--no-kernels") == 0) kernels = 0;
    else if (strcmp(argv[i], "--no-layers") == 0) layers = 0;
    else {
      fprintf(stderr, "usage: %s [--rounds N] [--calls N] [--only TEXT] [--no-zoo] [--no-real] [--no-layers] [--no-kernels] [--plain-layout] [--direct-3x3]\n", argv[0]);
      return 2;
    }
  }
  if (g_rounds < 1 || g_calls < 1) return 2;
  const char *kv = getenv("BERTH_KERNELS");
  berth_kernels_isa_t isa = BERTH_KERNELS_AUTO;
  if (kv && *kv && (berth_kernels_isa_parse(kv, &isa) != BERTH_OK || berth_kernels_select(isa) != BERTH_OK)) {
    fprintf(stderr, "ort_compare: BERTH_KERNELS=%s: unknown or unavailable kernel variant\n", kv);
    return 2;
  }
  const char *peak_what = "none";
  double peak = measure_peak(&peak_what);
  printf("berth kernels: %s; FP32 peak of this core (%s loop, same run): %.1f GFLOP/s\n",
         berth_kernels_isa_name(berth_kernels_active()), peak_what, peak);
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  double load[3] = {0};
  if (getloadavg(load, 3) > 0) printf("machine: %ld CPUs online, load average %.2f (a shared machine skews times)\n", ncpu, load[0]);
  g_have_ort = ort_open();
  printf("%d rounds x %d calls (Silero; zoo networks: fewer calls), interleaved, each round after one untimed call;\n"
         "per-call min and median\n\n",
         g_rounds, g_calls);

  static const struct {
    const char *label, *specs;
    int rate;
    int fold;
  } S[] = {
      {"Silero VAD v5, 16 kHz, 512 (rate folded)",
       "--input input:f32[1,512] --input state:f32[2,1,128] --input sr:i64[]=16000", 16000, 1},
      {"Silero VAD v5, 8 kHz, 256 (both-rate program)",
       "--input input:f32[1,256] --input state:f32[2,1,128] --input sr:i64[]", 8000, 0},
      {"Silero VAD v5, 16 kHz, 256 (both-rate program)",
       "--input input:f32[1,256] --input state:f32[2,1,128] --input sr:i64[]", 16000, 0},
  };
  if (access(SILERO, R_OK) != 0) printf("Silero VAD v5: %s absent (sh scripts/install-deps.sh), skipped\n", SILERO);
  else
    for (int i = 0; i < 3; i++) {
      if (only && !strstr(S[i].label, only)) continue;
      silero_rate = S[i].rate;
      bench_model(S[i].label, SILERO, S[i].specs, S[i].fold ? "sr" : NULL, S[i].rate, fill_silero, g_calls);
    }
  if (zoo) {
    static const char *const nets[] = {"test_squeezenet",  "test_shufflenet", "test_resnet50",   "test_inception_v1",
                                       "test_inception_v2", "test_densenet121", "test_bvlc_alexnet", "test_zfnet512",
                                       "test_vgg19"};
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
      if (only && !strstr(nets[i], only)) continue;
      char path[1024], label[256];
      snprintf(path, sizeof path, "%s/%s/model.onnx", ZOO, nets[i]);
      if (access(path, R_OK) != 0) {
        printf("%s: %s absent, skipped\n", nets[i], path);
        continue;
      }
      snprintf(label, sizeof label, "%s (light model zoo, batch 1)", nets[i] + 5);
      int calls = g_calls / 20 > 2 ? g_calls / 20 : 2;
      bench_model(label, path, "", NULL, 0, fill_random, calls);
    }
  }
  if (real) bench_real_models(only);
  if (layers) bench_conv_layers(only);
  if (layers) bench_pool_layers(only);
  if (layers) bench_resize_layers(only);
  if (layers) bench_op_rows(only);
  if (kernels) bench_kernels(peak, only);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("\nprocess peak RSS: %.1f MB (both contenders, all models)\n", (double)ru.ru_maxrss / 1024.0);
  return 0;
}
