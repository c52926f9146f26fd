/* vad-stream-check: checks vad_stream.h as an embedder uses it (tests/cli/vad.sh runs it).
 *
 *   vad-stream-check PROGRAM.berth FILE.wav EXPECTED.segments [SEED]
 *
 * Three streams share one model and are pushed interleaved, in chunks of random sizes (1 to
 * 3,000 samples, seeded; the seed is printed on failure); each must report exactly the
 * segments of EXPECTED ("START END" lines in samples, get_speech_timestamps's defaults),
 * every segment but those reported at finish no later than the first frame after which no
 * other segment could start within 2 * speech_pad of it, and the stream is then reset and
 * run again with one push of everything. Prints "ok N segments, M before finish". */
#include "vad_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEGS 256
typedef struct got {
  int64_t seg[MAX_SEGS][2];
  int n, before_finish;
  bool finishing;
} got_t;

static void on_seg(void *user, int64_t s, int64_t e) {
  got_t *g = user;
  if (g->n < MAX_SEGS) g->seg[g->n][0] = s, g->seg[g->n][1] = e;
  g->n++;
  if (!g->finishing) g->before_finish++;
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

static uint32_t rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 33);
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: vad-stream-check PROGRAM.berth FILE.wav EXPECTED.segments [SEED]\n");
    return 2;
  }
  uint64_t seed = argc == 5 ? strtoull(argv[4], NULL, 10) : 1, rs = seed;
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  size_t len, wlen;
  void *bytes = slurp(argv[1], &len);
  unsigned char *w = slurp(argv[2], &wlen);
  FILE *ef = fopen(argv[3], "r");
  if (!bytes || !w || !ef || wlen < 44) return fprintf(stderr, "vad-stream-check: cannot read the inputs\n"), 1;
  int64_t want[MAX_SEGS][2];
  int nwant = 0;
  long long a, b;
  while (nwant < MAX_SEGS && fscanf(ef, "%lld %lld", &a, &b) == 2) want[nwant][0] = a, want[nwant][1] = b, nwant++;
  fclose(ef);
  /* a 16-bit mono WAV as sox writes it: the data chunk follows a 44-byte header */
  int32_t rate = w[24] | w[25] << 8 | w[26] << 16 | w[27] << 24;
  size_t n = (wlen - 44) / 2;
  float *pcm = malloc(n * sizeof *pcm + 1);
  for (size_t i = 0; i < n; i++) pcm[i] = (float)(int16_t)(w[44 + 2 * i] | w[45 + 2 * i] << 8) / 32768.0f;

  berth_program_sizes_t sz;
  berth_program_t *prog;
  berth_vad_model_t *m;
  if (berth_program_query(bytes, len, &sz, &diag)) goto fail;
  void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
  if (berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &diag)) goto fail;
  free(scratch);
  size_t msz = berth_vad_model_memory_size(prog);
  void *mmem = malloc(msz);
  if (berth_vad_model_init(prog, mmem, msz, &m, &diag)) goto fail;
  enum { NS = 3 };
  got_t got[NS];
  berth_vad_stream_t *st[NS];
  void *smem[NS];
  size_t pos[NS] = {0};
  memset(got, 0, sizeof got);
  for (int k = 0; k < NS; k++) {
    berth_vad_options_t o;
    berth_vad_options_default(&o);
    o.on_segment = on_seg, o.user = &got[k];
    smem[k] = malloc(berth_vad_stream_size(m));
    if (berth_vad_stream_init(m, rate, &o, smem[k], berth_vad_stream_size(m), &st[k], &diag)) goto fail;
  }
  for (int done = 0; done < NS;) {
    done = 0;
    for (int k = 0; k < NS; k++) {
      size_t c = 1 + rnd(&rs) % 3000;
      if (pos[k] + c > n) c = n - pos[k];
      if (c && berth_vad_stream_push(st[k], pcm + pos[k], c, &diag)) goto fail;
      pos[k] += c;
      done += pos[k] == n;
    }
  }
  int fails = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int k = 0; k < (pass ? 1 : NS); k++) {
      got[k].finishing = true;
      if (berth_vad_stream_finish(st[k], &diag)) goto fail;
      bool same = got[k].n == nwant;
      for (int i = 0; same && i < nwant; i++) same = got[k].seg[i][0] == want[i][0] && got[k].seg[i][1] == want[i][1];
      if (!same) {
        fprintf(stderr, "FAIL stream %d (pass %d, seed %llu): %d segments, expected %d\n", k, pass, (unsigned long long)seed,
                got[k].n, nwant);
        for (int i = 0; i < got[k].n && i < MAX_SEGS; i++)
          fprintf(stderr, "  %lld %lld\n", (long long)got[k].seg[i][0], (long long)got[k].seg[i][1]);
        fails++;
      }
    }
    if (pass == 0) {
      /* streaming: with the defaults (pad 30 ms < the gaps), all but the last come early */
      if (nwant > 1 && got[0].before_finish < nwant - 1) {
        fprintf(stderr, "FAIL only %d of %d segments reported before finish\n", got[0].before_finish, nwant);
        fails++;
      }
      printf("ok %d segments, %d before finish, 3 interleaved streams (seed %llu)\n", got[0].n, got[0].before_finish,
             (unsigned long long)seed);
      berth_vad_stream_reset(st[0]);
      memset(&got[0], 0, sizeof got[0]);
      if (berth_vad_stream_push(st[0], pcm, n, &diag)) goto fail;
    }
  }
  if (!fails) printf("ok after reset, one push\n");
  for (int k = 0; k < NS; k++) free(smem[k]);
  free(mmem);
  free(pmem);
  free(pcm);
  free(w);
  free(bytes);
  return fails ? 1 : 0;
fail:
  fprintf(stderr, "vad-stream-check: %s\n", msg);
  return 1;
}
