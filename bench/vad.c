/* bench/vad: Silero VAD, berth against onnxruntime on one thread, side by side in one run
 * over the same frames (the test audio of tools/vad/make-audio.sh). A program that prints a
 * table, not a test. (bench/vad_streams: many streams, onnxruntime through its C API.)
 *
 *   bench/vad [--reps N]      (default 5; run from anywhere, paths are fixed at build time)
 *
 * Needs the models (tools/vad/fetch-model.sh: build/vad-deps), the audio (build/vad-audio,
 * made with tools/vad/make-audio.sh if missing), berth-vad, and, for onnxruntime, Node
 * (tools/vad/golden.js --bench: onnxruntime-node, intra = inter = 1 thread, sequential, all
 * graph optimizations; its time per frame includes the N-API call). The programs are
 * compiled at start-up with the berth tool, fed as silero-vad feeds them (frame + context).
 *
 * Per configuration (program, rate, frame size):
 *  - us/frame: median over all frames of REPS passes (after one warm-up pass) of one
 *    execute (berth, in this process, state carried over) or one session.run (onnxruntime);
 *  - peak RSS: berth-vad on the same WAV (its ru_maxrss), and the Node process for
 *    onnxruntime (process.resourceUsage().maxRSS: includes Node itself, ~40 MB);
 *  - berth's arena bytes (the plan in the .berth) and the planner's lower bound (from
 *    `berth plan` on the model with the same input specs).
 *
 *   bench/vad --views-ab [--reps N]
 * compares the v5 and v6 programs planned with views (DESIGN rule 7) and with --no-views
 * (every reshape, squeeze, unsqueeze, clone and contiguous slice a copy kernel), alternating
 * one pass of each N times (default 9) in this process: the median over the passes of each
 * pass's median us per frame, and their ratio. */
#define _DEFAULT_SOURCE /* wait4, popen */
#include <berth/runtime.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROOT BERTH_SOURCE_DIR
#define DIST ROOT "/build/vad-deps/node_modules/@ricky0123/vad-web/dist"
#define AUDIO ROOT "/build/vad-audio"

typedef struct {
  const char *name, *model, *program, *wav, *specs;
  int rate, win, ctx;
} config_t;

static const config_t CONFIGS[] = {
    {"v5, 16 kHz, 512 + 64", DIST "/silero_vad_v5.onnx", "/tmp/bench-vad-v5-16k.berth", AUDIO "/speech_16k.wav",
     "--input input:f32[1,576] --input state:f32[2,1,128] --input sr:i64[]=16000", 16000, 512, 64},
    {"v5, 8 kHz, 256 + 32", DIST "/silero_vad_v5.onnx", "/tmp/bench-vad-v5-8k.berth", AUDIO "/speech_8k.wav",
     "--input input:f32[1,288] --input state:f32[2,1,128] --input sr:i64[]=8000", 8000, 256, 32},
    {"v6, 16 kHz, 512 + 64", DIST "/silero_vad_v6.onnx", "/tmp/bench-vad-v6-16k.berth", AUDIO "/speech_16k.wav",
     "--input input:f32[1,576] --input state:f32[2,1,128] --input sr:i64[]=16000", 16000, 512, 64},
};

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}
static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void *read_file(const char *path, size_t *len, size_t align) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = n >= 0 ? aligned_alloc(align, ((size_t)n + align - 1) / align * align + align) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

/* 16-bit mono PCM samples of a WAV (the data chunk), as floats / 32768 */
static float *read_wav(const char *path, size_t *n) {
  size_t len;
  unsigned char *b = read_file(path, &len, 16);
  if (!b || len < 12 || memcmp(b, "RIFF", 4) || memcmp(b + 8, "WAVE", 4)) return free(b), NULL;
  size_t off = 12;
  while (off + 8 <= len) {
    uint32_t sz = b[off + 4] | b[off + 5] << 8 | (uint32_t)b[off + 6] << 16 | (uint32_t)b[off + 7] << 24;
    if (!memcmp(b + off, "data", 4)) {
      size_t cnt = (sz < len - off - 8 ? sz : len - off - 8) / 2;
      float *s = malloc(cnt * sizeof *s + 1);
      for (size_t i = 0; s && i < cnt; i++)
        s[i] = (float)(int16_t)(b[off + 8 + 2 * i] | b[off + 9 + 2 * i] << 8) / 32768.0f;
      free(b);
      *n = cnt;
      return s;
    }
    off += 8 + sz + (sz & 1);
  }
  free(b);
  return NULL;
}

