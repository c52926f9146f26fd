/* Streaming Silero VAD over a berth program: push samples, get speech segments. No heap, no
 * stdio: every block comes from the caller, sized by the _size functions.
 *
 *   // once: the program (include/berth/runtime.h), then the model (its forward method)
 *   size_t msz = berth_vad_model_memory_size(prog);
 *   berth_vad_model_t *model;
 *   if (berth_vad_model_init(prog, malloc(msz), msz, &model, &diag)) fail(msg);
 *   // per stream: options (get_speech_timestamps's, with its defaults) and a small block
 *   berth_vad_options_t o;
 *   berth_vad_options_default(&o);
 *   o.on_segment = print_segment;                   // void (void *user, int64_t start, int64_t end)
 *   berth_vad_stream_t *s;
 *   size_t ssz = berth_vad_stream_size(model);        // 3.5 KB for v5 at 16 kHz
 *   if (berth_vad_stream_init(model, 16000, &o, malloc(ssz), ssz, &s, &diag)) fail(msg);
 *   while (more) berth_vad_stream_push(s, samples, n, &diag);  // any n; float in [-1, 1)
 *   berth_vad_stream_finish(s, &diag);                       // pads the last frame, flushes
 *
 * The model is fed as silero-vad's OnnxWrapper (src/silero_vad/utils_vad.py) feeds it:
 *  - v5 / v6 (inputs input, state f32[2,1,128], sr): frames of 512 samples at 16 kHz, 256 at
 *    8 kHz, each with the previous frame's last 64 (16 kHz) / 32 (8 kHz) samples prepended
 *    (zeros before the first), so the program's input is f32[1,576] / f32[1,288];
 *  - legacy / v4 (inputs input, sr, h, c f32[2,1,64]): frames of the program's input size
 *    (512, 1024 or 1536 at 16 kHz; 256, 512 or 768 at 8 kHz; silero's v4 default 512), no
 *    context; sr is passed at run time;
 *  - state starts at zero and carries over; a last partial frame is padded with zeros;
 *  - rates: 8000 and 16000; a multiple of 16000 (32000, 48000, ...) is decimated to 16 kHz
 *    by keeping every k-th sample, exactly as get_speech_timestamps does (audio[::k]), and
 *    positions are reported in the input's samples (multiplied by k); any other rate is
 *    refused (BERTH_ERR_INVALID_ARGUMENT naming the rate).
 * Segments follow get_speech_timestamps (the version with min_silence_at_max_speech and
 * use_max_poss_sil_at_max_speech) to the sample: the same raw segments, then the same
 * padding (speech_pad each side; when two segments are closer than 2 * pad, the gap is
 * split between them). A segment is reported as soon as it can no longer change: when the
 * next kept segment starts, when no later segment can start within 2 * pad of its end, or
 * at finish. Positions are samples from the start of the stream (input rate).
 *
 * Threads: a model runs one frame at a time; streams of one model must be pushed from one
 * thread (they share the method's arena; each stream keeps its own state and context and
 * copies the state in and out around every frame). Use one model per thread.
 *
 * A program compiled with --state (v5/v6: --state state=stateN; legacy: --state h=hn
 * --state c=cn) keeps the state in the method's mutable buffers, which the plan updates in
 * place: no state input and no copy per frame, and one stream per model (a second
 * berth_vad_stream_init on it fails). berth-vad compiles .onnx models that way. */
#ifndef BERTH_VAD_STREAM_H
#define BERTH_VAD_STREAM_H

#include <berth/runtime.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct berth_vad_model berth_vad_model_t;
typedef struct berth_vad_stream berth_vad_stream_t;

typedef enum berth_vad_kind {
  BERTH_VAD_KIND_V5 = 1,     /* v5 and v6: input (frame + context), state, sr */
  BERTH_VAD_KIND_LEGACY = 2, /* v4: input (frame), sr, h, c */
} berth_vad_kind_t;

