/* The JPEG 2000 decoder's shared state (ITU-T T.800 Part 1), split by concern:
 *   image_jp2.c       JP2 boxes, codestream markers, the tile loop, colour and the RGB output;
 *   image_jp2_t2.c    tile geometry (resolutions, bands, precincts, code blocks), tag trees,
 *                     packet headers and the five progression orders;
 *   image_jp2_t1.c    the MQ decoder and the code-block (tier-1) passes;
 *   image_jp2_dwt.c   the inverse 5/3 (integer) and 9/7 (float, like OpenJPEG) wavelets.
 * Everything lives in the caller's scratch (berth_image_jp2_scratch_bytes), laid out once per
 * call from the bound; nothing here allocates. */
#ifndef BERTH_KERNELS_IMAGE_JP2_INTERNAL_H
#define BERTH_KERNELS_IMAGE_JP2_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define J2_MAX_COMPS 4      /* Pillow decodes 1..4 components */
#define J2_MAX_LEVELS 32    /* decomposition levels (SPcod) */
#define J2_MAX_BANDS (3 * J2_MAX_LEVELS + 1)
#define J2_CB_MAX_SAMPLES 4096
#define J2_CB_MAX_BYTES 65536 /* one code block's data, all layers */
#define J2_MAX_PASSES 256   /* codeword segments per code block (at most one per pass) */

/* Code-block style flags (SPcod/SPcoc). */
#define J2_CB_BYPASS 0x01
#define J2_CB_RESET 0x02
#define J2_CB_TERMALL 0x04
#define J2_CB_VSC 0x08
#define J2_CB_PTERM 0x10
#define J2_CB_SEGSYM 0x20

typedef struct j2_tccp { /* coding parameters of one component (COD/COC + QCD/QCC) */
  uint8_t levels, xcb, ycb, cbsty, reversible; /* xcb/ycb: exponents */
  uint8_t prcw[J2_MAX_LEVELS + 1], prch[J2_MAX_LEVELS + 1];
  uint8_t qstyle, guard, qn; /* qn: step sizes given */
  uint8_t roishift;
  uint8_t expn[J2_MAX_BANDS];
  uint16_t mant[J2_MAX_BANDS];
} j2_tccp_t;

typedef struct j2_cod { /* COD fields that are not per component */
  uint8_t order, mct, sop, eph;
  uint16_t layers;
} j2_cod_t;

typedef struct j2_poc { /* one progression order change */
  uint8_t r0, r1, order;
  uint16_t c0, c1, l1;
} j2_poc_t;

#define J2_MAX_POC 32

typedef struct j2_params { /* the main header's, or a tile's (main header overridden) */
  j2_cod_t cod;
  j2_tccp_t tccp[J2_MAX_COMPS];
  uint8_t coc_set[J2_MAX_COMPS], qcc_set[J2_MAX_COMPS]; /* set by COC/QCC at this level */
  uint8_t npoc;
  j2_poc_t poc[J2_MAX_POC];
} j2_params_t;

typedef struct j2_siz {
  uint32_t xsiz, ysiz, x0, y0, tw, th, tx0, ty0;
  uint32_t ntx, nty;
  uint16_t ncomp;
  uint8_t prec[J2_MAX_COMPS], sgnd[J2_MAX_COMPS];
} j2_siz_t;

typedef struct j2_rect {
  uint32_t x0, y0, x1, y1;
} j2_rect_t;

/* One code block's packet state. Its data is a chain of chunk records (j2_chunk_t). */
typedef struct j2_cblk {
  uint32_t head, tail; /* chunk indices + 1; 0: none */
  uint8_t included, numbps, lblock, npasses;
} j2_cblk_t;

typedef struct j2_chunk {
  uint32_t next;   /* chunk index + 1; 0: end */
  uint32_t off, len; /* in the stream */
  uint8_t seg_start, passes; /* the codeword segment (its first pass) and the passes here */
  uint8_t pad[2];
} j2_chunk_t;

typedef struct j2_node { /* tag-tree node */
  uint32_t value, low;
} j2_node_t;

/* One band's part of one precinct: a grid of code blocks with its two tag trees. */
typedef struct j2_pband {
  j2_rect_t r;        /* the precinct's area in band coordinates (clipped to the band) */
  uint32_t cb0;       /* first code block (index into the tile's blocks) */
  uint32_t incl, zbp; /* tag-tree node bases */
  uint32_t ncx, ncy;  /* code blocks across and down */
  uint32_t cbx0, cby0; /* the grid origin (a multiple of the block size) */
} j2_pband_t;

typedef struct j2_band {
  j2_rect_t r;
  uint8_t orient; /* 0 LL, 1 HL, 2 LH, 3 HH */
  int16_t numbps; /* Mb (may be -1: nothing can be coded) */
  uint8_t xcb, ycb; /* code-block exponents within this resolution */
  float step;     /* irreversible step size (OpenJPEG's) */
} j2_band_t;

