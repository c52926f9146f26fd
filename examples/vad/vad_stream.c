/* Streaming Silero VAD over a berth program (see vad_stream.h). The segmentation is
 * get_speech_timestamps (silero-vad, src/silero_vad/utils_vad.py) rewritten as a state
 * machine that runs frame by frame and reports each segment once it is final. */
#include "vad_stream.h"

#include <math.h>
#include <string.h>

#define VAD_STATE 256      /* floats: v5 state f32[2,1,128], or legacy h and c f32[2,1,64] each */

struct berth_vad_model {
  const berth_program_t *prog;
  berth_method_t *fwd;
  berth_vad_kind_t kind;
  int32_t rate;  /* compiled rate, 0 if sr is a run-time input */
  int32_t frame; /* samples per frame */
  int32_t ctx;   /* context samples prepended (v5: 64 / 32; legacy: 0) */
  int32_t in_x, in_sr, in_a, in_b;  /* input indices (-1: absent); a = state or h, b = c */
  int32_t out_p, out_a, out_b;      /* output indices */
  int64_t sr;
  float prob_buf[4];                /* output buffers when outputs are not planned */
  float state_buf[VAD_STATE];
  /* A program compiled with --state (state=stateN; legacy h=hn, c=cn) keeps the state in the
   * method's mutable buffers, updated in place by the plan: no state input, no copy per
   * frame, and so one stream per model (owner). */
  bool state_in_method;
  berth_vad_stream_t *owner;
};

typedef struct segmenter {
  /* options in model-rate samples */
  double threshold, neg_threshold, max_speech;
  int64_t win, min_speech, pad, min_silence, min_sil_at_max;
  bool use_max_poss;
  /* get_speech_timestamps's loop variables */
  bool triggered;
  int64_t cur_start, temp_end, prev_end, next_start;
  bool has_poss;
  int64_t poss_end, poss_dur; /* the first longest of possible_ends */
  /* the last raw segment, not yet reported: padded start, raw end */
  bool has_pending;
  int64_t pend_start, pend_end;
} segmenter_t;

struct berth_vad_stream {
  berth_vad_model_t *m;
  berth_vad_options_t o;
  int32_t in_rate, rate, step;
  int64_t pushed;   /* input samples pushed */
  int64_t len;      /* model-rate samples (after decimation) */
  int64_t frames;   /* frames run */
  int32_t have;     /* samples of the current frame gathered */
  int32_t phase;    /* decimation: input samples to skip before the next kept one */
  bool finished;
  segmenter_t g;
  float state[VAD_STATE];
  float x[];                /* context + frame being gathered (the model's ctx + frame) */
};

void berth_vad_options_default(berth_vad_options_t *o) {
  memset(o, 0, sizeof *o);
  o->threshold = 0.5;
  o->neg_threshold = -1;
  o->min_speech_duration_ms = 250;
  o->max_speech_duration_s = INFINITY;
  o->min_silence_duration_ms = 100;
  o->speech_pad_ms = 30;
  o->min_silence_at_max_speech = 98;
  o->use_max_poss_sil_at_max_speech = true;
}

/* ---- model ------------------------------------------------------------------------------ */

size_t berth_vad_model_memory_size(const berth_program_t *prog) {
  int32_t m = berth_program_method_find(prog, "forward");
  if (m < 0) return 0;
  size_t need = berth_method_memory_size(prog, m);
  if (!need) return 0;
  return sizeof(berth_vad_model_t) + 64 + need;
}

static int32_t find_input(const berth_program_t *p, int32_t m, const char *name) {
  int32_t n = berth_program_input_count(p, m);
  for (int32_t i = 0; i < n; i++) {
    berth_tensor_info_t t;
    if (!berth_program_input_info(p, m, i, &t) && t.name && !strcmp(t.name, name)) return i;
  }
  return -1;
}

static bool is_f32(const berth_tensor_info_t *t, int64_t numel) {
  return t->type.dtype == BERTH_DTYPE_F32 && berth_type_numel(&t->type) == numel;
}

/* A program compiled with --state: its kind from its mutable buffers (v5/v6: state, 1 KiB;
 * legacy: h and c, 512 bytes each), and the frame rules of that kind. */
