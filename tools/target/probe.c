/*
 * psnrhvs: one probe of target's search: each sample encoded at one setting
 * as a stream of its own (a fresh encoder), decoded back in memory and
 * scored against the source's frames as the packets come. The samples
 * encode on threads side by side, all scored by one context.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "thread.h"
#include "target/target_int.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

void picture_of(const Source *const s, const uint8_t *const buf, PsnrHvsPicture *const p) {
    const uint8_t *q = buf;
    memset(p, 0, sizeof(*p));
    for (int pl = 0; pl < s->geo.num_planes; pl++) {
        p->data[pl] = q;
        p->stride[pl] = (ptrdiff_t)s->geo.stored_w[pl] * s->geo.bytes_per_sample;
        q += s->geo.plane_bytes[pl];
    }
}

/* Send a pair, taking scores out while the queue is full; whoever takes a
 * score stores it by its tag. */
static int send_pair(PsnrHvsContext *const ctx, const PsnrHvsPicture *const ref,
                     const PsnrHvsPicture *const dist, const uint64_t tag, double *const values,
                     const enum PsnrHvsKey key) {
    for (;;) {
        int r = psnrhvs_send(ctx, ref, dist, tag);
        if (r != PSNRHVS_ERR(EAGAIN)) return r;
        PsnrHvsScore sc;
        r = psnrhvs_receive(ctx, &sc);
        if (r == 0)
            values[sc.tag] = psnrhvs_key_value(&sc, key);
        else if (r != PSNRHVS_ERR(EAGAIN))
            return r;
    }
}

int drain_scores(PsnrHvsContext *const ctx, double *const values, const enum PsnrHvsKey key) {
    for (;;) {
        PsnrHvsScore sc;
        const int r = psnrhvs_receive(ctx, &sc);
        if (r == PSNRHVS_ERR(EAGAIN)) return 0;
        if (r < 0) {
            fprintf(stderr, "psnrhvs: target: scoring failed: %s\n", strerror(-r));
            return -1;
        }
        values[sc.tag] = psnrhvs_key_value(&sc, key);
    }
}

int decode_score(PsnrHvsContext *const ctx, AVCodecContext *const dec, const AVPacket *const pkt,
                 const Source *const src, uint8_t *const *const ref, const int frames,
                 int *const done, const uint64_t tag0, double *const values,
                 const enum PsnrHvsKey key, char *const err, const size_t size) {
    char buf[64];
    int r = avcodec_send_packet(dec, pkt);
    if (r < 0) return snprintf(err, size, "decoding a probe: %s", av_error(r, buf, 64)), -1;
    AVFrame *f = av_frame_alloc();
    if (!f) return snprintf(err, size, "out of memory"), -1;
    while ((r = avcodec_receive_frame(dec, f)) >= 0) {
        if (*done >= frames || f->format != dec->pix_fmt || f->width != src->fmt.width ||
            f->height != src->fmt.height) {
            snprintf(err, size, "the decoder gave back %s frame %d of %d frames",
                     *done >= frames ? "an extra" : "a different", *done, frames);
            av_frame_free(&f);
            return -1;
        }
        PsnrHvsPicture rp, dp = {{f->data[0], f->data[1], f->data[2]},
                                 {f->linesize[0], f->linesize[1], f->linesize[2]}};
        picture_of(src, ref[*done], &rp);
        r = send_pair(ctx, &rp, &dp, tag0 + (uint64_t)*done, values, key);
        av_frame_unref(f);
        if (r < 0) {
            snprintf(err, size, "scoring failed: %s", strerror(-r));
            av_frame_free(&f);
            return -1;
        }
        ++*done;
    }
    av_frame_free(&f);
    if (r != AVERROR(EAGAIN) && r != AVERROR_EOF)
        return snprintf(err, size, "decoding a probe: %s", av_error(r, buf, 64)), -1;
    return 0;
}

void wrap_no_free(void *const opaque, uint8_t *const data) {
    (void)opaque, (void)data;
}

