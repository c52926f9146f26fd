/* bench/vad_streams: many Silero VAD streams interleaved on one core, berth against
 * onnxruntime's C API. A program that prints a table, not a test.
 *
 *   bench/vad_streams [--streams 1,100,1000,10000] [--frames F] [--reps R] [--model v5|v6]
 *
 * A server that transcribes phone calls runs thousands of VAD streams at once. Here N
 * streams each get 512-sample frames (16 kHz, context prepended as silero-vad does) of the
 * test audio (tools/vad/make-audio.sh's speech_16k.wav, each stream starting at another
 * place), round robin, one frame per stream per round, for at least F frames in all
 * (default 20,000; at least one round), R passes (default 3); frames per second is the
 * median over the passes. Each (engine, N) runs in a fresh process (this program re-executed),
 * so its memory is its own:
 *  - berth: one loaded program (constants used in place from the file bytes) and one method
 *    (handle + arena) shared by all streams, and per stream a vad_stream.h stream (context,
 *    state, segmenter: berth_vad_stream_size(m) bytes), which runs the full get_speech_timestamps
 *    segmentation too;
 *  - onnxruntime (dlopen libonnxruntime.so.1 from build/vad-deps' onnxruntime-node, C API 29):
 *    its best case, one session (intra = inter = 1 thread, sequential, all optimizations) and
 *    per stream its own input (context + frame), state and output buffers with OrtValues
 *    created once over them; only the model call and the context/state copies, no segmentation.
 * Memory: the process's RSS after setup and after the passes (VmRSS, /proc/self/status) and
 * the growth per stream between a process with the streams and the same engine's baseline
 * (RSS before the streams were created). The machine may be shared: run it when quiet. */
#define _GNU_SOURCE
#include "vad_stream.h"

#include <berth/runtime.h>

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef BERTH_HAVE_ORT_HEADER
#include <onnxruntime_c_api.h>
#endif

#define ROOT BERTH_SOURCE_DIR
#define DIST ROOT "/build/vad-deps/node_modules/@ricky0123/vad-web/dist"
#define AUDIO ROOT "/build/vad-audio/speech_16k.wav"
#define ORT_LIB ROOT "/build/vad-deps/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
  if (f) fclose(f);
  return kb;
}

static void *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *b = n > 0 ? aligned_alloc(64, ((size_t)n + 63) / 64 * 64) : NULL;
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) free(b), b = NULL;
  fclose(f);
  *len = (size_t)n;
  return b;
}

/* 16-bit mono WAV (sox's 44-byte header) as floats / 32768 */
static float *read_wav(size_t *n) {
  size_t len;
  unsigned char *w = slurp(AUDIO, &len);
  if (!w || len < 44) return NULL;
  *n = (len - 44) / 2;
  float *s = malloc(*n * sizeof *s);
  for (size_t i = 0; s && i < *n; i++) s[i] = (float)(int16_t)(w[44 + 2 * i] | w[45 + 2 * i] << 8) / 32768.0f;
  free(w);
  return s;
}

typedef struct result {
  double fps;
  long rss_setup, rss_base, rss_end;
  size_t stream_bytes;
} result_t;

/* ---- berth ------------------------------------------------------------------------------- */