/* berth: median us per execute over reps passes; arena bytes */
static int run_berth(const config_t *c, int reps, double *median, uint64_t *arena) {
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  size_t len, n;
  void *bytes = read_file(c->program, &len, 64);
  float *pcm = read_wav(c->wav, &n);
  if (!bytes || !pcm) {
    fprintf(stderr, "bench/vad: cannot read %s or %s\n", c->program, c->wav);
    return 1;
  }
  berth_program_sizes_t sz;
  berth_program_t *prog;
  berth_method_t *fwd;
  if (berth_program_query(bytes, len, &sz, &diag)) goto fail;
  void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
  if (berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &diag)) goto fail;
  free(scratch);
  int32_t m = berth_program_method_find(prog, "forward");
  *arena = 0;
  for (int32_t p = 0; p < berth_program_pool_count(prog, m); p++) *arena += berth_program_pool_size(prog, m, p);
  size_t need = berth_method_memory_size(prog, m);
  void *mmem = malloc(need);
  if (berth_method_init(prog, m, mmem, need, NULL, 0, &fwd, &diag)) goto fail;
  static float out_prob[1], out_state[256], state[256];
  if (!berth_program_outputs_planned(prog) &&
      (berth_method_set_output(fwd, 0, out_prob, sizeof out_prob, &diag) ||
       berth_method_set_output(fwd, 1, out_state, sizeof out_state, &diag)))
    goto fail;
  size_t frames = n / (size_t)c->win;
  double *t = malloc(frames * (size_t)reps * sizeof *t);
  static float x[576];
  for (int r = -1; r < reps; r++) { /* pass -1: warm-up */
    memset(state, 0, sizeof state);
    memset(x, 0, sizeof x);
    for (size_t f = 0; f < frames; f++) {
      memmove(x, x + c->win, (size_t)c->ctx * sizeof(float)); /* silero-vad's context */
      memcpy(x + c->ctx, pcm + f * (size_t)c->win, (size_t)c->win * sizeof(float));
      double t0 = now_us();
      if (berth_method_set_input(fwd, 0, x, (size_t)(c->win + c->ctx) * sizeof(float), &diag) ||
          berth_method_set_input(fwd, 1, state, sizeof state, &diag) || berth_method_execute(fwd, &diag))
        goto fail;
      const void *ps;
      if (berth_method_output(fwd, 1, &ps, NULL, &diag)) goto fail;
      memcpy(state, ps, sizeof state);
      if (r >= 0) t[(size_t)r * frames + f] = now_us() - t0;
    }
  }
  qsort(t, frames * (size_t)reps, sizeof *t, cmp_d);
  *median = t[frames * (size_t)reps / 2];
  free(t);
  free(mmem);
  free(pmem);
  free(bytes);
  free(pcm);
  return 0;
fail:
  fprintf(stderr, "bench/vad: %s: %s\n", c->program, msg);
  return 1;
}

/* peak RSS in KB of a command run as a child (wait4). A child's ru_maxrss includes the
 * image it was forked from, so main calls this first, while this process is small. */
static long child_rss_kb(char *const argv[]) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stdout)) _exit(127);
    execv(argv[0], argv);
    _exit(127);
  }
  int st;
  struct rusage ru;
  if (pid < 0 || wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) return -1;
  return ru.ru_maxrss;
}

static long plan_lower_bound(const config_t *c) {
  char cmd[1024], line[512];
  snprintf(cmd, sizeof cmd, "'%s' plan '%s' %s 2>/dev/null", BERTH_TOOL, c->model, c->specs);
  FILE *p = popen(cmd, "r");
  long lb = -1, arena, pool;
  int header = 0;
  while (p && fgets(line, sizeof line, p))
    if (strstr(line, "lower bound")) header = 1;
    else if (header && sscanf(line, " %ld %ld %ld", &pool, &arena, &lb) == 3) break;
  if (p) pclose(p);
  return lb;
}

static int run_ort(const config_t *c, int reps, double *median, long *rss) {
  char cmd[1024], line[512];
  snprintf(cmd, sizeof cmd, "node '%s/tools/vad/golden.js' --bench %d '%s' '%s' 2>&1", ROOT, reps, c->model, c->wav);
  FILE *p = popen(cmd, "r");
  int ok = 0;
  while (p && fgets(line, sizeof line, p))
    if (sscanf(line, "ort frames=%*d median_us=%lf rss_kb=%ld", median, rss) == 2) ok = 1;
  if (p) pclose(p);
  return !ok;
}