int wrap_frame(const Source *const s, const Encoder *const e, uint8_t *const buf, const int k,
               void (*release)(void *, uint8_t *), AVFrame *const f) {
    av_frame_unref(f);
    f->format = e->pix_fmt, f->width = e->width, f->height = e->height, f->pts = k;
    f->buf[0] = av_buffer_create(buf, s->geo.frame_bytes, release, NULL, AV_BUFFER_FLAG_READONLY);
    if (!f->buf[0]) return -1;
    PsnrHvsPicture p;
    picture_of(s, buf, &p);
    for (int pl = 0; pl < s->geo.num_planes; pl++) {
        f->data[pl] = (uint8_t *)p.data[pl];
        f->linesize[pl] = (int)p.stride[pl];
    }
    return 0;
}

/** One sample's encode at one setting, on its own thread. */
typedef struct SampleJob {
    const ProbeRun *run;
    int sample;
    double value;
    uint64_t tag0;   ///< its first frame's place in run->values
    char keep[4096]; ///< --keep-probes: the file, else ""
    long long bytes;
    double encode_s, score_s;
    char err[5120];
} SampleJob;

/* --keep-probes: the probe's file, never over one that exists. */
static int keep_open(SampleJob *const j, const AVCodecContext *const enc, Mux **const m) {
    if (!j->keep[0]) return 0;
    const int fd = open(j->keep, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    FILE *const f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        snprintf(j->err, sizeof(j->err), "cannot create %s: %s", j->keep, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    return mux_open(m, f, 1, j->keep, enc, j->err, sizeof(j->err));
}

/* Take every packet the encoder has (frame NULL: flush it) to the muxer
 * and the decoder. */
static int encode_step(SampleJob *const j, AVCodecContext *const enc, AVCodecContext *const dec,
                       Mux *const m, const AVFrame *const frame, AVPacket *const pkt,
                       int *const done) {
    const Source *const s = j->run->src;
    const Sample *const sm = &s->sample[j->sample];
    char buf[64];
    double t = now();
    int r = avcodec_send_frame(enc, frame);
    if (r < 0) return snprintf(j->err, sizeof(j->err), "encoding: %s", av_error(r, buf, 64)), -1;
    while ((r = avcodec_receive_packet(enc, pkt)) >= 0) {
        j->bytes += pkt->size;
        const double t1 = now();
        j->encode_s += t1 - t;
        if (decode_score(j->run->ctx, dec, pkt, s, sm->ref, sm->frames, done, j->tag0,
                         j->run->values, j->run->a->key, j->err, sizeof(j->err)) < 0)
            return -1;
        if (m && mux_write(m, pkt, enc) < 0)
            return snprintf(j->err, sizeof(j->err), "cannot write %s", j->keep), -1;
        av_packet_unref(pkt);
        t = now();
        j->score_s += t - t1;
    }
    j->encode_s += now() - t;
    if (r != AVERROR(EAGAIN) && r != AVERROR_EOF)
        return snprintf(j->err, sizeof(j->err), "encoding: %s", av_error(r, buf, 64)), -1;
    return 0;
}

static int encode_sample(SampleJob *const j, AVCodecContext *const enc, AVCodecContext *const dec,
                         Mux *const m) {
    const Source *const s = j->run->src;
    const Sample *const sm = &s->sample[j->sample];
    AVFrame *f = av_frame_alloc();
    AVPacket *pkt = av_packet_alloc();
    int done = 0, ret = f && pkt ? 0 : -1;
    for (int k = 0; ret == 0 && k < sm->frames; k++) {
        if (wrap_frame(s, j->run->enc, sm->ref[k], k, wrap_no_free, f) < 0)
            ret = -1;
        else
            ret = encode_step(j, enc, dec, m, f, pkt, &done);
    }
    if (ret == 0) ret = encode_step(j, enc, dec, m, NULL, pkt, &done);
    if (ret == 0) {
        const double t = now();
        ret = decode_score(j->run->ctx, dec, NULL, s, sm->ref, sm->frames, &done, j->tag0,
                           j->run->values, j->run->a->key, j->err, sizeof(j->err));
        j->score_s += now() - t;
    }
    if (ret == 0 && done != sm->frames)
        snprintf(j->err, sizeof(j->err), "%d frames encoded, %d decoded back", sm->frames, done),
            ret = -1;
    if (!f || !pkt) snprintf(j->err, sizeof(j->err), "out of memory");
    av_frame_free(&f);
    av_packet_free(&pkt);
    return ret;
}

static void run_job(SampleJob *const j) {
    AVCodecContext *enc = encoder_open(j->run->enc, j->value, j->err, sizeof(j->err));
    AVCodecContext *dec = enc ? decoder_open(j->run->enc, enc, j->err, sizeof(j->err)) : NULL;
    Mux *m = NULL;
    int ret = dec ? keep_open(j, enc, &m) : -1;
    if (ret == 0) ret = encode_sample(j, enc, dec, m);
    if (m && mux_close(&m, ret == 0, j->err, sizeof(j->err)) < 0) ret = -1;
    if (ret < 0 && !j->err[0]) snprintf(j->err, sizeof(j->err), "out of memory");
    if (ret == 0) j->err[0] = '\0';
    avcodec_free_context(&dec);
    avcodec_free_context(&enc);
}

/** The jobs of one probe, taken in turn by its threads. */
typedef struct JobQueue {
    SampleJob *jobs;
    int n;
    atomic_int next;
} JobQueue;

static void *job_thread(void *const arg) {
    JobQueue *const q = arg;
    for (int i; (i = atomic_fetch_add(&q->next, 1)) < q->n;) run_job(&q->jobs[i]);
    return NULL;
}

/* The file of a kept probe: DIR/crf_23_s0.mkv. */
static int keep_name(const ProbeRun *const run, const double v, const int sample, char *const out,
                     const size_t size) {
    if (!run->a->keep_probes) return out[0] = '\0', 0;
    const int n =
        snprintf(out, size, "%s/%s_%.6g_s%d.mkv", run->a->keep_probes, run->enc->param, v, sample);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Run the jobs on up to --jobs threads (this one among them). */
static int run_jobs(const ProbeRun *const run, SampleJob *const jobs, const int n) {
    JobQueue q = {jobs, n, 0};
    int threads = run->a->jobs ? run->a->jobs : n;
    if (threads > n) threads = n;
    pthread_t t[TARGET_MAX_SAMPLES];
    int started = 0;
    for (; started < threads - 1; started++)
        if (cli_thread_start(&t[started], job_thread, &q)) break;
    job_thread(&q);
    for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
    int ret = drain_scores(run->ctx, run->values, run->a->key);
    for (int i = 0; i < n && ret == 0; i++)
        if (jobs[i].err[0]) {
            fprintf(stderr, "psnrhvs: target: %s %s %g, sample %d: %s\n", run->enc->codec->name,
                    run->enc->param, jobs[i].value, i, jobs[i].err);
            ret = -1;
        }
    return ret;
}

int probe_setting(void *const arg, const int i, Probe *const out) {
    const ProbeRun *const run = arg;
    const Source *const s = run->src;
    SampleJob *const jobs = calloc((size_t)s->num_samples, sizeof(*jobs));
    if (!jobs) {
        fprintf(stderr, "psnrhvs: target: out of memory\n");
        return -1;
    }
    out->value = encoder_value(run->enc, i);
    uint64_t tag = 0;
    for (int k = 0; k < s->num_samples; k++) {
        jobs[k] = (SampleJob){.run = run, .sample = k, .value = out->value, .tag0 = tag};
        tag += (uint64_t)s->sample[k].frames;
        if (keep_name(run, out->value, k, jobs[k].keep, sizeof(jobs[k].keep)) < 0) {
            fprintf(stderr, "psnrhvs: target: --keep-probes: the folder's name is too long\n");
            free(jobs);
            return -1;
        }
    }
    const double t = now();
    const int ret = run_jobs(run, jobs, s->num_samples);
    out->wall_s = now() - t;
    for (int k = 0; k < s->num_samples; k++) {
        out->bytes += jobs[k].bytes;
        out->encode_s += jobs[k].encode_s;
        out->score_s += jobs[k].score_s;
    }
    free(jobs);
    if (ret < 0) return -1;
    out->kbps =
        (double)out->bytes * 8 / 1000 / ((double)s->sample_frames * s->fps_den / s->fps_num);
    memcpy(run->pooled, run->values, sizeof(double) * (size_t)s->sample_frames);
    out->score = target_pool(&run->a->pool, run->pooled, (size_t)s->sample_frames);
    return 0;
}
