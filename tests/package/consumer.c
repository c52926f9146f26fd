/* A program built outside berth's tree against an installed berth (pkg-config berth, or
 * CMake's find_package(berth) target berth::berth): compiles a .bir or .onnx source with the
 * public compiler API and runs its first method with the runtime API, twice, on the seed's
 * inputs 5.0 and 6.0. Prints one line per call: the outputs as "(A, B)". */
#include <berth/compiler.h>
#include <berth/runtime.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: consumer PROGRAM.bir\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) return perror(argv[1]), 1;
  static char src[1 << 16];
  size_t len = fread(src, 1, sizeof src, f);
  fclose(f);
  char msg[1024];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_compile_options_t opt = berth_compile_options_default();
  berth_compilation_t *c;
  if (berth_compile(src, len, argv[1], &opt, &c, &diag)) return fprintf(stderr, "%s\n", msg), 1;
  size_t n;
  const uint8_t *bytes = berth_compilation_bytes(c, &n);
  berth_program_sizes_t sz;
  berth_program_t *p;
  if (berth_program_query(bytes, n, &sz, &diag)) return fprintf(stderr, "%s\n", msg), 1;
  void *pmem = malloc(sz.program_bytes), *scratch = malloc(sz.scratch_bytes);
  if (berth_program_load(bytes, n, pmem, sz.program_bytes, scratch, sz.scratch_bytes, &p, &diag))
    return fprintf(stderr, "%s\n", msg), 1;
  size_t need = berth_method_memory_size(p, 0);
  void *mmem = malloc(need);
  berth_method_t *m;
  if (berth_method_init(p, 0, mmem, need, NULL, 0, &m, &diag)) return fprintf(stderr, "%s\n", msg), 1;
  for (int call = 0; call < 2; call++) {
    double x = 5.0 + call;
    const void *r[2];
    size_t rb;
    if (berth_method_set_input(m, 0, &x, sizeof x, &diag) || berth_method_execute(m, &diag) ||
        berth_method_output(m, 0, &r[0], &rb, &diag) || berth_method_output(m, 1, &r[1], &rb, &diag))
      return fprintf(stderr, "%s\n", msg), 1;
    printf("(%g, %g)\n", *(const double *)r[0], *(const double *)r[1]);
  }
  printf("berth %s\n", berth_version());
  free(mmem);
  free(scratch);
  free(pmem);
  berth_compilation_destroy(c);
  return 0;
}