static berth_status_t state_kind(berth_vad_model_t *m, int64_t len, const char *want, berth_diag_t *diag) {
  void *d;
  size_t n, nc;
  if (!berth_method_state(m->fwd, "state", &d, &n, NULL) && n == 256 * sizeof(float)) {
    m->kind = BERTH_VAD_KIND_V5;
    if (len == 512 + 64) m->rate = 16000, m->frame = 512, m->ctx = 64;
    else if (len == 256 + 32) m->rate = 8000, m->frame = 256, m->ctx = 32;
    else
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "the program takes %lld samples a frame; Silero VAD v5/v6 needs the frame plus the context "
                        "silero-vad prepends (576 at 16 kHz, 288 at 8 kHz)", (long long)len);
    return BERTH_OK;
  }
  if (!berth_method_state(m->fwd, "h", &d, &n, NULL) && !berth_method_state(m->fwd, "c", &d, &nc, NULL) &&
      n == 128 * sizeof(float) && nc == n) {
    m->kind = BERTH_VAD_KIND_LEGACY;
    if (m->in_sr < 0)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "a legacy Silero VAD program must take sr at run time");
    if (len < 256 || len > 1536 || len % 256)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "legacy program takes %lld samples a frame; silero-vad v4 takes 256, 512, 768, 1024 or 1536",
                        (long long)len);
    m->rate = 0, m->frame = (int32_t)len, m->ctx = 0;
    return BERTH_OK;
  }
  return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "not %s (or the same compiled with --state)", want);
}

berth_status_t berth_vad_model_init(const berth_program_t *prog, void *mem, size_t mem_size, berth_vad_model_t **out,
                                    berth_diag_t *diag) {
  const char *want = "a Silero VAD program: forward(input f32[1,N], state f32[2,1,128][, sr i64[]]) -> (output, "
                     "stateN) (v5, v6) or forward(input, sr, h f32[2,1,64], c) -> (output, hn, cn) (legacy)";
  int32_t mi = prog ? berth_program_method_find(prog, "forward") : -1;
  if (!mem || mi < 0) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "not %s", want);
  size_t need = berth_vad_model_memory_size(prog);
  if (mem_size < need) return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "vad model needs %zu bytes, got %zu", need, mem_size);
  uintptr_t a = ((uintptr_t)mem + _Alignof(berth_vad_model_t) - 1) & ~(uintptr_t)(_Alignof(berth_vad_model_t) - 1);
  berth_vad_model_t *m = (berth_vad_model_t *)a;
  memset(m, 0, sizeof *m);
  m->prog = prog;
  m->in_x = find_input(prog, mi, "input");
  m->in_sr = find_input(prog, mi, "sr");
  int32_t st = find_input(prog, mi, "state"), h = find_input(prog, mi, "h"), c = find_input(prog, mi, "c");
  int32_t n_in = berth_program_input_count(prog, mi), n_out = berth_program_output_count(prog, mi);
  berth_tensor_info_t x, s;
  if (m->in_x < 0 || berth_program_input_info(prog, mi, m->in_x, &x) || x.type.dtype != BERTH_DTYPE_F32 ||
      x.type.rank != 2 || x.type.dims[0] != 1)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "not %s", want);
  int64_t len = x.type.dims[1];
  if (st >= 0 && h < 0 && n_in == 2 + (m->in_sr >= 0) && n_out == 2) {
    m->kind = BERTH_VAD_KIND_V5;
    m->in_a = st, m->in_b = -1, m->out_p = 0, m->out_a = 1, m->out_b = -1;
    if (berth_program_input_info(prog, mi, st, &s) || !is_f32(&s, 256)) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "not %s", want);
    if (len == 512 + 64) m->rate = 16000, m->frame = 512, m->ctx = 64;
    else if (len == 256 + 32) m->rate = 8000, m->frame = 256, m->ctx = 32;
    else
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "the program takes %lld samples a frame; Silero VAD v5/v6 needs the frame plus the context "
                        "silero-vad prepends: compile with --input 'input:f32[1,576]' --input 'sr:i64[]=16000' (16 kHz) "
                        "or --input 'input:f32[1,288]' --input 'sr:i64[]=8000' (8 kHz)",
                        (long long)len);
  } else if (h >= 0 && c >= 0 && st < 0 && n_out == 3) {
    m->kind = BERTH_VAD_KIND_LEGACY;
    m->in_a = h, m->in_b = c, m->out_p = 0, m->out_a = 1, m->out_b = 2;
    berth_tensor_info_t hi, ci;
    if (berth_program_input_info(prog, mi, h, &hi) || berth_program_input_info(prog, mi, c, &ci) || !is_f32(&hi, 128) ||
        !is_f32(&ci, 128))
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "not %s", want);
    if (m->in_sr < 0 || n_in != 4)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "a legacy Silero VAD program must take sr at run time (compile with --input 'sr:i64[]'), so "
                        "that berth-vad can tell it the rate");
    if (len < 256 || len > 1536 || len % 256)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                        "legacy program takes %lld samples a frame; silero-vad v4 takes 256, 512, 768, 1024 or 1536",
                        (long long)len);
    m->rate = 0, m->frame = (int32_t)len, m->ctx = 0;
  } else if (st < 0 && h < 0 && c < 0 && n_out == 1 && n_in == 1 + (m->in_sr >= 0)) {
    /* compiled with --state: v5/v6 (buffer state) or legacy (buffers h, c), told apart once
     * the method exists; the frame rules are those of the kind */
    m->state_in_method = true;
    m->in_a = m->in_b = m->out_a = m->out_b = -1, m->out_p = 0;
  } else {
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "not %s", want);
  }
  berth_tensor_info_t op, oa;
  if (berth_program_output_info(prog, mi, m->out_p, &op) || !is_f32(&op, 1) ||
      (!m->state_in_method && (berth_program_output_info(prog, mi, m->out_a, &oa) ||
                               !is_f32(&oa, m->kind == BERTH_VAD_KIND_V5 ? 256 : 128))))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "not %s", want);
  if (m->in_sr >= 0) {
    berth_tensor_info_t si;
    if (berth_program_input_info(prog, mi, m->in_sr, &si) || si.type.dtype != BERTH_DTYPE_I64 || berth_type_numel(&si.type) != 1)
      return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "not %s", want);
  }
  void *mmem = (char *)m + sizeof *m;
  size_t msize = mem_size - ((char *)mmem - (char *)mem);
  berth_status_t rc = berth_method_init(prog, mi, mmem, msize, NULL, 0, &m->fwd, diag);
  if (rc) return rc;
  if (m->state_in_method && (rc = state_kind(m, len, want, diag))) return rc;
  if (!berth_program_outputs_planned(prog)) {
    if ((rc = berth_method_set_output(m->fwd, m->out_p, m->prob_buf, sizeof m->prob_buf, diag))) return rc;
    if (!m->state_in_method &&
        ((rc = berth_method_set_output(m->fwd, m->out_a, m->state_buf, oa.bytes, diag)) ||
        (rc = berth_method_set_output(m->fwd, m->out_a, m->state_buf, oa.bytes, diag)) ||
         (m->out_b >= 0 && (rc = berth_method_set_output(m->fwd, m->out_b, m->state_buf + 128, oa.bytes, diag)))))
      return rc;
  }
  *out = m;
  return BERTH_OK;
}

