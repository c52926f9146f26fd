/* berth-vad: speech segments with Silero VAD (legacy/v4, v5, v6) compiled ahead of time by
 * berth, segmented as silero-vad's get_speech_timestamps does. Run `berth-vad --help`.
 *
 * The model: --model FILE.berth (a compiled program) or FILE.onnx (compiled at start-up by
 * running `berth compile` with the shapes this audio needs: the berth tool is looked up in
 * $BERTH_TOOL, next to berth-vad, in the build tree's layout (../../berth) and on PATH);
 * without --model, $BERTH_VAD_MODEL. The audio: a WAV file (PCM 16-bit or 32-bit float,
 * any channel count, averaged to mono) or `-` for raw 16-bit little-endian mono PCM on
 * stdin (--sampling-rate, default 16000), read and processed as it arrives.
 *
 * Memory: the program, the method and the stream are allocated at start-up; the audio loop
 * uses static buffers only (stdio's buffers too, via setvbuf), so the heap is not touched
 * after start-up (tests/cli/vad.sh counts heap calls for two lengths of audio). */
#define _POSIX_C_SOURCE 200809L
#include "vad_stream.h"

#include <berth/runtime.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char USAGE[] =
    "usage: berth-vad [--model FILE.berth|FILE.onnx] [--json|--csv] [--samples] [--probs] [options] FILE.wav|-\n"
    "  speech segments of the audio, as silero-vad's get_speech_timestamps finds them; one\n"
    "  'START END' line each in seconds (--samples: in samples of the input), or JSON\n"
    "  {\"segments\":[{\"start\":S,\"end\":E},...]} (--json), or CSV start,end (--csv);\n"
    "  --probs prints every frame's speech probability instead.\n"
    "model: --model FILE (default $BERTH_VAD_MODEL): silero_vad_v5.onnx / silero_vad_v6.onnx /\n"
    "  silero_vad_legacy.onnx (compiled at start-up with the berth tool) or a compiled .berth\n"
    "  (v5/v6: --input 'input:f32[1,576]' --input 'state:f32[2,1,128]' --input 'sr:i64[]=16000',\n"
    "  at 8 kHz 'input:f32[1,288]' and 'sr:i64[]=8000'; legacy: 'input:f32[1,512]' 'sr:i64[]'\n"
    "  'h:f32[2,1,64]' 'c:f32[2,1,64]')\n"
    "options (get_speech_timestamps's, defaults in brackets):\n"
    "  --threshold P [0.5]                 speech when the probability >= P\n"
    "  --neg-threshold P [max(threshold - 0.15, 0.01)]  in speech, silence when below P\n"
    "  --min-speech-duration-ms MS [250]   drop segments not longer than MS\n"
    "  --max-speech-duration-s S [inf]     split longer segments\n"
    "  --min-silence-duration-ms MS [100]  silence that ends a segment\n"
    "  --speech-pad-ms MS [30]             padding each side (closer segments split the gap)\n"
    "  --min-silence-at-max-speech MS [98] silence that may serve as a split point\n"
    "  --use-max-poss-sil-at-max-speech 0|1 [1]  split at the longest such silence (0: the last)\n"
    "  --time-resolution N                 seconds rounded to N decimals (default: exact)\n"
    "  --window-size-samples N [512]       legacy (v4) models only: 256, 512, 768, 1024 or 1536\n"
    "  --sampling-rate HZ [16000]          rate of raw PCM on stdin ('-')\n"
    "rates: 8000 and 16000 Hz; multiples of 16000 are decimated to 16 kHz (every k-th sample,\n"
    "  as get_speech_timestamps does); other rates are refused (resample with sox first).\n";

/* ---- static buffers: nothing below allocates after start-up ----------------------------- */
static char g_inbuf[1 << 16], g_outbuf[1 << 12];
static unsigned char g_raw[1 << 15];
static float g_pcm[1 << 13];

