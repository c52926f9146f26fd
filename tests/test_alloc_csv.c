/* Tests of the CSV reader for allocation problems (src/plan/alloc_csv.c): both header
 * spellings, quoting, the optional alignment column, and bad files failing with the line
 * number and what was wrong. */
#include "test_util.h"

#include "berth/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Parses text; on success returns the csv, else NULL with the message in msg. */
static berth_alloc_csv_t *parse(const char *text, berth_status_t *st, char *msg, size_t cap) {
  berth_diag_t diag = berth_diag_make(msg, cap);
  berth_alloc_csv_t *csv = NULL;
  *st = berth_alloc_csv_parse(text, strlen(text), "t.csv", &csv, &diag);
  return *st == BERTH_OK ? csv : NULL;
}

static void expect_error(const char *text, berth_status_t want, const char *needle1, const char *needle2) {
  char msg[512];
  berth_status_t st;
  berth_alloc_csv_t *csv = parse(text, &st, msg, sizeof msg);
  CHECK_MSG(st == want, "expected %s for:\n%s\ngot %s (%s)", berth_status_name(want), text, berth_status_name(st),
            st ? msg : "ok");
  if (!st) berth_alloc_csv_destroy(csv);
  if (st && needle1) CHECK_MSG(strstr(msg, needle1) != NULL, "message '%s' lacks '%s'", msg, needle1);
  if (st && needle2) CHECK_MSG(strstr(msg, needle2) != NULL, "message '%s' lacks '%s'", msg, needle2);
}

static void test_basic(void) {
  char msg[512];
  berth_status_t st;
  berth_alloc_csv_t *csv = parse("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n", &st, msg,
                                 sizeof msg);
  CHECK_MSG(csv != NULL, "%s", msg);
  if (!csv) return;
  const berth_alloc_problem_t *p = berth_alloc_csv_problem(csv);
  CHECK(p->n == 5);
  CHECK(strcmp(p->names[0], "b1") == 0 && strcmp(p->names[4], "b5") == 0);
  CHECK(p->buffers[1].intervals[0].lower == 3 && p->buffers[1].intervals[0].upper == 9);
  CHECK(p->buffers[3].size == 4 && p->buffers[3].n_intervals == 1);
  CHECK(!berth_alloc_csv_has_alignment(csv));
  CHECK(berth_alloc_lower_bound(p) == 12);
  uint64_t off[5];
  berth_alloc_options_t o = berth_alloc_options_default();
  o.algo = BERTH_ALLOC_EXACT;
  berth_alloc_result_t r;
  CHECK(berth_alloc_solve(p, &o, off, &r, NULL) == BERTH_OK);
  CHECK(r.arena == 12 && r.optimal);
  CHECK(berth_alloc_check(p, off, r.arena, NULL) == BERTH_OK);
  berth_alloc_csv_destroy(csv);
}

/* start/end with end inclusive; columns in any order; alignment; CRLF; blank lines; BOM;
 * quoted ids; an ignored offset column. */
static void test_spellings(void) {
  char msg[512];
  berth_status_t st;
  berth_alloc_csv_t *csv = parse(
      "\xef\xbb\xbfsize, end ,start,id,alignment,offset\r\n"
      "8,2,0,\"a,b\",16,0\r\n"
      "\r\n"
      "  4 ,5,3, \"say \"\"hi\"\"\" ,0,99\r\n"
      "0,9,9,z,1,0",
      &st, msg, sizeof msg);
  CHECK_MSG(csv != NULL, "%s", msg);
  if (!csv) return;
  const berth_alloc_problem_t *p = berth_alloc_csv_problem(csv);
  CHECK(p->n == 3);
  CHECK(strcmp(p->names[0], "a,b") == 0);
  CHECK(strcmp(p->names[1], "say \"hi\"") == 0);
  CHECK(p->buffers[0].intervals[0].lower == 0 && p->buffers[0].intervals[0].upper == 3); /* end inclusive */
  CHECK(p->buffers[1].intervals[0].lower == 3 && p->buffers[1].intervals[0].upper == 6);
  CHECK(p->buffers[2].intervals[0].lower == 9 && p->buffers[2].intervals[0].upper == 10);
  CHECK(p->buffers[0].align == 16 && p->buffers[0].size == 8 && p->buffers[2].size == 0);
  CHECK(berth_alloc_csv_has_alignment(csv));
  berth_alloc_csv_destroy(csv);

  /* Negative times and a header only. */
  csv = parse("id,lower,upper,size\nx,-5,-1,3\n", &st, msg, sizeof msg);
  CHECK_MSG(csv && berth_alloc_csv_problem(csv)->buffers[0].intervals[0].lower == -5, "%s", msg);
  berth_alloc_csv_destroy(csv);
  csv = parse("id,lower,upper,size\n", &st, msg, sizeof msg);
  CHECK_MSG(csv && berth_alloc_csv_problem(csv)->n == 0, "%s", msg);
  berth_alloc_csv_destroy(csv);
}