static int run_berth(const char *model, int n_streams, long frames, int reps, const float *pcm, size_t n, result_t *r) {
  char path[256], cmd[1024], msg[512];
  snprintf(path, sizeof path, "/tmp/bench-vad-streams-%d.berth", (int)getpid());
  snprintf(cmd, sizeof cmd,
           "'%s' compile '%s/silero_vad_%s.onnx' --input 'input:f32[1,576]' --input 'state:f32[2,1,128]' "
           "--input 'sr:i64[]=16000' --no-ir -o '%s' >/dev/null",
           BERTH_TOOL, DIST, model, path);
  if (system(cmd)) return fprintf(stderr, "vad_streams: %s failed\n", cmd), 1;
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  size_t len;
  void *bytes = slurp(path, &len);
  unlink(path);
  berth_program_sizes_t sz;
  berth_program_t *prog;
  berth_vad_model_t *m;
  if (!bytes || berth_program_query(bytes, len, &sz, &diag)) goto fail;
  void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
  if (berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &diag)) goto fail;
  free(scratch);
  size_t msz = berth_vad_model_memory_size(prog);
  if (berth_vad_model_init(prog, malloc(msz), msz, &m, &diag)) goto fail;
  r->rss_base = rss_kb();
  size_t ssz = berth_vad_stream_size(m);
  r->stream_bytes = ssz;
  char *smem = malloc(ssz * (size_t)n_streams);
  berth_vad_stream_t **st = malloc(sizeof *st * (size_t)n_streams);
  size_t *pos = malloc(sizeof *pos * (size_t)n_streams);
  size_t nframes = n / 512;
  for (int s = 0; s < n_streams; s++) {
    if (berth_vad_stream_init(m, 16000, NULL, smem + ssz * (size_t)s, ssz, &st[s], &diag)) goto fail;
    pos[s] = (size_t)s * 37 % nframes;
  }
  /* touch every stream once (a frame each) so that its pages are resident */
  for (int s = 0; s < n_streams; s++)
    if (berth_vad_stream_push(st[s], pcm + pos[s] * 512, 512, &diag)) goto fail;
  r->rss_setup = rss_kb();
  long rounds = (frames + n_streams - 1) / n_streams;
  double *fps = malloc(sizeof *fps * (size_t)reps);
  for (int rep = 0; rep < reps; rep++) {
    double t0 = now_s();
    for (long k = 0; k < rounds; k++)
      for (int s = 0; s < n_streams; s++) {
        if (berth_vad_stream_push(st[s], pcm + pos[s] * 512, 512, &diag)) goto fail;
        if (++pos[s] == nframes) pos[s] = 0;
      }
    fps[rep] = (double)rounds * n_streams / (now_s() - t0);
  }
  qsort(fps, (size_t)reps, sizeof *fps, cmp_d);
  r->fps = fps[reps / 2];
  r->rss_end = rss_kb();
  return 0;
fail:
  fprintf(stderr, "vad_streams: berth: %s\n", msg);
  return 1;
}

/* ---- onnxruntime ------------------------------------------------------------------------- */

#ifdef BERTH_HAVE_ORT_HEADER
typedef struct ort_stream {
  float x[576], state[256], state_out[256], prob[1];
  OrtValue *vx, *vstate, *vout, *vstate_out;
} ort_stream_t;