typedef struct out_ctx {
  int format; /* 0 text, 1 json, 2 csv */
  bool samples;
  int time_res; /* -1: exact */
  int32_t rate, step;
  int64_t count;
} out_ctx_t;

/* seconds of model-rate sample position v (exact: 1/16000 and 1/8000 are finite decimals) */
static void print_secs(const out_ctx_t *o, int64_t input_samples, int64_t len_model) {
  int64_t v = input_samples / o->step;
  if (o->time_res >= 0) {
    double s = (double)v / o->rate, len_s = (double)len_model / o->rate;
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", o->time_res, s);
    if (strtod(buf, NULL) <= len_s) {
      /* Python prints round(x, n) as the shortest repr: drop trailing zeros */
      char *e = buf + strlen(buf);
      if (strchr(buf, '.')) {
        while (e[-1] == '0' && e[-2] != '.') *--e = 0;
      }
      fputs(buf, stdout);
      return;
    }
  }
  int64_t units = v * (10000000 / o->rate); /* 1e-7 s */
  char frac[16];
  snprintf(frac, sizeof frac, "%07lld", (long long)(units % 10000000));
  size_t n = strlen(frac);
  while (n > 1 && frac[n - 1] == '0') frac[--n] = 0;
  printf("%lld.%s", (long long)(units / 10000000), frac);
}

static int64_t g_len_model; /* model-rate length, known at finish; segments come before it */

static void on_segment(void *user, int64_t start, int64_t end) {
  out_ctx_t *o = user;
  int64_t len = g_len_model > 0 ? g_len_model : INT64_MAX / 4;
  if (o->format == 1) {
    fputs(o->count ? ",{\"start\":" : "{\"start\":", stdout);
    if (o->samples) printf("%lld", (long long)start); else print_secs(o, start, len);
    fputs(",\"end\":", stdout);
    if (o->samples) printf("%lld", (long long)end); else print_secs(o, end, len);
    fputs("}", stdout);
  } else {
    if (o->samples) printf("%lld", (long long)start); else print_secs(o, start, len);
    putchar(o->format == 2 ? ',' : ' ');
    if (o->samples) printf("%lld", (long long)end); else print_secs(o, end, len);
    putchar('\n');
    fflush(stdout); /* streaming: each segment as soon as it is final */
  }
  o->count++;
}

static void on_frame(void *user, int64_t start, float prob) {
  (void)user, (void)start;
  printf("%.9g\n", (double)prob);
}

/* ---- WAV --------------------------------------------------------------------------------- */

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

typedef struct audio {
  FILE *f;
  uint32_t rate, channels, bits;
  bool is_float;
  uint64_t left; /* bytes of the data chunk left (UINT64_MAX: until EOF) */
} audio_t;

static int skip(FILE *f, uint64_t n) {
  unsigned char b[256];
  while (n) {
    size_t k = n < sizeof b ? (size_t)n : sizeof b;
    if (fread(b, 1, k, f) != k) return -1;
    n -= k;
  }
  return 0;
}