/* get_speech_timestamps's options (silero-vad), same names and defaults. */
typedef struct berth_vad_options {
  double threshold;                    /* 0.5: speech when probability >= threshold */
  double neg_threshold;                /* < 0: max(threshold - 0.15, 0.01); in speech, silence below it */
  int32_t min_speech_duration_ms;      /* 250: raw segments not longer are dropped */
  double max_speech_duration_s;        /* INFINITY: longer segments are split */
  int32_t min_silence_duration_ms;     /* 100: silence that ends a segment */
  int32_t speech_pad_ms;               /* 30: padding each side */
  int32_t min_silence_at_max_speech;   /* 98 (ms): silence that may serve as a split point */
  bool use_max_poss_sil_at_max_speech; /* true: split at the longest such silence, else the last */
  /* Events (may be NULL). Segments in input-rate samples, start < end, in order. */
  void (*on_segment)(void *user, int64_t start, int64_t end);
  /* Every frame's speech probability; start = the frame's first sample (input rate). */
  void (*on_frame)(void *user, int64_t start, float prob);
  void *user;
} berth_vad_options_t;

void berth_vad_options_default(berth_vad_options_t *o);

/* ---- model: a loaded program's forward method, shared by the streams of one thread ----- */

/* Bytes for berth_vad_model_init (the model record, the method handle and its arenas);
 * 0 if the program has no forward method. */
size_t berth_vad_model_memory_size(const berth_program_t *prog);

/* Recognises a Silero VAD program by its inputs and outputs (see above) and lays the
 * method out in mem (any alignment). prog must outlive the model. Errors:
 * BERTH_ERR_INVALID_ARGUMENT (not a Silero VAD program, or one compiled without room for
 * the context, with a message saying how to compile it), BERTH_ERR_RESOURCE_EXHAUSTED. */
berth_status_t berth_vad_model_init(const berth_program_t *prog, void *mem, size_t mem_size,
                                    berth_vad_model_t **out, berth_diag_t *diag);

berth_vad_kind_t berth_vad_model_kind(const berth_vad_model_t *m);
/* The model rate the program was compiled for (16000 or 8000), or 0 when sr is a run-time
 * input (legacy). */
int32_t berth_vad_model_rate(const berth_vad_model_t *m);
/* Samples per frame (without context). */
int32_t berth_vad_model_frame(const berth_vad_model_t *m);

/* ---- streams ---------------------------------------------------------------------------- */

/* Bytes for one stream of model m (any alignment): its context and frame buffer, its state
 * and the segmenter's variables (3.5 KB for v5/v6 at 16 kHz). */
size_t berth_vad_stream_size(const berth_vad_model_t *m);

/* A stream at sample_rate (8000, 16000 or a multiple of 16000) with options o (copied;
 * NULL: defaults). Errors: BERTH_ERR_INVALID_ARGUMENT (a rate the model cannot take, an
 * option out of range, with its name), BERTH_ERR_RESOURCE_EXHAUSTED (mem too small). */
berth_status_t berth_vad_stream_init(berth_vad_model_t *m, int32_t sample_rate, const berth_vad_options_t *o,
                                     void *mem, size_t mem_size, berth_vad_stream_t **out, berth_diag_t *diag);

/* Feeds n samples; runs the model on each complete frame and reports segments and frames
 * through the callbacks. Errors: those of berth_method_execute; BERTH_ERR_INVALID_ARGUMENT
 * after finish. */
berth_status_t berth_vad_stream_push(berth_vad_stream_t *s, const float *samples, size_t n, berth_diag_t *diag);

/* End of the audio: runs the last partial frame (zero-padded), closes an open segment at
 * the end of the audio (if longer than min_speech_duration_ms) and reports what is left. */
berth_status_t berth_vad_stream_finish(berth_vad_stream_t *s, berth_diag_t *diag);

/* Back to the beginning of a new audio (state, context and segments cleared). */
void berth_vad_stream_reset(berth_vad_stream_t *s);

/* Samples pushed so far (input rate). */
int64_t berth_vad_stream_position(const berth_vad_stream_t *s);

#ifdef __cplusplus
}
#endif
#endif
