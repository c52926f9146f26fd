/* bench/plan: runs every allocation algorithm over allocation problems in CSV form and
 * prints, per instance, the buffers, the lower bound, and per algorithm the arena, its
 * ratio to the lower bound and the time. Each plan is validated with berth_alloc_check.
 *
 *   plan                         every CSV in $DATA/minimalloc and $DATA/traces, then a
 *                                generated chain of 60,000 short-lived buffers
 *   plan [options] PATH...       CSV files or directories of them ("chain" for the chain)
 *     --algo LIST      comma-separated subset of naive,greedy,search,exact (default all)
 *     --reps N         repetitions of naive and greedy; the median time is printed (5)
 *     --search-ms T    search budget (100)      --exact-ms T   exact budget (10000)
 *     --only TEXT      only instances whose file name contains TEXT
 *
 * Times are wall-clock medians on this machine; search and exact run once with their
 * budget (their times include the greedy seed). */
#define _POSIX_C_SOURCE 200809L

#include "berth/alloc.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 1024

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static bool ends_with(const char *s, const char *suf) {
  size_t n = strlen(s), k = strlen(suf);
  return n >= k && strcmp(s + n - k, suf) == 0;
}

/* Appends the CSV files of path (a file, or a directory's *.csv sorted by name). */
static void add_path(const char *path, char **files, int *n) {
  DIR *d = opendir(path);
  if (!d) {
    if (*n < MAX_FILES) files[(*n)++] = strdup(path);
    return;
  }
  char *found[MAX_FILES];
  int k = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && k < MAX_FILES) {
    if (!ends_with(e->d_name, ".csv")) continue;
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    found[k] = malloc(len);
    snprintf(found[k], len, "%s/%s", path, e->d_name);
    k++;
  }
  closedir(d);
  qsort(found, (size_t)k, sizeof *found, cmp_str);
  for (int i = 0; i < k; i++) {
    if (*n < MAX_FILES) files[(*n)++] = found[i];
    else free(found[i]);
  }
}

/* A chain of n buffers, each live for 2 to 5 steps from its own start, 64 to 1024 bytes,
 * 64-aligned: a long straight-line program. */