/* Positions a at the data chunk; 0 on success, else prints a message and returns 1. */
static int wav_open(audio_t *a, const char *path) {
  unsigned char h[12], c[8], fmt[40];
  bool have_fmt = false;
  if (fread(h, 1, 12, a->f) != 12 || memcmp(h, "RIFF", 4) || memcmp(h + 8, "WAVE", 4)) {
    fprintf(stderr, "berth-vad: %s: not a RIFF/WAVE file\n", path);
    return 1;
  }
  while (fread(c, 1, 8, a->f) == 8) {
    uint32_t n = le32(c + 4);
    if (!memcmp(c, "fmt ", 4)) {
      if (n < 16 || n > sizeof fmt + 1024) break;
      size_t k = n < sizeof fmt ? n : sizeof fmt;
      if (fread(fmt, 1, k, a->f) != k || skip(a->f, n - k + (n & 1))) break;
      uint16_t tag = le16(fmt);
      if (tag == 0xFFFE && n >= 40) tag = le16(fmt + 24); /* WAVE_FORMAT_EXTENSIBLE: the subformat GUID */
      a->channels = le16(fmt + 2), a->rate = le32(fmt + 4), a->bits = le16(fmt + 14);
      a->is_float = tag == 3;
      if (!((tag == 1 && a->bits == 16) || (tag == 3 && a->bits == 32)) || a->channels < 1 || a->channels > 64) {
        fprintf(stderr, "berth-vad: %s: format %u, %u bits, %u channels: need PCM 16-bit or 32-bit float, 1 to 64 channels\n",
                path, (unsigned)tag, (unsigned)a->bits, (unsigned)a->channels);
        return 1;
      }
      have_fmt = true;
    } else if (!memcmp(c, "data", 4)) {
      if (!have_fmt) break;
      a->left = n == 0xFFFFFFFFu ? UINT64_MAX : n; /* streamed WAVs leave the size unset */
      return 0;
    } else if (skip(a->f, (uint64_t)n + (n & 1))) {
      break;
    }
  }
  fprintf(stderr, "berth-vad: %s: no fmt chunk before a data chunk\n", path);
  return 1;
}

/* Reads up to cap mono samples (channels averaged, in float as torchaudio does); 0 at end. */
static size_t audio_read(audio_t *a, float *out, size_t cap) {
  size_t frame_bytes = (size_t)a->channels * (a->bits / 8);
  size_t want = sizeof g_raw / frame_bytes;
  if (want > cap) want = cap;
  if (a->left != UINT64_MAX && want > a->left / frame_bytes) want = (size_t)(a->left / frame_bytes);
  size_t got = fread(g_raw, frame_bytes, want, a->f);
  if (a->left != UINT64_MAX) a->left -= got * frame_bytes;
  for (size_t i = 0; i < got; i++) {
    const unsigned char *p = g_raw + i * frame_bytes;
    float sum = 0;
    for (uint32_t ch = 0; ch < a->channels; ch++) {
      float v;
      if (a->is_float) {
        uint32_t u = le32(p + 4 * ch);
        memcpy(&v, &u, sizeof v);
      } else {
        v = (float)(int16_t)le16(p + 2 * ch) / 32768.0f;
      }
      sum = ch ? sum + v : v;
    }
    out[i] = a->channels > 1 ? sum / (float)a->channels : sum;
  }
  return got;
}

/* ---- the model -------------------------------------------------------------------------- */

static void *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 20, n = 0;
  unsigned char *buf = aligned_alloc(64, cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    unsigned char *nb = aligned_alloc(64, cap * 2);
    if (nb) memcpy(nb, buf, n);
    free(buf);
    buf = nb;
    cap *= 2;
  }
  int err = ferror(f);
  fclose(f);
  if (err) free(buf), buf = NULL;
  *len = n;
  return buf;
}

/* The berth tool: $BERTH_TOOL, next to this program, the build tree (examples/vad/../../berth). */
static int find_berth(char *out, size_t cap) {
  const char *env = getenv("BERTH_TOOL");
  if (env && *env) return snprintf(out, cap, "%s", env), 0;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) {
      *slash = 0;
      snprintf(out, cap, "%s/berth", self);
      if (!access(out, X_OK)) return 0;
      snprintf(out, cap, "%s/../../berth", self);
      if (!access(out, X_OK)) return 0;
    }
  }
  snprintf(out, cap, "berth"); /* on PATH */
  return 1;
}

/* Compiles an ONNX Silero model for this rate (v5/v6 first, then legacy) into a temporary
 * .berth and returns its bytes. */