berth_vad_kind_t berth_vad_model_kind(const berth_vad_model_t *m) { return m->kind; }
int32_t berth_vad_model_rate(const berth_vad_model_t *m) { return m->rate; }
int32_t berth_vad_model_frame(const berth_vad_model_t *m) { return m->frame; }

/* One frame: s->x holds context + frame. Returns the probability in *prob. */
static berth_status_t run_frame(berth_vad_stream_t *s, float *prob, berth_diag_t *diag) {
  berth_vad_model_t *m = s->m;
  berth_method_t *f = m->fwd;
  berth_status_t rc;
  m->sr = s->rate;
  if ((rc = berth_method_set_input(f, m->in_x, s->x, (size_t)(m->ctx + m->frame) * sizeof(float), diag))) return rc;
  if (m->state_in_method) { /* the state stays in the method's buffers, updated in place */
    if (m->in_sr >= 0 && (rc = berth_method_set_input(f, m->in_sr, &m->sr, sizeof m->sr, diag))) return rc;
    const void *p;
    if ((rc = berth_method_execute(f, diag)) || (rc = berth_method_output(f, m->out_p, &p, NULL, diag))) return rc;
    memcpy(prob, p, sizeof *prob);
    return BERTH_OK;
  }
  if (m->kind == BERTH_VAD_KIND_V5) {
    if ((rc = berth_method_set_input(f, m->in_a, s->state, 256 * sizeof(float), diag))) return rc;
  } else if ((rc = berth_method_set_input(f, m->in_a, s->state, 128 * sizeof(float), diag)) ||
             (rc = berth_method_set_input(f, m->in_b, s->state + 128, 128 * sizeof(float), diag))) {
    return rc;
  }
  if (m->in_sr >= 0 && (rc = berth_method_set_input(f, m->in_sr, &m->sr, sizeof m->sr, diag))) return rc;
  if ((rc = berth_method_execute(f, diag))) return rc;
  /* State copy-back: the program returns the new state as an output (stateN, or hn and cn);
   * it goes back in as an input on the next frame of this stream. */
  const void *p, *a, *b = NULL;
  size_t na, nb = 0;
  if ((rc = berth_method_output(f, m->out_p, &p, NULL, diag)) || (rc = berth_method_output(f, m->out_a, &a, &na, diag)) ||
      (m->out_b >= 0 && (rc = berth_method_output(f, m->out_b, &b, &nb, diag))))
    return rc;
  memcpy(prob, p, sizeof *prob);
  if (m->kind == BERTH_VAD_KIND_V5) {
    memcpy(s->state, a, 256 * sizeof(float));
  } else {
    memcpy(s->state, a, 128 * sizeof(float));
    memcpy(s->state + 128, b, 128 * sizeof(float));
  }
  return BERTH_OK;
}

