/* A program that embeds berth's runtime: it links only libberth_runtime.a and includes only
 * <berth/runtime.h>. It loads a compiled program from a file (made by
 * `berth compile examples/seed/seed.bir -o seed.berth`) and calls `forward` twice, on 5.0
 * and then 6.0, printing (5, 5) and (6, 7): the state `@state` carries over between the
 * calls, and the second result is the one ExecuTorch gets wrong.
 *
 *   berth_embed seed.berth
 *
 * The runtime itself neither allocates nor prints: this program owns every byte. */
#include <berth/runtime.h>

#include <stdio.h>
#include <stdlib.h>

static void *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  /* 64-byte aligned: the constants in the file are used in place */
  void *buf = n >= 0 ? aligned_alloc(64, ((size_t)n + 63) / 64 * 64 + 64) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  char msg[512];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  size_t len = 0;
  void *bytes = argc == 2 ? read_file(argv[1], &len) : NULL;
  if (!bytes) {
    fprintf(stderr, "usage: berth_embed FILE.berth (a readable program file)\n");
    return 2;
  }
  /* load: query the memory, then check and verify the file once */
  berth_program_sizes_t sz;
  berth_program_t *prog = NULL;
  void *pmem = NULL, *scratch = NULL, *mmem = NULL;
  berth_method_t *fwd = NULL;
  int rc = 1;
  if (berth_program_query(bytes, len, &sz, &diag)) goto fail;
  pmem = malloc(sz.program_bytes);
  scratch = malloc(sz.scratch_bytes);
  if (!pmem || !scratch) goto oom;
  if (berth_program_load(bytes, len, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &prog, &diag)) goto fail;
  free(scratch);
  scratch = NULL;

  /* the method: handle, state and arenas in one block */
  int32_t m = berth_program_method_find(prog, "forward");
  if (m < 0) {
    fprintf(stderr, "berth_embed: no method forward\n");
    goto done;
  }
  size_t need = berth_method_memory_size(prog, m);
  mmem = malloc(need);
  if (!mmem) goto oom;
  if (berth_method_init(prog, m, mmem, need, NULL, 0, &fwd, &diag)) goto fail;

  double out[2][1]; /* used when the program leaves the outputs to the caller */
  if (!berth_program_outputs_planned(prog))
    for (int32_t j = 0; j < 2; j++)
      if (berth_method_set_output(fwd, j, out[j], sizeof out[j], &diag)) goto fail;
  const double inputs[2] = {5.0, 6.0};
  for (int call = 0; call < 2; call++) {
    if (berth_method_set_input(fwd, 0, &inputs[call], sizeof inputs[call], &diag)) goto fail;
    if (berth_method_execute(fwd, &diag)) goto fail;
    const void *r1, *r2;
    if (berth_method_output(fwd, 0, &r1, NULL, &diag) || berth_method_output(fwd, 1, &r2, NULL, &diag)) goto fail;
    printf("(%g, %g)\n", *(const double *)r1, *(const double *)r2);
  }
  rc = 0;
  goto done;
oom:
  fprintf(stderr, "berth_embed: out of memory\n");
  goto done;
fail:
  fprintf(stderr, "berth_embed: %s\n", msg);
done:
  free(mmem);
  free(scratch);
  free(pmem);
  free(bytes);
  return rc;
}
