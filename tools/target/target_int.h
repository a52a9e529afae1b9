/*
 * psnrhvs: target's parts built with FFmpeg's libraries: the source's
 * samples, the encoder, a probe of one setting.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_TARGET_TARGET_INT_H
#define PSNRHVS_TOOLS_TARGET_TARGET_INT_H

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <stdio.h>

#include "input/input.h"
#include "target/target.h"

/** Read the source once, keeping its samples (samples.c). @return 0 or -1 (reported). */
int source_load(const TargetArgs *a, Source *s);
void source_free(Source *s);
/** Open the source again with the format found the first time. @return 0 or -1 (reported). */
int source_reopen(const TargetArgs *a, const Source *s, Input **in);
/** Copy a frame read into a new buffer of the stored geometry. @return 0 or -1. */
int source_copy_frame(const Source *s, const InputFrame *f, uint8_t **out);

/** The encoder and what target searches of it (encoder.c). */
typedef struct Encoder {
    const AVCodec *codec, *decoder;
    enum AVPixelFormat pix_fmt;
    enum { Q_CRF, Q_QP, Q_BITRATE } kind;
    const char *param; ///< "crf", "qp" or "b" (kbit/s)
    double lo, hi;     ///< the range searched
    int n;             ///< settings in it
    AVDictionary *opts;
    AVRational fps;
    int width, height;
} Encoder;

/** Find the encoder, its quality parameter and range, and try its options
 *  once. @return 0 or -1 (reported). */
int encoder_setup(Encoder *e, const TargetArgs *a, const Source *s);
void encoder_free(Encoder *e);
/** Setting i: 0 the best quality, n - 1 the cheapest. */
double encoder_value(const Encoder *e, int i);
/** Open a fresh encoder at value v. @return it, or NULL with err set. */
AVCodecContext *encoder_open(const Encoder *e, double v, char *err, size_t size);
/** A decoder of enc's stream. @return it, or NULL with err set. */
AVCodecContext *decoder_open(const Encoder *e, const AVCodecContext *enc, char *err, size_t size);
/** av_err2str's text of ret in buf. */
const char *av_error(int ret, char *buf, size_t size);

/** A muxer writing one stream (mux.c). */
typedef struct Mux Mux;
/** Write to f (own: closed by mux_close) in the container of name. @return 0 or -1, err set. */
int mux_open(Mux **m, FILE *f, int own, const char *name, const AVCodecContext *enc, char *err,
             size_t size);
int mux_write(Mux *m, AVPacket *pkt, const AVCodecContext *enc);
/** Write the trailer (ok) and free. @return 0 or -1, err set. */
int mux_close(Mux **m, int ok, char *err, size_t size);

/** What every probe shares (probe.c). */
typedef struct ProbeRun {
    const TargetArgs *a;
    const Source *src;
    const Encoder *enc;
    PsnrHvsContext *ctx;
    double *values; ///< each sample frame's score of the probe under way
    double *pooled; ///< scratch for pooling
} ProbeRun;

/** Encode every sample at setting index i, decode and score it. @return 0 or -1 (reported). */
int probe_setting(void *run, int i, Probe *out);

/** Encode the whole source at v into a->encode, scored on the way (encode.c). */
int encode_full(const ProbeRun *run, double v, double *score, double *kbps, long long *bytes);

/** Feed one packet (NULL: flush) to the decoder and score what comes out
 *  against ref[*done...]: 0, or -1 with err. */
int decode_score(PsnrHvsContext *ctx, AVCodecContext *dec, const AVPacket *pkt, const Source *src,
                 uint8_t *const *ref, int frames, int *done, uint64_t tag0, double *values,
                 enum PsnrHvsKey key, char *err, size_t size);
/** The planes of a frame of the source's stored geometry at buf. */
void picture_of(const Source *s, const uint8_t *buf, PsnrHvsPicture *p);
/** Source frame k at buf as f, refcounted: release frees buf when the last
 *  reference goes (wrap_no_free: buf outlives every encoder). @return 0 or -1. */
int wrap_frame(const Source *s, const Encoder *e, uint8_t *buf, int k,
               void (*release)(void *, uint8_t *), AVFrame *f);
void wrap_no_free(void *opaque, uint8_t *data);

/** Receive every score still in flight into values. @return 0 or -1 (reported). */
int drain_scores(PsnrHvsContext *ctx, double *values, enum PsnrHvsKey key);

#endif /* PSNRHVS_TOOLS_TARGET_TARGET_INT_H */