#define ORT_CHECK(call)                                                                  \
  do {                                                                                   \
    OrtStatus *st_ = (call);                                                             \
    if (st_) {                                                                           \
      fprintf(stderr, "vad_streams: onnxruntime: %s: %s\n", #call, api->GetErrorMessage(st_)); \
      return 1;                                                                          \
    }                                                                                    \
  } while (0)

static int run_ort(const char *model, int n_streams, long frames, int reps, const float *pcm, size_t n, result_t *r) {
  const char *lib = getenv("ORT_LIB") ? getenv("ORT_LIB") : ORT_LIB;
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) return fprintf(stderr, "vad_streams: onnxruntime not found (%s)\n", dlerror()), 2;
  const OrtApiBase *(*base)(void) = (const OrtApiBase *(*)(void))dlsym(h, "OrtGetApiBase");
  const OrtApi *api = base ? base()->GetApi(ORT_API_VERSION) : NULL;
  if (!api) return fprintf(stderr, "vad_streams: %s: no C API %d\n", lib, ORT_API_VERSION), 2;
  OrtEnv *env;
  OrtSessionOptions *so;
  OrtSession *sess;
  OrtMemoryInfo *mi;
  char path[512];
  snprintf(path, sizeof path, "%s/silero_vad_%s.onnx", DIST, model);
  ORT_CHECK(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "vad", &env));
  ORT_CHECK(api->CreateSessionOptions(&so));
  ORT_CHECK(api->SetIntraOpNumThreads(so, 1));
  ORT_CHECK(api->SetInterOpNumThreads(so, 1));
  ORT_CHECK(api->SetSessionExecutionMode(so, ORT_SEQUENTIAL));
  ORT_CHECK(api->SetSessionGraphOptimizationLevel(so, ORT_ENABLE_ALL));
  ORT_CHECK(api->CreateSession(env, path, so, &sess));
  ORT_CHECK(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mi));
  static int64_t sr = 16000;
  OrtValue *vsr;
  int64_t dx[2] = {1, 576}, ds[3] = {2, 1, 128}, dp[2] = {1, 1};
  ORT_CHECK(api->CreateTensorWithDataAsOrtValue(mi, &sr, sizeof sr, NULL, 0, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &vsr));
  r->rss_base = rss_kb();
  ort_stream_t *st = calloc((size_t)n_streams, sizeof *st);
  size_t *pos = malloc(sizeof *pos * (size_t)n_streams), nframes = n / 512;
  for (int s = 0; s < n_streams; s++) {
    ort_stream_t *o = &st[s];
    ORT_CHECK(api->CreateTensorWithDataAsOrtValue(mi, o->x, sizeof o->x, dx, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &o->vx));
    ORT_CHECK(api->CreateTensorWithDataAsOrtValue(mi, o->state, sizeof o->state, ds, 3, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &o->vstate));
    ORT_CHECK(api->CreateTensorWithDataAsOrtValue(mi, o->prob, sizeof o->prob, dp, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &o->vout));
    ORT_CHECK(api->CreateTensorWithDataAsOrtValue(mi, o->state_out, sizeof o->state_out, ds, 3, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                  &o->vstate_out));
    pos[s] = (size_t)s * 37 % nframes;
  }
  const char *in_names[] = {"input", "state", "sr"}, *out_names[] = {"output", "stateN"};
  long rounds = (frames + n_streams - 1) / n_streams;
  double *fps = malloc(sizeof *fps * (size_t)reps);
  for (int rep = -1; rep < reps; rep++) { /* rep -1: every stream once, pages resident */
    double t0 = now_s();
    for (long k = 0; k < (rep < 0 ? 1 : rounds); k++)
      for (int s = 0; s < n_streams; s++) {
        ort_stream_t *o = &st[s];
        memcpy(o->x, o->x + 512, 64 * sizeof(float)); /* context: the last 64 samples of the last input */
        memcpy(o->x + 64, pcm + pos[s] * 512, 512 * sizeof(float));
        const OrtValue *in[] = {o->vx, o->vstate, vsr};
        OrtValue *out[] = {o->vout, o->vstate_out};
        ORT_CHECK(api->Run(sess, NULL, in_names, in, 3, out_names, 2, out));
        memcpy(o->state, o->state_out, sizeof o->state);
        if (++pos[s] == nframes) pos[s] = 0;
      }
    if (rep < 0) r->rss_setup = rss_kb();
    else fps[rep] = (double)rounds * n_streams / (now_s() - t0);
  }
  qsort(fps, (size_t)reps, sizeof *fps, cmp_d);
  r->fps = fps[reps / 2];
  r->rss_end = rss_kb();
  return 0;
}
#endif

/* ---- driver ------------------------------------------------------------------------------ */

static int child(int argc, char **argv) { /* --one ENGINE N FRAMES REPS MODEL */
  if (argc != 7) return 2;
  int n_streams = atoi(argv[3]), reps = atoi(argv[5]);
  long frames = atol(argv[4]);
  size_t n;
  float *pcm = read_wav(&n);
  if (!pcm) return fprintf(stderr, "vad_streams: cannot read %s\n", AUDIO), 1;
  result_t r = {0};
  int rc;
  if (!strcmp(argv[2], "berth")) rc = run_berth(argv[6], n_streams, frames, reps, pcm, n, &r);
#ifdef BERTH_HAVE_ORT_HEADER
  else rc = run_ort(argv[6], n_streams, frames, reps, pcm, n, &r);
#else
  else rc = 2;
#endif
  if (!rc) printf("fps=%.1f rss_base=%ld rss_setup=%ld rss_end=%ld stream=%zu\n", r.fps, r.rss_base, r.rss_setup, r.rss_end,
                  r.stream_bytes);
  return rc;
}

