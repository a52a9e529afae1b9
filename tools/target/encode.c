/*
 * psnrhvs: target --encode OUT: the whole source encoded at the setting
 * chosen into OUT (the output layer's temporary file, renamed once whole),
 * each packet decoded back and scored against its source frame on the way.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "output/output.h"
#include "target/target_int.h"

/** The encode under way. */
typedef struct Full {
    const ProbeRun *run;
    double value;
    Input *in;
    AVCodecContext *enc, *dec;
    Mux *mux;
    AVBufferRef **held; ///< each frame's buffer until it is scored
    uint8_t **ref;      ///< its planes
    double *values;
    int cap, read, done;
    long long bytes;
    char err[1024];
} Full;

static void release(void *const opaque, uint8_t *const data) {
    (void)opaque;
    free(data);
}

static int grow(Full *const x) {
    if (x->read < x->cap) return 0;
    const int c = x->cap ? 2 * x->cap : 256;
    AVBufferRef **const h = realloc(x->held, sizeof(*h) * (size_t)c);
    if (h) x->held = h;
    uint8_t **const r = realloc(x->ref, sizeof(*r) * (size_t)c);
    if (r) x->ref = r;
    double *const v = realloc(x->values, sizeof(*v) * (size_t)c);
    if (v) x->values = v;
    if (!h || !r || !v) return -1;
    x->cap = c;
    return 0;
}

/* Packets out of the encoder (frame NULL: flush) into the file and the decoder. */
static int step(Full *const x, const AVFrame *const frame, AVPacket *const pkt) {
    const ProbeRun *const run = x->run;
    char buf[64];
    int r = avcodec_send_frame(x->enc, frame);
    if (r < 0) return snprintf(x->err, sizeof(x->err), "encoding: %s", av_error(r, buf, 64)), -1;
    while ((r = avcodec_receive_packet(x->enc, pkt)) >= 0) {
        x->bytes += pkt->size;
        if (decode_score(run->ctx, x->dec, pkt, run->src, x->ref, x->read, &x->done, 0, x->values,
                         run->a->key, x->err, sizeof(x->err)) < 0)
            return -1;
        if (mux_write(x->mux, pkt, x->enc) < 0)
            return snprintf(x->err, sizeof(x->err), "cannot write %s", run->a->encode), -1;
        av_packet_unref(pkt);
    }
    if (r != AVERROR(EAGAIN) && r != AVERROR_EOF)
        return snprintf(x->err, sizeof(x->err), "encoding: %s", av_error(r, buf, 64)), -1;
    /* Frames scored were copied by the scorer: the encoder alone may keep them. */
    for (int k = 0; k < x->done; k++) av_buffer_unref(&x->held[k]);
    return 0;
}

static int read_and_encode(Full *const x, AVFrame *const f, AVPacket *const pkt) {
    const Source *const s = x->run->src;
    InputFrame in;
    if (input_frame_alloc(x->in, &in) < 0) return -1;
    int r, ret = 0;
    while (ret == 0 && (r = input_read(x->in, &in)) != 0) {
        uint8_t *buf = NULL;
        if (r < 0) {
            snprintf(x->err, sizeof(x->err), "%s", input_error(x->in));
            ret = -1;
        } else if (grow(x) < 0 || source_copy_frame(s, &in, &buf) < 0 ||
                   wrap_frame(s, x->run->enc, buf, x->read, release, f) < 0) {
            free(buf);
            snprintf(x->err, sizeof(x->err), "out of memory");
            ret = -1;
        } else {
            x->held[x->read] = av_buffer_ref(f->buf[0]);
            x->ref[x->read++] = buf;
            ret = x->held[x->read - 1] ? step(x, f, pkt) : -1;
        }
    }
    input_frame_free(&in);
    return ret;
}

static int encode_into(FILE *const file, const void *const cookie) {
    Full *const x = (Full *)cookie;
    const ProbeRun *const run = x->run;
    if (mux_open(&x->mux, file, 0, run->a->encode, x->enc, x->err, sizeof(x->err)) < 0) return -1;
    AVFrame *f = av_frame_alloc();
    AVPacket *pkt = av_packet_alloc();
    int ret = f && pkt ? read_and_encode(x, f, pkt) : -1;
    av_frame_free(&f);
    if (ret == 0) ret = step(x, NULL, pkt);
    if (ret == 0)
        ret = decode_score(run->ctx, x->dec, NULL, run->src, x->ref, x->read, &x->done, 0,
                           x->values, run->a->key, x->err, sizeof(x->err));
    if (ret == 0 && x->done != x->read)
        ret = -1,
        snprintf(x->err, sizeof(x->err), "%d frames encoded, %d decoded back", x->read, x->done);
    av_packet_free(&pkt);
    if (drain_scores(run->ctx, x->values, run->a->key) < 0) ret = -1;
    if (mux_close(&x->mux, ret == 0, x->err, sizeof(x->err)) < 0) ret = -1;
    return ret;
}

static void full_free(Full *const x) {
    for (int k = 0; k < x->read; k++) av_buffer_unref(&x->held[k]);
    free(x->held);
    free(x->ref);
    free(x->values);
    avcodec_free_context(&x->dec);
    avcodec_free_context(&x->enc);
    input_close(&x->in);
}

int encode_full(const ProbeRun *const run, const double v, double *const score, double *const kbps,
                long long *const bytes) {
    Full x = {.run = run, .value = v};
    OutputFile *of = NULL;
    int ret = -1;
    if (source_reopen(run->a, run->src, &x.in) < 0) return -1;
    x.enc = encoder_open(run->enc, v, x.err, sizeof(x.err));
    x.dec = x.enc ? decoder_open(run->enc, x.enc, x.err, sizeof(x.err)) : NULL;
    if (x.dec && output_open(&of, run->a->encode) == 0) {
        ret = output_commit_with(&of, encode_into, &x);
        if (ret < 0 && !x.err[0]) snprintf(x.err, sizeof(x.err), "not written");
    }
    if (ret < 0 && x.err[0])
        fprintf(stderr, "psnrhvs: target: --encode %s: %s\n", run->a->encode, x.err);
    if (ret == 0) {
        const Source *const s = run->src;
        *bytes = x.bytes;
        *kbps = (double)x.bytes * 8 / 1000 / ((double)x.read * s->fps_den / s->fps_num);
        *score = target_pool(&run->a->pool, x.values, (size_t)x.read);
    }
    full_free(&x);
    return ret;
}
