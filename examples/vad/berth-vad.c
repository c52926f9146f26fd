/* berth-vad: voice activity detection with Silero VAD v5 compiled ahead of time by berth.
 *
 *   berth-vad [--model FILE.berth] [--probs] FILE.wav
 *
 * Reads a 16-bit PCM mono WAV at 16 or 8 kHz frame by frame and prints the speech segments,
 * one "START END" line each (seconds, truncated to whole milliseconds), or with --probs the
 * speech probability of every frame (%.9g). The frame is the program's input size: 512
 * samples for a program compiled with `--input input:f32[1,512]`, 256 for `[1,256]`.
 * A program with three inputs (input, state, sr) gets sr from the WAV (the top-level If on
 * sr is a runtime cond); one with two inputs was compiled for one rate (sr bound).
 * Without --model: vad16.berth (512 samples, sr = 16000) for 16 kHz files and vad.berth
 * (256 samples, sr at run time) for 8 kHz files, from the directory given at build time.
 *
 * Memory: the program bytes, the loaded program and the method's block (handle, state,
 * arenas) are allocated once at start-up; the frame loop uses only static buffers (stdio's
 * buffers for the WAV and stdout are static too, via setvbuf), so there is no heap use after
 * start-up (tests/cli/vad.sh checks that the count of heap calls does not grow with frames).
 *
 * Segments follow Silero's VADIterator with its defaults: speech starts at the first frame
 * with probability >= 0.5 (start padded back by 30 ms), ends once the probability stays
 * below 0.35 (neg_threshold = threshold - 0.15) for at least 100 ms (min_silence; end padded
 * by 30 ms); a segment still open at the end of the file ends there.
 * tools/vad/golden.js applies the same rule to onnxruntime's probabilities. */
#include <berth/runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BERTH_VAD_MODEL_DIR
#define BERTH_VAD_MODEL_DIR "."
#endif

#define MAX_WIN 512
static char g_filebuf[1 << 16], g_outbuf[1 << 12];
static int16_t g_pcm[MAX_WIN];
static float g_frame[MAX_WIN];
static float g_state[2 * 128];

static void *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = n >= 0 ? aligned_alloc(64, ((size_t)n + 63) / 64 * 64 + 64) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Positions f at the data chunk; returns its byte count, 0 on error (message printed). */
static uint32_t wav_open(FILE *f, const char *path, uint32_t *rate) {
  unsigned char h[12], c[8], fmt[16];
  int have_fmt = 0;
  if (fread(h, 1, 12, f) != 12 || memcmp(h, "RIFF", 4) || memcmp(h + 8, "WAVE", 4)) {
    fprintf(stderr, "berth-vad: %s: not a RIFF/WAVE file\n", path);
    return 0;
  }
  while (fread(c, 1, 8, f) == 8) {
    uint32_t n = le32(c + 4);
    if (!memcmp(c, "fmt ", 4) && n >= 16) {
      if (fread(fmt, 1, 16, f) != 16) break;
      have_fmt = 1;
      if (fseek(f, (long)(n - 16 + (n & 1)), SEEK_CUR)) break;
    } else if (!memcmp(c, "data", 4)) {
      if (!have_fmt || le16(fmt) != 1 || le16(fmt + 2) != 1 || le16(fmt + 14) != 16 ||
          (le32(fmt + 4) != 16000 && le32(fmt + 4) != 8000)) {
        fprintf(stderr, "berth-vad: %s: need 16-bit PCM, mono, 16000 or 8000 Hz\n", path);
        return 0;
      }
      *rate = le32(fmt + 4);
      return n ? n : 1;
    } else if (fseek(f, (long)(n + (n & 1)), SEEK_CUR)) {
      break;
    }
  }
  fprintf(stderr, "berth-vad: %s: no data chunk\n", path);
  return 0;
}

static void print_secs(uint64_t samples, uint32_t rate) {
  uint64_t ms = samples * 1000 / rate;
  printf("%llu.%03llu", (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000));
}