static void *compile_onnx(const char *onnx, int32_t rate, int32_t window, size_t *len) {
  char tool[4200], tmpl[] = "/tmp/berth-vad-XXXXXX", out[64], log[64];
  int on_path = find_berth(tool, sizeof tool);
  /* a private directory (0700): nobody else can plant a file or a link at the names used */
  if (!mkdtemp(tmpl)) {
    fprintf(stderr, "berth-vad: cannot create a temporary directory: %s\n", strerror(errno));
    return NULL;
  }
  snprintf(out, sizeof out, "%s/model.berth", tmpl);
  snprintf(log, sizeof log, "%s/compile.log", tmpl);
  char in5[64], sr5[32], in4[64];
  snprintf(in5, sizeof in5, "input:f32[1,%d]", rate == 16000 ? 576 : 288);
  snprintf(sr5, sizeof sr5, "sr:i64[]=%d", (int)rate);
  snprintf(in4, sizeof in4, "input:f32[1,%d]", (int)window);
  /* --state: the model's state pair becomes a mutable buffer the plan updates in place, so
   * no state goes in or out per frame (berth-vad runs one stream) */
  char *v5[] = {tool, "compile", (char *)onnx, "--input", in5, "--input", "state:f32[2,1,128]", "--input", sr5,
                "--state", "state=stateN", "--no-ir", "-o", out, NULL};
  char *v4[] = {tool, "compile", (char *)onnx, "--input", in4, "--input", "sr:i64[]", "--input", "h:f32[2,1,64]",
                "--input", "c:f32[2,1,64]", "--state", "h=hn", "--state", "c=cn", "--no-ir", "-o", out, NULL};
  char *const *tries[] = {v5, v4};
  void *bytes = NULL;
  for (int t = 0; t < 2 && !bytes; t++) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int st = 0;
    int rc = on_path ? posix_spawnp(&pid, tool, &fa, NULL, tries[t], environ) : posix_spawn(&pid, tool, &fa, NULL, tries[t], environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) {
      fprintf(stderr, "berth-vad: %s: cannot run the berth tool '%s' to compile it (%s); set BERTH_TOOL or give a .berth\n",
              onnx, tool, strerror(rc));
      break;
    }
    if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
      bytes = read_all(out, len);
    } else if (t == 1) {
      char msg[1024] = "";
      FILE *lf = fopen(log, "r");
      if (lf) {
        size_t k = fread(msg, 1, sizeof msg - 1, lf);
        msg[k] = 0;
        fclose(lf);
      }
      char *nl = strchr(msg, '\n');
      if (nl) *nl = 0;
      fprintf(stderr,
              "berth-vad: %s: not a Silero VAD model berth can compile (tried v5/v6 inputs input, state, sr and legacy "
              "inputs input, sr, h, c); last error: %s\n",
              onnx, msg);
    }
  }
  unlink(out);
  unlink(log);
  rmdir(tmpl);
  return bytes;
}

/* ---- options ---------------------------------------------------------------------------- */

static int parse_num(const char *opt, const char *s, double lo, double hi, double *v) {
  char *end;
  errno = 0;
  double d = strtod(s, &end);
  if (!*s || *end || errno || !(d >= lo && d <= hi)) {
    fprintf(stderr, "berth-vad: %s '%s': need a number from %g to %g\n", opt, s, lo, hi);
    return 1;
  }
  *v = d;
  return 0;
}

static int parse_int(const char *opt, const char *s, double lo, double hi, int32_t *v) {
  double d;
  if (parse_num(opt, s, lo, hi, &d)) return 1;
  if (d != floor(d)) {
    fprintf(stderr, "berth-vad: %s '%s': need a whole number\n", opt, s);
    return 1;
  }
  *v = (int32_t)d;
  return 0;
}