/* ---- segments ---------------------------------------------------------------------------- */

static void emit(berth_vad_stream_t *s, int64_t start, int64_t end) {
  if (s->o.on_segment) s->o.on_segment(s->o.user, start * s->step, end * s->step);
}

static int64_t floordiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }
static int64_t max0(int64_t v) { return v > 0 ? v : 0; }

/* A raw segment (get_speech_timestamps's speeches.append): pads and reports the previous
 * one, whose end depends on this one's start. */
static void append(berth_vad_stream_t *s, int64_t start, int64_t end) {
  segmenter_t *g = &s->g;
  int64_t pstart;
  if (g->has_pending) {
    int64_t gap = start - g->pend_end;
    if (gap < 2 * g->pad) {
      emit(s, g->pend_start, g->pend_end + floordiv2(gap));
      pstart = max0(start - floordiv2(gap));
    } else {
      int64_t e = g->pend_end + g->pad;
      emit(s, g->pend_start, e < s->len ? e : s->len);
      pstart = max0(start - g->pad);
    }
  } else {
    pstart = max0(start - g->pad); /* the first segment, or one after a reported one */
  }
  g->has_pending = true;
  g->pend_start = pstart;
  g->pend_end = end;
}

/* get_speech_timestamps's loop body for frame i (cur = its first sample). */
static void segment_frame(berth_vad_stream_t *s, int64_t cur, double p) {
  segmenter_t *g = &s->g;
  if (p >= g->threshold && g->temp_end) {
    int64_t sil = cur - g->temp_end;
    if (sil > g->min_sil_at_max && (!g->has_poss || sil > g->poss_dur)) g->poss_end = g->temp_end, g->poss_dur = sil;
    if (sil > g->min_sil_at_max) g->has_poss = true;
    g->temp_end = 0;
    if (g->next_start < g->prev_end) g->next_start = cur;
  }
  if (p >= g->threshold && !g->triggered) {
    g->triggered = true;
    g->cur_start = cur;
    return;
  }
  if (g->triggered && (double)(cur - g->cur_start) > g->max_speech) {
    if (g->use_max_poss && g->has_poss) {
      g->prev_end = g->poss_end;
      append(s, g->cur_start, g->prev_end);
      g->next_start = g->prev_end + g->poss_dur;
      if (g->next_start < g->prev_end + cur) g->cur_start = g->next_start;
      else g->triggered = false;
      g->prev_end = g->next_start = g->temp_end = 0;
      g->has_poss = false;
    } else if (g->prev_end) {
      append(s, g->cur_start, g->prev_end);
      if (g->next_start < g->prev_end) g->triggered = false;
      else g->cur_start = g->next_start;
      g->prev_end = g->next_start = g->temp_end = 0;
      g->has_poss = false;
    } else {
      append(s, g->cur_start, cur);
      g->prev_end = g->next_start = g->temp_end = 0;
      g->triggered = false;
      g->has_poss = false;
      return;
    }
  }
  if (p < g->neg_threshold && g->triggered) {
    if (!g->temp_end) g->temp_end = cur;
    int64_t sil = cur - g->temp_end;
    if (!g->use_max_poss && sil > g->min_sil_at_max) g->prev_end = g->temp_end;
    if (sil < g->min_silence) return;
    if (g->temp_end - g->cur_start > g->min_speech) append(s, g->cur_start, g->temp_end);
    g->prev_end = g->next_start = g->temp_end = 0;
    g->triggered = false;
    g->has_poss = false;
  }
}