static int spawn(const char *engine, int n, long frames, int reps, const char *model, result_t *r) {
  char cmd[2048], line[256];
  snprintf(cmd, sizeof cmd, "'/proc/%d/exe' --one %s %d %ld %d %s", (int)getpid(), engine, n, frames, reps, model);
  FILE *p = popen(cmd, "r");
  int ok = 0;
  while (p && fgets(line, sizeof line, p))
    if (sscanf(line, "fps=%lf rss_base=%ld rss_setup=%ld rss_end=%ld stream=%zu", &r->fps, &r->rss_base, &r->rss_setup,
               &r->rss_end, &r->stream_bytes) == 5)
      ok = 1;
  if (p) pclose(p);
  return !ok;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--one")) return child(argc, argv);
  char list[256] = "1,100,1000,10000";
  const char *model = "v5";
  long frames = 20000;
  int reps = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--streams")) snprintf(list, sizeof list, "%s", argv[i + 1]);
    else if (!strcmp(argv[i], "--frames")) frames = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--model")) model = argv[i + 1];
    else return fprintf(stderr, "usage: vad_streams [--streams 1,100,1000,10000] [--frames F] [--reps R] [--model v5|v6]\n"), 2;
  }
  if (frames < 1 || reps < 1) return 2;
  char onnx[512];
  snprintf(onnx, sizeof onnx, "%s/silero_vad_%s.onnx", DIST, model);
  if (access(onnx, R_OK)) return fprintf(stderr, "vad_streams: needs %s (tools/vad/fetch-model.sh)\n", onnx), 77;
  if (access(AUDIO, R_OK) && system("sh '" ROOT "/tools/vad/make-audio.sh' '" ROOT "/build/vad-audio'") != 0)
    return fprintf(stderr, "vad_streams: cannot make the audio (espeak-ng, sox)\n"), 77;
  printf("Silero VAD %s, 16 kHz, 512-sample frames + 64 context; N streams round robin on one thread, >= %ld frames "
         "a pass, median of %d passes; each row a fresh process\n", model, frames, reps);
  printf("berth: one program + one method shared, per stream a vad_stream.h stream (with segmentation); onnxruntime "
         "(C API, dlopen): one session, per-stream buffers and OrtValues\n");
  printf("%8s %12s %12s %7s %12s %12s %12s %12s\n", "streams", "berth fr/s", "ort fr/s", "b/ort", "berth RSS", "ort RSS",
         "berth B/str", "ort B/str");
  fflush(stdout);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    int n = atoi(tok);
    if (n < 1) continue;
    result_t b = {0}, o = {0};
    if (spawn("berth", n, frames, reps, model, &b)) return fprintf(stderr, "vad_streams: berth run failed\n"), 1;
    if (tok == list) printf("(berth_vad_stream_size: %zu bytes a stream)\n", b.stream_bytes);
    int have_ort = !spawn("ort", n, frames, reps, model, &o);
    if (have_ort)
      printf("%8d %12.0f %12.0f %7.2f %9.1f MB %9.1f MB %12.0f %12.0f\n", n, b.fps, o.fps, b.fps / o.fps, b.rss_end / 1024.0,
             o.rss_end / 1024.0, (b.rss_setup - b.rss_base) * 1024.0 / n, (o.rss_setup - o.rss_base) * 1024.0 / n);
    else
      printf("%8d %12.0f %12s %7s %9.1f MB %12s %12.0f %12s\n", n, b.fps, "n/a", "", b.rss_end / 1024.0, "n/a",
             (b.rss_setup - b.rss_base) * 1024.0 / n, "n/a");
    fflush(stdout);
  }
  return 0;
}