int main(int argc, char **argv) {
  const char *model = NULL, *wav = NULL;
  int probs = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--model") && i + 1 < argc) model = argv[++i];
    else if (!strcmp(argv[i], "--probs")) probs = 1;
    else if (argv[i][0] != '-' && !wav) wav = argv[i];
    else wav = NULL, i = argc;
  }
  if (!wav) {
    fprintf(stderr, "usage: berth-vad [--model FILE.berth] [--probs] FILE.wav\n");
    return 2;
  }
  FILE *in = fopen(wav, "rb");
  if (!in) {
    fprintf(stderr, "berth-vad: cannot open %s\n", wav);
    return 1;
  }
  setvbuf(in, g_filebuf, _IOFBF, sizeof g_filebuf);
  setvbuf(stdout, g_outbuf, _IOFBF, sizeof g_outbuf); /* stdio would malloc its buffer on the first printf */
  uint32_t rate = 0, data_bytes = wav_open(in, wav, &rate);
  if (!data_bytes) return 1;
  if (!model) model = rate == 16000 ? BERTH_VAD_MODEL_DIR "/vad16.berth" : BERTH_VAD_MODEL_DIR "/vad.berth";

  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  size_t len = 0;
  void *bytes = read_file(model, &len);
  if (!bytes) {
    fprintf(stderr, "berth-vad: cannot read %s\n", model);
    return 1;
  }
  berth_program_sizes_t sz;
  berth_program_t *prog = NULL;
  berth_method_t *fwd = NULL;
  if (berth_program_query(bytes, len, &sz, &diag)) goto fail;
  void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
  if (!pmem || !scratch) goto oom;
  if (berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &diag)) goto fail;
  free(scratch);
  int32_t m = berth_program_method_find(prog, "forward");
  int32_t n_in = berth_program_input_count(prog, m), n_out = berth_program_output_count(prog, m);
  berth_tensor_info_t xi, si, oi, ni;
  if (m < 0 || (n_in != 2 && n_in != 3) || n_out != 2 || berth_program_input_info(prog, m, 0, &xi) ||
      berth_program_input_info(prog, m, 1, &si) || berth_program_output_info(prog, m, 0, &oi) ||
      berth_program_output_info(prog, m, 1, &ni) || si.bytes != sizeof g_state || ni.bytes != sizeof g_state ||
      oi.bytes != sizeof(float) || xi.bytes % sizeof(float) || xi.bytes / sizeof(float) > MAX_WIN) {
    fprintf(stderr, "berth-vad: %s: not a Silero VAD v5 program (forward(input, state[, sr]) -> (output, stateN))\n", model);
    return 1;
  }
  size_t win = xi.bytes / sizeof(float);
  size_t need = berth_method_memory_size(prog, m);
  void *mmem = malloc(need);
  if (!mmem) goto oom;
  if (berth_method_init(prog, m, mmem, need, NULL, 0, &fwd, &diag)) goto fail;
  static float out_prob[1], out_state[2 * 128];
  if (!berth_program_outputs_planned(prog) &&
      (berth_method_set_output(fwd, 0, out_prob, sizeof out_prob, &diag) ||
       berth_method_set_output(fwd, 1, out_state, sizeof out_state, &diag)))
    goto fail;
  static int64_t sr;
  sr = rate;

  /* Silero VADIterator (defaults) over integer sample positions */
  const uint64_t min_silence = rate * 100 / 1000, pad = rate * 30 / 1000;
  uint64_t cur = 0, temp_end = 0, start = 0, total = 0;
  int triggered = 0;
  uint64_t frames = data_bytes / 2 / win;
  for (uint64_t f = 0; f < frames; f++) {
    if (fread(g_pcm, 2, win, in) != win) break;
    for (size_t i = 0; i < win; i++) {
      const unsigned char *p = (const unsigned char *)&g_pcm[i];
      g_frame[i] = (float)(int16_t)le16(p) / 32768.0f;
    }
    if (berth_method_set_input(fwd, 0, g_frame, win * sizeof(float), &diag) ||
        berth_method_set_input(fwd, 1, g_state, sizeof g_state, &diag) ||
        (n_in == 3 && berth_method_set_input(fwd, 2, &sr, sizeof sr, &diag)) || berth_method_execute(fwd, &diag))
      goto fail;
    const void *po, *ps;
    if (berth_method_output(fwd, 0, &po, NULL) || berth_method_output(fwd, 1, &ps, NULL)) goto fail;
    float prob = *(const float *)po;
    memcpy(g_state, ps, sizeof g_state);
    total += win;
    if (probs) {
      printf("%.9g\n", (double)prob);
      continue;
    }
    cur += win;
    if (prob >= 0.5f && temp_end) temp_end = 0;
    if (prob >= 0.5f && !triggered) {
      triggered = 1;
      start = cur > pad + win ? cur - pad - win : 0;
      continue;
    }
    if (prob < 0.35f && triggered) {
      if (!temp_end) temp_end = cur;
      if (cur - temp_end < min_silence) continue;
      uint64_t end = temp_end + pad - win;
      print_secs(start, rate), putchar(' '), print_secs(end < total ? end : total, rate), putchar('\n');
      temp_end = 0;
      triggered = 0;
    }
  }
  if (triggered) print_secs(start, rate), putchar(' '), print_secs(total, rate), putchar('\n');
  fclose(in);
  free(mmem);
  free(pmem);
  free(bytes);
  return 0;
oom:
  fprintf(stderr, "berth-vad: out of memory\n");
  return 1;
fail:
  fprintf(stderr, "berth-vad: %s\n", msg);
  return 1;
}