/* Reports the pending segment early when no later segment can start within 2 * pad of its
 * end: later raw segments start at the open segment's start or, with none open, at a
 * frame not yet run. */
static void emit_if_final(berth_vad_stream_t *s, int64_t next_frame) {
  segmenter_t *g = &s->g;
  if (!g->has_pending) return;
  int64_t bound = g->triggered ? g->cur_start : next_frame;
  if (bound - g->pend_end < 2 * g->pad) return;
  int64_t e = g->pend_end + g->pad; /* <= bound - pad <= samples seen */
  emit(s, g->pend_start, e < s->len ? e : s->len);
  g->has_pending = false;
}

/* ---- streams ----------------------------------------------------------------------------- */

size_t berth_vad_stream_size(const berth_vad_model_t *m) {
  return sizeof(berth_vad_stream_t) + (size_t)(m->ctx + m->frame) * sizeof(float) + _Alignof(berth_vad_stream_t);
}

void berth_vad_stream_reset(berth_vad_stream_t *s) {
  segmenter_t keep = s->g;
  memset(&s->g, 0, sizeof s->g);
  s->g.threshold = keep.threshold, s->g.neg_threshold = keep.neg_threshold, s->g.max_speech = keep.max_speech;
  s->g.win = keep.win, s->g.min_speech = keep.min_speech, s->g.pad = keep.pad;
  s->g.min_silence = keep.min_silence, s->g.min_sil_at_max = keep.min_sil_at_max, s->g.use_max_poss = keep.use_max_poss;
  s->pushed = s->len = s->frames = 0;
  s->have = s->phase = 0;
  s->finished = false;
  memset(s->x, 0, (size_t)(s->m->ctx + s->m->frame) * sizeof(float));
  memset(s->state, 0, sizeof s->state);
  if (s->m->state_in_method) berth_method_reset(s->m->fwd);
}

berth_status_t berth_vad_stream_init(berth_vad_model_t *m, int32_t sample_rate, const berth_vad_options_t *o,
                                     void *mem, size_t mem_size, berth_vad_stream_t **out, berth_diag_t *diag) {
  if (!m || !mem || !out) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "vad stream: NULL model, memory or out");
  if (mem_size < berth_vad_stream_size(m))
    return berth_fail(diag, BERTH_ERR_RESOURCE_EXHAUSTED, "vad stream needs %zu bytes, got %zu", berth_vad_stream_size(m), mem_size);
  berth_vad_options_t def;
  if (!o) berth_vad_options_default(&def), o = &def;
  int32_t rate = sample_rate, step = 1;
  if (sample_rate > 16000 && sample_rate % 16000 == 0) step = sample_rate / 16000, rate = 16000;
  if (rate != 16000 && rate != 8000)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "sample rate %d Hz: Silero VAD takes 8000 or 16000 Hz (or a multiple of 16000, decimated); "
                      "resample first (e.g. sox IN.wav -r 16000 OUT.wav)",
                      (int)sample_rate);
  if (m->rate && m->rate != rate)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "the program was compiled for %d Hz (%d + %d samples a frame) but the audio is %d Hz; compile "
                      "with --input 'input:f32[1,%d]' --input 'sr:i64[]=%d'",
                      (int)m->rate, (int)m->frame, (int)m->ctx, (int)rate, rate == 16000 ? 576 : 288, (int)rate);
  if (!(o->threshold >= 0 && o->threshold <= 1)) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "threshold %g: must be in [0, 1]", o->threshold);
  if (!(o->neg_threshold < 0 || o->neg_threshold <= 1))
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "neg_threshold %g: must be in [0, 1] (or negative: the default)", o->neg_threshold);
  if (o->min_speech_duration_ms < 0 || o->min_silence_duration_ms < 0 || o->speech_pad_ms < 0 || o->min_silence_at_max_speech < 0)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "vad options: durations must be >= 0 ms");
  if (!(o->max_speech_duration_s > 0)) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "max_speech_duration_s %g: must be > 0", o->max_speech_duration_s);
  int32_t limit = 3600 * 1000; /* an hour in ms keeps every sample count far inside int64 */
  if (o->min_speech_duration_ms > limit || o->min_silence_duration_ms > limit || o->speech_pad_ms > limit ||
      o->min_silence_at_max_speech > limit)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "vad options: durations must be at most an hour");
  uintptr_t a = ((uintptr_t)mem + _Alignof(berth_vad_stream_t) - 1) & ~(uintptr_t)(_Alignof(berth_vad_stream_t) - 1);
  berth_vad_stream_t *s = (berth_vad_stream_t *)a;
  if (m->state_in_method && m->owner && m->owner != s)
    return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT,
                      "the program keeps the VAD state in the method (compiled with --state): one stream per model; "
                      "compile it without --state for many streams sharing one model");
  memset(s, 0, sizeof *s + (size_t)(m->ctx + m->frame) * sizeof(float));
  s->m = m;
  s->o = *o;
  s->in_rate = sample_rate, s->rate = rate, s->step = step;
  segmenter_t *g = &s->g;
  int64_t per_ms = rate / 1000; /* 8 or 16: every *_ms option is a whole number of samples */
  g->threshold = o->threshold;
  g->neg_threshold = o->neg_threshold >= 0 ? o->neg_threshold : fmax(o->threshold - 0.15, 0.01);
  g->win = m->frame;
  g->min_speech = per_ms * o->min_speech_duration_ms;
  g->pad = per_ms * o->speech_pad_ms;
  g->min_silence = per_ms * o->min_silence_duration_ms;
  g->min_sil_at_max = per_ms * o->min_silence_at_max_speech;
  g->max_speech = (double)rate * o->max_speech_duration_s - (double)g->win - 2.0 * (double)g->pad;
  g->use_max_poss = o->use_max_poss_sil_at_max_speech;
  if (m->state_in_method) {
    m->owner = s;
    berth_method_reset(m->fwd); /* the state starts at zero */
  }
  *out = s;
  return BERTH_OK;
}

