/* The conflict graph of a prepared problem: for each active buffer, the active buffers it
 * conflicts with (CSR, sorted, without duplicates). Built with one sweep over slot
 * boundaries: a range that starts meets every range live at that moment. */
#include "plan/alloc_internal.h"

#include <stdlib.h>
#include <string.h>

void berth_alloc_graph_deinit(berth_alloc_graph_t *g) {
  if (!g) return;
  free(g->first);
  free(g->adj);
  memset(g, 0, sizeof *g);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

int berth_alloc_graph_init(berth_alloc_graph_t *g, const berth_alloc_prep_t *p, int64_t max_pairs) {
  memset(g, 0, sizeof *g);
  int32_t m = p->m, nr = p->n_iv, T = p->n_slots;
  int32_t *st_first = calloc((size_t)T + 2, sizeof *st_first);
  int32_t *en_first = calloc((size_t)T + 2, sizeof *en_first);
  int32_t *st_list = malloc(((size_t)nr + 1) * sizeof *st_list);
  int32_t *en_list = malloc(((size_t)nr + 1) * sizeof *en_list);
  int32_t *owner = malloc(((size_t)nr + 1) * sizeof *owner);
  size_t lcap = ((size_t)(nr > T ? nr : T) + 2);
  int32_t *live = malloc(lcap * sizeof *live);
  int32_t *live_pos = malloc(lcap * sizeof *live_pos);
  int64_t *deg = calloc((size_t)m + 1, sizeof *deg);
  int32_t *pa = NULL, *pb = NULL;
  int rc = -1;
  if (!st_first || !en_first || !st_list || !en_list || !owner || !live || !live_pos || !deg) goto out;
  for (int32_t b = 0; b < m; b++)
    for (int32_t r = p->iv_first[b]; r < p->iv_first[b + 1]; r++) owner[r] = b;
  for (int32_t r = 0; r < nr; r++) {
    st_first[p->lo[r] + 1]++;
    en_first[p->hi[r] + 1]++;
  }
  for (int32_t t = 0; t <= T; t++) {
    st_first[t + 1] += st_first[t];
    en_first[t + 1] += en_first[t];
  }
  /* Bucket t of the start (end) list is [sf[t], sf[t + 1]) ([ef[t], ef[t + 1])). */
  int32_t *sf = st_first, *ef = en_first;
  {
    int32_t *sp = live, *ep = live_pos; /* borrowed as fill cursors */
    memcpy(sp, sf, ((size_t)T + 1) * sizeof *sp);
    memcpy(ep, ef, ((size_t)T + 1) * sizeof *ep);
    for (int32_t r = 0; r < nr; r++) {
      st_list[sp[p->lo[r]]++] = r;
      en_list[ep[p->hi[r]]++] = r;
    }
  }
  int64_t pairs = 0;
  {
    int64_t n_live = 0;
    for (int32_t t = 0; t <= T; t++) {
      n_live -= ef[t + 1] - ef[t];
      for (int32_t k = sf[t]; k < sf[t + 1]; k++) pairs += n_live++;
      if (pairs > max_pairs) {
        rc = 1;
        goto out;
      }
    }
  }
  pa = malloc(((size_t)pairs + 1) * sizeof *pa);
  pb = malloc(((size_t)pairs + 1) * sizeof *pb);
  if (!pa || !pb) goto out;
  {
    int32_t n_live = 0;
    int64_t k2 = 0;
    for (int32_t t = 0; t <= T; t++) {
      for (int32_t k = ef[t]; k < ef[t + 1]; k++) {
        int32_t r = en_list[k];
        int32_t at = live_pos[r], last = live[--n_live];
        live[at] = last;
        live_pos[last] = at;
      }
      for (int32_t k = sf[t]; k < sf[t + 1]; k++) {
        int32_t r = st_list[k];
        for (int32_t q = 0; q < n_live; q++) {
          pa[k2] = owner[r];
          pb[k2++] = owner[live[q]];
        }
        live_pos[r] = n_live;
        live[n_live++] = r;
      }
    }
  }
  g->first = malloc(((size_t)m + 1) * sizeof *g->first);
  g->adj = malloc((2 * (size_t)pairs + 1) * sizeof *g->adj);
  if (!g->first || !g->adj) goto out;
  for (int64_t k = 0; k < pairs; k++) {
    deg[pa[k]]++;
    deg[pb[k]]++;
  }
  int64_t acc = 0;
  for (int32_t b = 0; b < m; b++) {
    int64_t d = deg[b];
    deg[b] = acc;
    acc += d;
  }
  for (int64_t k = 0; k < pairs; k++) {
    g->adj[deg[pa[k]]++] = pb[k];
    g->adj[deg[pb[k]]++] = pa[k];
  }
  /* deg[b] is now the end of b's list; dedupe each list in place (a buffer with several
   * ranges can meet another buffer more than once). */
  int64_t w = 0, start = 0;
  for (int32_t b = 0; b < m; b++) {
    int64_t end = deg[b];
    qsort(g->adj + start, (size_t)(end - start), sizeof *g->adj, cmp_i32);
    g->first[b] = w;
    for (int64_t k = start; k < end; k++)
      if (k == start || g->adj[k] != g->adj[k - 1]) g->adj[w++] = g->adj[k];
    start = end;
  }
  g->first[m] = w;
  g->m = m;
  rc = 0;
out:
  if (rc != 0) berth_alloc_graph_deinit(g);
  free(st_first);
  free(en_first);
  free(st_list);
  free(en_list);
  free(owner);
  free(live);
  free(live_pos);
  free(deg);
  free(pa);
  free(pb);
  return rc;
}
