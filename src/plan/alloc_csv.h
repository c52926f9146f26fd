/* Allocation problems from CSV files (the minimalloc benchmark format).
 *
 *   berth_alloc_csv_t *csv;
 *   if (berth_alloc_csv_read("A.1048576.csv", &csv, &diag) == BERTH_OK) {
 *     const berth_alloc_problem_t *p = berth_alloc_csv_problem(csv);
 *     ... berth_alloc_solve(p, ...) ...
 *     berth_alloc_csv_destroy(csv);
 *   }
 *
 * The first non-blank line is a header naming the columns, in any order:
 *   id                  any string (may be quoted "like, this"; "" is a quote); unique
 *   lower, upper        half-open lifetime [lower, upper), lower < upper
 *   or start, end       inclusive lifetime [start, end], start <= end
 *   size                bytes, >= 0
 *   alignment           optional; a power of two, or 0 / 1 for none ("align" also works)
 *   offset              optional and ignored (so a plan written by --out reads back)
 * Each further non-blank line is one buffer with exactly one field per column. Errors
 * name the file, the line and what was wrong (CORRUPT_DATA), e.g.
 * "A.csv:12: size '-3' is not a non-negative integer". */
#ifndef BERTH_PLAN_ALLOC_CSV_H
#define BERTH_PLAN_ALLOC_CSV_H

#include "plan/alloc.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct berth_alloc_csv berth_alloc_csv_t;

/* Files larger than this are refused (OUT_OF_RANGE). */
#define BERTH_ALLOC_CSV_MAX_BYTES ((size_t)1 << 30)

/* Parses len bytes of CSV text; `name` prefixes messages (may be NULL). On success *out
 * owns everything the problem points to. Errors: CORRUPT_DATA (a bad header or row),
 * OUT_OF_RANGE (too many rows, sizes adding up past 2^63), RESOURCE_EXHAUSTED. */
berth_status_t berth_alloc_csv_parse(const char *text, size_t len, const char *name, berth_alloc_csv_t **out,
                                     berth_diag_t *diag);

/* Reads and parses a file. Errors as berth_alloc_csv_parse, plus INVALID_ARGUMENT when
 * the file cannot be read. */
berth_status_t berth_alloc_csv_read(const char *path, berth_alloc_csv_t **out, berth_diag_t *diag);

void berth_alloc_csv_destroy(berth_alloc_csv_t *csv);

/* The problem (names are the ids); valid until destroy. */
const berth_alloc_problem_t *berth_alloc_csv_problem(const berth_alloc_csv_t *csv);

/* True if the file had an alignment column. */
bool berth_alloc_csv_has_alignment(const berth_alloc_csv_t *csv);

#ifdef __cplusplus
}
#endif
#endif