static berth_status_t step_frame(berth_vad_stream_t *s, berth_diag_t *diag) {
  float prob;
  berth_status_t rc = run_frame(s, &prob, diag);
  if (rc) return rc;
  int64_t cur = s->frames * s->g.win;
  s->frames++;
  if (s->o.on_frame) s->o.on_frame(s->o.user, cur * s->step, prob);
  segment_frame(s, cur, (double)prob);
  emit_if_final(s, s->frames * s->g.win);
  /* the context of the next frame: the last ctx samples of this model input */
  int32_t ctx = s->m->ctx;
  if (ctx) memmove(s->x, s->x + s->m->frame, (size_t)ctx * sizeof(float));
  s->have = 0;
  return BERTH_OK;
}

berth_status_t berth_vad_stream_push(berth_vad_stream_t *s, const float *samples, size_t n, berth_diag_t *diag) {
  if (s->finished) return berth_fail(diag, BERTH_ERR_INVALID_ARGUMENT, "vad stream: push after finish (reset first)");
  int32_t ctx = s->m->ctx, frame = s->m->frame;
  for (size_t i = 0; i < n; i++) {
    s->pushed++;
    if (s->phase) {
      s->phase--;
      continue;
    }
    s->phase = s->step - 1;
    s->x[ctx + s->have++] = samples[i];
    s->len++;
    if (s->have == frame) {
      berth_status_t rc = step_frame(s, diag);
      if (rc) return rc;
    }
  }
  return BERTH_OK;
}

berth_status_t berth_vad_stream_finish(berth_vad_stream_t *s, berth_diag_t *diag) {
  if (s->finished) return BERTH_OK;
  if (s->have) {
    int32_t ctx = s->m->ctx;
    memset(s->x + ctx + s->have, 0, (size_t)(s->m->frame - s->have) * sizeof(float));
    berth_status_t rc = step_frame(s, diag);
    if (rc) return rc;
  }
  s->finished = true;
  segmenter_t *g = &s->g;
  if (g->triggered && s->len - g->cur_start > g->min_speech) append(s, g->cur_start, s->len);
  if (g->has_pending) {
    int64_t e = g->pend_end + g->pad;
    emit(s, g->pend_start, e < s->len ? e : s->len);
    g->has_pending = false;
  }
  return BERTH_OK;
}

int64_t berth_vad_stream_position(const berth_vad_stream_t *s) { return s->pushed; }