/* --views-ab: the same configurations planned with and without views, passes interleaved. */
static int views_ab(int rounds) {
  enum { NC = sizeof CONFIGS / sizeof CONFIGS[0] };
  printf("Silero VAD, one thread, views against --no-views, %d interleaved passes each over the test audio\n", rounds);
  printf("%-24s %12s %12s %9s\n", "config", "views us", "copies us", "ratio");
  for (size_t i = 0; i < NC; i++) {
    config_t c[2] = {CONFIGS[i], CONFIGS[i]};
    char path[2][128], cmd[1024];
    double med[2][64];
    for (int k = 0; k < 2; k++) {
      snprintf(path[k], sizeof path[k], "%s.%s", CONFIGS[i].program, k ? "noviews" : "views");
      c[k].program = path[k];
      snprintf(cmd, sizeof cmd, "'%s' compile '%s' %s --no-ir %s -o '%s' >/dev/null", BERTH_TOOL, c[k].model, c[k].specs,
               k ? "--no-views" : "", path[k]);
      if (system(cmd)) return fprintf(stderr, "bench/vad: %s failed\n", cmd), 1;
    }
    uint64_t arena;
    for (int r = 0; r < rounds; r++)
      for (int k = 0; k < 2; k++)
        if (run_berth(&c[k], 1, &med[k][r], &arena)) return 1;
    qsort(med[0], (size_t)rounds, sizeof med[0][0], cmp_d);
    qsort(med[1], (size_t)rounds, sizeof med[1][0], cmp_d);
    double a = med[0][rounds / 2], b = med[1][rounds / 2];
    printf("%-24s %12.2f %12.2f %9.3f\n", CONFIGS[i].name, a, b, a / b);
    fflush(stdout);
  }
  return 0;
}

int main(int argc, char **argv) {
  int reps = 5;
  bool ab = argc >= 2 && !strcmp(argv[1], "--views-ab");
  if (ab) {
    reps = argc == 4 && !strcmp(argv[2], "--reps") ? atoi(argv[3]) : 9;
    reps = reps > 64 ? 64 : reps;
  }
  if (!ab && argc == 3 && !strcmp(argv[1], "--reps")) reps = atoi(argv[2]);
  if (reps < 1) reps = 1;
  if (access(DIST "/silero_vad_v6.onnx", R_OK)) {
    fprintf(stderr, "bench/vad: needs %s (tools/vad/fetch-model.sh)\n", DIST "/silero_vad_v6.onnx");
    return 77;
  }
  if (access(AUDIO "/speech_16k.wav", R_OK) && system("sh '" ROOT "/tools/vad/make-audio.sh' '" AUDIO "'") != 0) {
    fprintf(stderr, "bench/vad: cannot make the audio (espeak-ng, sox)\n");
    return 77;
  }
  if (ab) return views_ab(reps);
  enum { NC = sizeof CONFIGS / sizeof CONFIGS[0] };
  for (size_t i = 0; i < NC; i++) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' compile '%s' %s --no-ir -o '%s' >/dev/null", BERTH_TOOL, CONFIGS[i].model, CONFIGS[i].specs,
             CONFIGS[i].program);
    if (system(cmd)) return fprintf(stderr, "bench/vad: %s failed\n", cmd), 1;
  }
  long brss[NC];
  for (size_t i = 0; i < NC; i++) {
    char *const vargv[] = {BERTH_VAD_DIR "/berth-vad", "--model", (char *)CONFIGS[i].program, (char *)CONFIGS[i].wav, NULL};
    brss[i] = child_rss_kb(vargv);
  }
  printf("Silero VAD, one thread, %d passes over the test audio; onnxruntime through Node (onnxruntime-node)\n", reps);
  printf("%-32s %9s %9s %7s %10s %10s %7s %9s %9s %6s\n", "config", "berth us", "ort us", "ort/b",
         "berth RSS", "ort RSS", "ort/b", "arena B", "lower B", "ratio");
  for (size_t i = 0; i < NC; i++) {
    const config_t *c = &CONFIGS[i];
    double bu = 0, ou = -1;
    uint64_t arena = 0;
    long orss = -1;
    if (run_berth(c, reps, &bu, &arena)) return 1;
    long lb = plan_lower_bound(c);
    if (run_ort(c, reps, &ou, &orss)) fprintf(stderr, "bench/vad: onnxruntime via node failed (node, build/vad-deps?)\n");
    printf("%-32s %9.1f %9.1f %7.2f %7.1f MB %7.1f MB %7.2f %9llu %9ld %6.3f\n", c->name, bu, ou, ou / bu,
           (double)brss[i] / 1024, (double)orss / 1024, (double)orss / (double)brss[i], (unsigned long long)arena, lb,
           lb > 0 ? (double)arena / (double)lb : 0.0);
    fflush(stdout);
  }
  return 0;
}