static berth_alloc_problem_t make_chain(int32_t n, berth_alloc_buffer_t **bufs, berth_interval_t **ivs) {
  *bufs = malloc((size_t)n * sizeof **bufs);
  *ivs = malloc((size_t)n * sizeof **ivs);
  uint64_t s = 60000;
  for (int32_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    (*ivs)[i].lower = i;
    (*ivs)[i].upper = i + 2 + (int64_t)((s >> 33) % 4);
    (*bufs)[i].size = 64 * (1 + (s >> 45) % 16);
    (*bufs)[i].align = 64;
    (*bufs)[i].n_intervals = 1;
    (*bufs)[i].intervals = &(*ivs)[i];
  }
  berth_alloc_problem_t p = {n, *bufs, NULL};
  return p;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

int main(int argc, char **argv) {
  bool use[4] = {true, true, true, true};
  int reps = 5;
  int64_t search_ms = 100, exact_ms = 10000;
  const char *only = NULL;
  char *files[MAX_FILES];
  int n_files = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--algo") == 0 && v) {
      for (int k = 0; k < 4; k++) use[k] = false;
      char buf[256];
      snprintf(buf, sizeof buf, "%s", v);
      for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        berth_alloc_algo_t al;
        if (!berth_alloc_algo_from_name(t, &al)) {
          fprintf(stderr, "plan: unknown algorithm '%s'\n", t);
          return 2;
        }
        use[al] = true;
      }
      i++;
    } else if (strcmp(a, "--reps") == 0 && v) {
      reps = atoi(v);
      if (reps < 1) reps = 1;
      i++;
    } else if (strcmp(a, "--search-ms") == 0 && v) {
      search_ms = atoll(v);
      i++;
    } else if (strcmp(a, "--exact-ms") == 0 && v) {
      exact_ms = atoll(v);
      i++;
    } else if (strcmp(a, "--only") == 0 && v) {
      only = v;
      i++;
    } else if (a[0] == '-') {
      fprintf(stderr, "plan: unknown option '%s'\n", a);
      return 2;
    } else {
      add_path(a, files, &n_files);
    }
  }
  if (n_files == 0) {
    add_path(BERTH_DATA_DIR "/minimalloc", files, &n_files);
    add_path(BERTH_DATA_DIR "/traces", files, &n_files);
    files[n_files++] = strdup("chain");
  }
  int bad = 0;
  double log_sum[4] = {0}, worst[4] = {0};
  int counted[4] = {0};
  printf("%-22s %8s %14s  %-7s %14s %8s %10s  %s\n", "instance", "buffers", "lower_bound", "algo", "arena", "ratio",
         "time_ms", "note");
  for (int f = 0; f < n_files; f++) {
    if (only && !strstr(base_name(files[f]), only)) continue;
    char msg[1024];
    berth_diag_t diag = berth_diag_make(msg, sizeof msg);
    berth_alloc_csv_t *csv = NULL;
    berth_alloc_buffer_t *chain_bufs = NULL;
    berth_interval_t *chain_ivs = NULL;
    berth_alloc_problem_t chain;
    const berth_alloc_problem_t *p;
    if (strcmp(files[f], "chain") == 0) {
      chain = make_chain(60000, &chain_bufs, &chain_ivs);
      p = &chain;
    } else if (berth_alloc_csv_read(files[f], &csv, &diag)) {
      printf("%-22s error: %s\n", base_name(files[f]), msg);
      bad = 1;
      continue;
    } else {
      p = berth_alloc_csv_problem(csv);
    }
    uint64_t lb = berth_alloc_lower_bound(p);
    uint64_t *off = malloc(((size_t)p->n + 1) * sizeof *off);
    char name[64];
    snprintf(name, sizeof name, "%s", csv ? base_name(files[f]) : "chain-60000");
    if (ends_with(name, ".csv")) name[strlen(name) - 4] = '\0';
    bool first = true;
    for (int al = 0; al < 4; al++) {
      if (!use[al]) continue;
      berth_alloc_options_t o = berth_alloc_options_default();
      o.algo = (berth_alloc_algo_t)al;
      o.budget_ms = al == BERTH_ALLOC_EXACT ? exact_ms : search_ms;
      int r_n = (al == BERTH_ALLOC_NAIVE || al == BERTH_ALLOC_GREEDY) ? reps : 1;
      double times[64];
      if (r_n > 64) r_n = 64;
      berth_alloc_result_t r;
      berth_status_t st = BERTH_OK;
      for (int k = 0; k < r_n && !st; k++) {
        st = berth_alloc_solve(p, &o, off, &r, &diag);
        times[k] = r.time_ms;
      }
      if (!st) st = berth_alloc_check(p, off, r.arena, &diag);
      printf("%-22s %8d %14llu  ", first ? name : "", (int)p->n, (unsigned long long)lb);
      first = false;
      if (st) {
        printf("%-7s FAILED: %s\n", berth_alloc_algo_name(o.algo), msg);
        bad = 1;
        continue;
      }
      qsort(times, (size_t)r_n, sizeof *times, cmp_double);
      double ratio = lb ? (double)r.arena / (double)lb : 1.0;
      char note[160] = "";
      if (al == BERTH_ALLOC_GREEDY) snprintf(note, sizeof note, "%s", r.greedy_order);
      else if (al == BERTH_ALLOC_SEARCH)
        snprintf(note, sizeof note, "%lld plans, greedy %.4f", (long long)r.iterations,
                 lb ? (double)r.greedy_arena / (double)lb : 1.0);
      else if (al == BERTH_ALLOC_EXACT)
        snprintf(note, sizeof note, "%s, %lld nodes", r.optimal ? "optimal" : "not proven", (long long)r.iterations);
      if (al != BERTH_ALLOC_EXACT && r.optimal) strncat(note, note[0] ? ", = lower bound" : "= lower bound", 40);
      printf("%-7s %14llu %8.4f %10.3f  %s\n", berth_alloc_algo_name(o.algo), (unsigned long long)r.arena, ratio,
             times[r_n / 2], note);
      log_sum[al] += log(ratio);
      if (ratio > worst[al]) worst[al] = ratio;
      counted[al]++;
      fflush(stdout);
    }
    free(off);
    berth_alloc_csv_destroy(csv);
    free(chain_bufs);
    free(chain_ivs);
  }
  printf("\n%-7s %12s %10s\n", "algo", "geomean", "worst");
  for (int al = 0; al < 4; al++)
    if (counted[al])
      printf("%-7s %12.4f %10.4f\n", berth_alloc_algo_name((berth_alloc_algo_t)al), exp(log_sum[al] / counted[al]),
             worst[al]);
  for (int f = 0; f < n_files; f++) free(files[f]);
  return bad;
}