typedef struct j2_res {
  j2_rect_t r;
  uint8_t nbands, ppx, ppy;
  uint32_t npx, npy; /* precincts */
  uint32_t pb0;      /* first j2_pband_t: precinct p, band b at pb0 + p * nbands + b */
  uint32_t prec0;    /* this resolution's first precinct in the tile's count (POC bookkeeping) */
  j2_band_t band[3];
} j2_res_t;

typedef struct j2_tilec {
  j2_rect_t r;
  uint8_t nres;
  j2_res_t res[J2_MAX_LEVELS + 1];
} j2_tilec_t;

/* A tile's bump-allocated structures. */
typedef struct j2_pool {
  uint8_t *base;
  size_t cap, used;
} j2_pool_t;

/* A bit reader for packet headers (with the 0xFF bit stuffing of B.10.1). */
typedef struct j2_bio {
  const uint8_t *p, *end;
  uint32_t buf, ct;
  bool overrun;
} j2_bio_t;

typedef struct j2_dec {
  const uint8_t *src;
  size_t n;
  j2_siz_t siz;
  j2_params_t mainp, tilep, throwp; /* throwp: later tile-part headers, parsed and dropped */
  uint8_t tn_first;                  /* TNsot of the tile's first tile-part */
  const j2_params_t *cur; /* the tile's parameters */
  j2_tilec_t tc[J2_MAX_COMPS];
  uint32_t tile; /* the current tile index */
  /* the current tile's structures */
  j2_pband_t *pb;
  j2_cblk_t *cb;
  j2_node_t *nodes;
  j2_chunk_t *chunks;
  uint32_t npb, ncb, nnodes, nchunks, chunk_cap, nprec;
  uint8_t *seen; /* with POC: a bit per (precinct, layer) packet read */
  /* the packet stream: the tile's tile-parts, visited in order */
  size_t tp_first;            /* where the search for this tile's tile-parts starts */
  size_t seg_pos, seg_end;    /* the current tile-part's data */
  size_t next_sot;            /* where the next tile-part search resumes */
  j2_pool_t pool;
  /* packed packet headers (PPM, PPT): copies at the pool's top end, below pool.cap */
  uint8_t *ppm;             /* the main header's PPM data, concatenated */
  size_t ppm_len;
  uint8_t *hdr;             /* the current tile's packet headers; NULL: in the packets */
  size_t hdr_len, hdr_pos, hdr_cap;
  size_t pool_cap0;         /* the pool's size below the PPM data */
  /* PPM / PPT marker segments by their Z index (they may come in any order) */
  uint32_t ppm_off[256], ppm_n[256], ppt_off[256], ppt_n[256];
  uint8_t ppm_set[256], ppt_set[256];
  bool has_ppt;
  uint8_t tp_mode;          /* how the tile-part header being read is treated */
  uint32_t tp_first_idx, next_idx, cur_idx; /* tile-parts' indices in codestream order */
  /* per-call buffers */
  int32_t *plane[3];          /* tile samples of the output components (int or float) */
  uint32_t plane_cap;         /* samples per plane */
  int32_t *t1_data;           /* J2_CB_MAX_SAMPLES */
  uint8_t *t1_flags;          /* (1024 + 2) * (4 + 2) at most */
  uint8_t *t1_buf;            /* J2_CB_MAX_BYTES + 2 */
  uint32_t *t1_seg;           /* J2_MAX_PASSES * 3 */
  int32_t *dwt_tmp;           /* max(bound) + 2 */
  uint8_t nout;               /* components decoded for the output (1 or 3) */
  uint32_t work;              /* tile-part search steps, capped */
} j2_dec_t;

/* image_jp2.c: the next tile-part of the current tile (its data in seg_pos/seg_end); false
 * with *why NULL when there is none, or with a message when the stream is damaged. */
bool j2_next_tilepart(j2_dec_t *d, const char **why);

/* image_jp2_t2.c */
const char *j2_tile_setup(j2_dec_t *d, const j2_rect_t *tile);
const char *j2_tile_packets(j2_dec_t *d);
const char *j2_tile_blocks(j2_dec_t *d);

/* image_jp2_t1.c */
const char *j2_t1_decode(j2_dec_t *d, const j2_cblk_t *cb, uint32_t w, uint32_t h, uint8_t orient, uint8_t cbsty,
                         uint8_t roishift);

/* image_jp2_dwt.c */
void j2_idwt53(int32_t *a, uint32_t stride, const j2_tilec_t *tc, int32_t *tmp);
void j2_idwt97(float *a, uint32_t stride, const j2_tilec_t *tc, float *tmp);

static inline uint32_t j2_ceildiv(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a + b - 1) / b); }
static inline uint32_t j2_ceildivpow2(uint32_t a, unsigned e) { return (uint32_t)(((uint64_t)a + (((uint64_t)1 << e) - 1)) >> e); }

#endif