static void test_errors(void) {
  expect_error("", BERTH_ERR_CORRUPT_DATA, "no header", NULL);
  expect_error("\n\n", BERTH_ERR_CORRUPT_DATA, "no header", NULL);
  expect_error("id,lower,upper\n", BERTH_ERR_CORRUPT_DATA, "t.csv:1:", "size");
  expect_error("id,lower,end,size\n", BERTH_ERR_CORRUPT_DATA, "t.csv:1:", "lower, upper or start, end");
  expect_error("id,lower,upper,size,colour\n", BERTH_ERR_CORRUPT_DATA, "unknown column 'colour'", NULL);
  expect_error("id,lower,upper,size,size\n", BERTH_ERR_CORRUPT_DATA, "appears twice", NULL);
  expect_error("id,lower,upper,size\na,0,1,2\nb,0,1\n", BERTH_ERR_CORRUPT_DATA, "t.csv:3:", "expected 4 fields, found 3");
  expect_error("id,lower,upper,size\na,0,1,2,9\n", BERTH_ERR_CORRUPT_DATA, "t.csv:2:", "found 5");
  expect_error("id,lower,upper,size\na,0,1,-3\n", BERTH_ERR_CORRUPT_DATA, "t.csv:2:", "size '-3'");
  expect_error("id,lower,upper,size\na,0,1,1x\n", BERTH_ERR_CORRUPT_DATA, "size '1x'", NULL);
  expect_error("id,lower,upper,size\na,0,1,99999999999999999999999\n", BERTH_ERR_CORRUPT_DATA, "size", NULL);
  expect_error("id,lower,upper,size\na,x,1,2\n", BERTH_ERR_CORRUPT_DATA, "lower 'x'", NULL);
  expect_error("id,lower,upper,size\n\na,0,1,2\nb,5,5,2\n", BERTH_ERR_CORRUPT_DATA, "t.csv:4:", "lower 5 is not below upper 5");
  expect_error("id,start,end,size\na,5,4,2\n", BERTH_ERR_CORRUPT_DATA, "end 4 is before start 5", NULL);
  expect_error("id,start,end,size\na,5,9223372036854775807,2\n", BERTH_ERR_CORRUPT_DATA, "too large", NULL);
  expect_error("id,lower,upper,size,alignment\na,0,1,2,3\n", BERTH_ERR_CORRUPT_DATA, "alignment '3'", NULL);
  expect_error("id,lower,upper,size\n,0,1,2\n", BERTH_ERR_CORRUPT_DATA, "empty id", NULL);
  expect_error("id,lower,upper,size\na,0,1,2\nb,0,1,2\na,3,4,5\n", BERTH_ERR_CORRUPT_DATA, "t.csv:4:",
               "id 'a' repeats line 2");
  expect_error("id,lower,upper,size\n\"a,0,1,2\n", BERTH_ERR_CORRUPT_DATA, "t.csv:2:", "unterminated");
  expect_error("id,lower,upper,size\n\"a\"x,0,1,2\n", BERTH_ERR_CORRUPT_DATA, "after a closing quote", NULL);
  /* Sizes that cannot be planned in 64 bits. */
  expect_error("id,lower,upper,size\na,0,1,6000000000000000000\nb,0,1,6000000000000000000\n", BERTH_ERR_OUT_OF_RANGE,
               "t.csv", "2^63");
}

/* Random well-formed files read back exactly. */
static void test_roundtrip(void) {
  uint64_t s = 99;
  for (int round = 0; round < 50; round++) {
    char *text = malloc(1 << 16);
    size_t len = (size_t)snprintf(text, 1 << 16, "id,lower,upper,size\n");
    int n = (int)(s % 40);
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    int64_t lo[40], hi[40];
    uint64_t size[40];
    for (int i = 0; i < n; i++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      lo[i] = (int64_t)(s >> 40) % 1000;
      hi[i] = lo[i] + 1 + (int64_t)((s >> 20) % 100);
      size[i] = (s >> 8) % 100000;
      len += (size_t)snprintf(text + len, (1 << 16) - len, "buf%d,%lld,%lld,%llu\n", i, (long long)lo[i],
                              (long long)hi[i], (unsigned long long)size[i]);
    }
    char msg[256];
    berth_status_t st;
    berth_alloc_csv_t *csv = parse(text, &st, msg, sizeof msg);
    CHECK_MSG(csv != NULL, "%s", msg);
    if (csv) {
      const berth_alloc_problem_t *p = berth_alloc_csv_problem(csv);
      CHECK(p->n == n);
      for (int i = 0; i < n && i < p->n; i++) {
        char id[16];
        snprintf(id, sizeof id, "buf%d", i);
        CHECK(strcmp(p->names[i], id) == 0);
        CHECK(p->buffers[i].intervals[0].lower == lo[i] && p->buffers[i].intervals[0].upper == hi[i]);
        CHECK(p->buffers[i].size == size[i]);
      }
      berth_alloc_csv_destroy(csv);
    }
    free(text);
  }
}

static void test_file(void) {
  char msg[256];
  berth_diag_t diag = berth_diag_make(msg, sizeof msg);
  berth_alloc_csv_t *csv = NULL;
  CHECK(berth_alloc_csv_read("/nonexistent/berth/x.csv", &csv, &diag) == BERTH_ERR_INVALID_ARGUMENT);
  CHECK(strstr(msg, "/nonexistent/berth/x.csv") != NULL);
  char path[512];
  snprintf(path, sizeof path, "%s/minimalloc/input.12.csv", BERTH_DATA_DIR);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "test_alloc_csv: %s absent; skipping the file read\n", path);
    return;
  }
  fclose(f);
  CHECK(berth_alloc_csv_read(path, &csv, &diag) == BERTH_OK);
  if (csv) {
    CHECK(berth_alloc_csv_problem(csv)->n == 5);
    berth_alloc_csv_destroy(csv);
  }
}

int main(void) {
  test_basic();
  test_spellings();
  test_errors();
  test_roundtrip();
  test_file();
  return test_finish("test_alloc_csv");
}