int main(int argc, char **argv) {
  const char *model = getenv("BERTH_VAD_MODEL"), *input = NULL;
  berth_vad_options_t o;
  berth_vad_options_default(&o);
  out_ctx_t oc = {0, false, -1, 0, 1, 0};
  bool probs = false;
  int32_t window = 512, raw_rate = 16000, flag = 1;
  bool window_set = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0;
#define VALUE() (v ? (i++, 0) : (fprintf(stderr, "berth-vad: %s needs a value\n", a), 1))
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return fputs(USAGE, stdout), 0;
    else if (!strcmp(a, "--json")) oc.format = 1;
    else if (!strcmp(a, "--csv")) oc.format = 2;
    else if (!strcmp(a, "--samples")) oc.samples = true;
    else if (!strcmp(a, "--probs")) probs = true;
    else if (!strcmp(a, "--model")) bad = VALUE() || !(model = v);
    else if (!strcmp(a, "--threshold")) bad = VALUE() || parse_num(a, v, 0, 1, &o.threshold);
    else if (!strcmp(a, "--neg-threshold")) bad = VALUE() || parse_num(a, v, 0, 1, &o.neg_threshold);
    else if (!strcmp(a, "--min-speech-duration-ms")) bad = VALUE() || parse_int(a, v, 0, 3600000, &o.min_speech_duration_ms);
    else if (!strcmp(a, "--max-speech-duration-s")) bad = VALUE() || parse_num(a, v, 1e-3, INFINITY, &o.max_speech_duration_s);
    else if (!strcmp(a, "--min-silence-duration-ms")) bad = VALUE() || parse_int(a, v, 0, 3600000, &o.min_silence_duration_ms);
    else if (!strcmp(a, "--speech-pad-ms")) bad = VALUE() || parse_int(a, v, 0, 3600000, &o.speech_pad_ms);
    else if (!strcmp(a, "--min-silence-at-max-speech")) bad = VALUE() || parse_int(a, v, 0, 3600000, &o.min_silence_at_max_speech);
    else if (!strcmp(a, "--use-max-poss-sil-at-max-speech"))
      bad = VALUE() || parse_int(a, v, 0, 1, &flag) || ((o.use_max_poss_sil_at_max_speech = flag), 0);
    else if (!strcmp(a, "--time-resolution")) bad = VALUE() || parse_int(a, v, 0, 7, &oc.time_res);
    else if (!strcmp(a, "--window-size-samples")) bad = VALUE() || parse_int(a, v, 256, 1536, &window) || !(window_set = true);
    else if (!strcmp(a, "--sampling-rate")) bad = VALUE() || parse_int(a, v, 1, 1e7, &raw_rate);
    else if ((a[0] != '-' || !strcmp(a, "-")) && !input) input = a;
    else {
      fprintf(stderr, "berth-vad: unknown option or extra argument '%s'\n%s", a, USAGE);
      return 2;
    }
    if (bad) return 2;
#undef VALUE
  }
  if (!input) {
    fputs(USAGE, stderr);
    return 2;
  }
  if (!model) {
    fprintf(stderr, "berth-vad: no model: give --model silero_vad_v5.onnx (or v6, legacy, or a compiled .berth), or set "
                    "BERTH_VAD_MODEL (tools/vad/fetch-model.sh fetches the models)\n");
    return 2;
  }
  if (window != 256 && window != 512 && window != 768 && window != 1024 && window != 1536) {
    fprintf(stderr, "berth-vad: --window-size-samples %d: need 256, 512, 768, 1024 or 1536\n", (int)window);
    return 2;
  }

  /* the audio's header first: the rate decides the shapes an .onnx is compiled with */
  audio_t au = {0};
  if (!strcmp(input, "-")) {
    au.f = stdin, au.rate = (uint32_t)raw_rate, au.channels = 1, au.bits = 16, au.left = UINT64_MAX;
  } else if (!(au.f = fopen(input, "rb"))) {
    fprintf(stderr, "berth-vad: cannot open %s: %s\n", input, strerror(errno));
    return 1;
  }
  setvbuf(au.f, g_inbuf, _IOFBF, sizeof g_inbuf);
  setvbuf(stdout, g_outbuf, _IOFBF, sizeof g_outbuf); /* stdio would malloc its buffer on the first printf */
  if (au.f != stdin && wav_open(&au, input)) return 1;
  int32_t rate = (int32_t)au.rate, model_rate = rate > 16000 && rate % 16000 == 0 ? 16000 : rate;
  if (model_rate != 16000 && model_rate != 8000) {
    fprintf(stderr, "berth-vad: %s: sample rate %d Hz: Silero VAD takes 8000 or 16000 Hz (or a multiple of 16000, "
                    "decimated); resample first (e.g. sox IN.wav -r 16000 OUT.wav)\n", input, rate);
    return 1;
  }
  oc.rate = model_rate, oc.step = rate / model_rate;

  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  size_t len = 0;
  void *bytes = read_all(model, &len);
  if (!bytes) {
    fprintf(stderr, "berth-vad: cannot read model %s: %s\n", model, strerror(errno));
    return 1;
  }
  if (!berth_program_is_berth(bytes, len)) {
    free(bytes);
    if (!(bytes = compile_onnx(model, model_rate, window, &len))) return 1;
  } else if (window_set) {
    fprintf(stderr, "berth-vad: --window-size-samples applies when compiling a legacy .onnx; a .berth has its frame\n");
    return 2;
  }
  berth_program_sizes_t sz;
  berth_program_t *prog = NULL;
  berth_vad_model_t *vm = NULL;
  berth_vad_stream_t *st = NULL;
  if (berth_program_query(bytes, len, &sz, &diag)) goto fail;
  void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
  if (!pmem || !scratch) goto oom;
  if (berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &diag)) goto fail;
  free(scratch);
  size_t mbytes = berth_vad_model_memory_size(prog);
  void *mmem = mbytes ? malloc(mbytes) : NULL, *smem = NULL;
  if (mbytes && !mmem) goto oom;
  if (berth_vad_model_init(prog, mmem, mbytes, &vm, &diag)) goto fail;
  if (!(smem = malloc(berth_vad_stream_size(vm)))) goto oom;
  if (window_set && berth_vad_model_kind(vm) != BERTH_VAD_KIND_LEGACY) {
    fprintf(stderr, "berth-vad: --window-size-samples applies to legacy (v4) models only (v5/v6 take 512 at 16 kHz, 256 at 8 kHz)\n");
    return 2;
  }
  if (probs) o.on_frame = on_frame;
  else o.on_segment = on_segment;
  o.user = &oc;
  if (berth_vad_stream_init(vm, rate, &o, smem, berth_vad_stream_size(vm), &st, &diag)) goto fail;

  if (oc.format == 1 && !probs) fputs("{\"segments\":[", stdout);
  if (oc.format == 2 && !probs) fputs(oc.samples ? "start,end\n" : "start,end\n", stdout);
  for (;;) {
    size_t n = audio_read(&au, g_pcm, sizeof g_pcm / sizeof g_pcm[0]);
    if (!n) break;
    if (berth_vad_stream_push(st, g_pcm, n, &diag)) goto fail;
  }
  if (ferror(au.f)) {
    fprintf(stderr, "berth-vad: %s: read error\n", input);
    return 1;
  }
  g_len_model = (berth_vad_stream_position(st) + oc.step - 1) / oc.step;
  if (berth_vad_stream_finish(st, &diag)) goto fail;
  if (oc.format == 1 && !probs) fputs("]}\n", stdout);
  if (au.f != stdin) fclose(au.f);
  free(smem);
  free(mmem);
  free(pmem);
  free(bytes);
  /* the segments are the result: losing them (a full disk, a closed pipe) is a failure */
  if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
    fprintf(stderr, "berth-vad: cannot write standard output: %s\n", strerror(errno));
    return 1;
  }
  return 0;
oom:
  fprintf(stderr, "berth-vad: out of memory\n");
  return 1;
fail:
  fprintf(stderr, "berth-vad: %s: %s\n", model, msg);
  return 1;
}
