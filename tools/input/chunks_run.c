/*
 * psnrhvs: decoding in keyframe chunks: the runs. A worker takes the first
 * chunk nobody decodes yet, decodes it in a fresh session (chunk 0 in the
 * input's own decoder), keeps the frames that are its chunk's (design:
 * chunks.c) and decodes on through the next chunk when that one's run did
 * not start as the sequential decode.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>

#include "input/chunks_int.h"
#include "input/ffmpeg.h"
#include "msg.h"

/* Under lock: wait for a change, or POLL_MS for one elsewhere. */
static void wait_a_little(struct Chunks *const c) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += POLL_MS * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&c->cond, &c->lock, &ts);
}

static size_t frame_bytes(const AVFrame *const f) {
    enum AVPixelFormat fmt = f->format;
    if (f->hw_frames_ctx)
        fmt = ((const AVHWFramesContext *)(const void *)f->hw_frames_ctx->data)->sw_format;
    const int n = av_image_get_buffer_size(fmt, f->width, f->height, 1);
    return n > 0 ? (size_t)n : 1;
}

/* ---- runs ----------------------------------------------------------------- */

void chunks_free_queue(struct Chunks *const c, Run *const r) {
    for (; r->q_len; r->q_len--) {
        Queued *const e = &r->q[r->q_head];
        c->buffered -= e->bytes;
        chunks_account(0, e->bytes);
        av_frame_free(&e->f);
        r->q_head = (r->q_head + 1) % r->q_cap;
    }
    free(r->q);
    r->q = NULL;
}

/* Under lock: the run before takes r's chunks back. */
static void cancel_run(struct Chunks *const c, Run *const r) {
    for (int k = r->first; k <= r->last; k++)
        if (c->ch[k].run == r) c->ch[k].run = NULL;
    c->given_up++;
    if (r->state == RUN_DONE) {
        chunks_free_queue(c, r); /* its worker has left it */
        free(r);
    } else {
        r->state = RUN_CANCELLED;
    }
}

typedef struct Decode {
    struct Chunks *c;
    Worker *w;
    Run *r;
    AVCodecContext *dec;
    int found;        ///< the first chunk's keyframe came out (chunk 0: from the start)
    int64_t lo, hi;   ///< packets of its chunks sent: [lo, hi)
    int64_t lead_hi;  ///< the first keyframe's leading pictures [lo + 1, lead_hi): not its own
    int64_t tail_key; ///< the next chunk's keyframe, decoded at the end, -1 none
    int64_t tail_hi;  ///< its leading pictures [tail_key + 1, tail_hi) are the run's
    int tail_seen;
    int leave;   ///< cancelled or closing
    int joining; ///< the worker's session has given no frame yet
} Decode;

/* A worker's session gave its first frame at t_out (now_ms()), or its run
 * ended without one (0): the sessions waiting to open may go on (take_work). */
static void note_joined(Decode *const dd, const double t_out) {
    struct Chunks *const c = dd->c;
    dd->joining = 0;
    pthread_mutex_lock(&c->lock);
    if (dd->r->first == 0) {
        c->first_out = 1;
        c->t_decoded = t_out;
    } else {
        c->opening--;
        if (t_out) c->join_ms[c->joined++] = t_out - c->t_open;
    }
    dd->w->joined |= t_out != 0;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

static void set_error(Decode *const dd, const int kind, const int err, const char *const what) {
    char last[256];
    ffmpeg_last_error(last, sizeof(last));
    dd->r->err = err;
    dd->r->err_kind = kind;
    /* cut short, if need be: a message, not data */
    if (snprintf(dd->r->detail, sizeof(dd->r->detail), "%s%s%s%s", what,
                 last[0] ? " (ffmpeg: " : "", last, last[0] ? ")" : "") < 0)
        dd->r->detail[0] = '\0';
}

/* Not started as the sequential decoder: its chunk goes to the run before. */
static void give_up(Decode *const dd) {
    struct Chunks *const c = dd->c;
    pthread_mutex_lock(&c->lock);
    c->ch[dd->r->first].bad = 1;
    if (dd->r->state == RUN_BUSY) {
        dd->r->verdict = -1;
        for (int k = dd->r->first; k <= dd->r->last; k++)
            if (c->ch[k].run == dd->r) c->ch[k].run = NULL;
        c->given_up++;
        dd->r->state = RUN_CANCELLED;
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    dd->leave = 1;
}

/* A frame the decoder returned: kept, dropped, or the run's end. 0, or -1 (leave). */
static int take_frame(Decode *const dd, AVFrame *const f) {
    struct Chunks *const c = dd->c;
    Run *const r = dd->r;
    const int64_t tag = f->pts >= TAG_BASE ? f->pts - TAG_BASE : -1;
    if (!dd->found) {
        if (tag == dd->lo) {
            dd->found = 1;
            chunks_session_unmute(&dd->w->sess);
            pthread_mutex_lock(&c->lock);
            r->found_hbf = dd->dec->has_b_frames;
            if (r->state == RUN_BUSY) r->verdict = 1;
            pthread_cond_broadcast(&c->cond);
            pthread_mutex_unlock(&c->lock);
        } else if (tag > dd->lo && tag < dd->lead_hi) {
            av_frame_unref(f); /* a leading picture: the run before decodes it */
            return 0;
        } else {
            if (c->timing)
                fprintf(cli_err(),
                        "psnrhvs: decode chunks: %s: a session started at packet %lld gave the "
                        "frame of packet %lld first: the run before decodes on\n",
                        c->name, (long long)dd->lo, (long long)tag);
            av_frame_unref(f);
            give_up(dd);
            return -1;
        }
    }
    if (dd->tail_key >= 0 && (dd->tail_seen || tag == dd->tail_key)) {
        dd->tail_seen = 1; /* the next run's from here */
        av_frame_unref(f);
        return 0;
    }
    const int own = (tag >= dd->lo && tag < dd->hi && !(tag > dd->lo && tag < dd->lead_hi)) ||
                    (dd->tail_key >= 0 && tag > dd->tail_key && tag < dd->tail_hi);
    if (!own) {
        av_frame_unref(f);
        char what[200];
        snprintf(what, sizeof(what),
                 "a frame of packet %lld came out of the chunk of packets %lld-%lld",
                 (long long)tag, (long long)dd->lo, (long long)dd->hi - 1);
        set_error(dd, ERR_SPLIT, AVERROR_BUG, what);
        return -1;
    }
    AVFrame *q = av_frame_alloc();
    if (!q) {
        av_frame_unref(f);
        set_error(dd, ERR_SPLIT, AVERROR(ENOMEM), "out of memory");
        return -1;
    }
    av_frame_move_ref(q, f);
    const int err = c->plan.sessions > 1 ? chunks_detach_surface(&c->surfaces, &c->lock, &q) : 0;
    if (err < 0) {
        av_frame_free(&q);
        set_error(dd, ERR_SPLIT, err, "cannot copy a frame off the decoder's surfaces");
        return -1;
    }
    const size_t bytes = frame_bytes(q);
    pthread_mutex_lock(&c->lock);
    /* Runs ahead wait while the frames queued pass the budget; other
     * inputs' frames are freed without a word to this one: look again soon. */
    while (!c->stop && r->state == RUN_BUSY && c->cur < c->nch && c->ch[c->cur].run != r &&
           (c->buffered > c->budget || chunks_over_budget(c->budget))) {
        wait_a_little(c);
    }
    if (c->stop || r->state != RUN_BUSY) {
        pthread_mutex_unlock(&c->lock);
        av_frame_free(&q);
        dd->leave = 1;
        return -1;
    }
    if (r->q_len == r->q_cap) {
        const int cap = r->q_cap ? 2 * r->q_cap : 16;
        Queued *const nq = malloc((size_t)cap * sizeof(*nq));
        if (!nq) {
            pthread_mutex_unlock(&c->lock);
            av_frame_free(&q);
            set_error(dd, ERR_SPLIT, AVERROR(ENOMEM), "out of memory");
            return -1;
        }
        for (int k = 0; k < r->q_len; k++) nq[k] = r->q[(r->q_head + k) % r->q_cap];
        free(r->q);
        r->q = nq;
        r->q_head = 0;
        r->q_cap = cap;
    }
    r->q[(r->q_head + r->q_len++) % r->q_cap] = (Queued){q, bytes};
    c->buffered += bytes;
    chunks_account(bytes, 0);
    if (c->buffered > c->peak) c->peak = c->buffered;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    return 0;
}

/* Send one packet (NULL: the end) and take every frame it lets out. 0 or -1 (leave). */
static int decode(Decode *const dd, const AVPacket *const pkt) {
    int ret = avcodec_send_packet(dd->dec, pkt);
    /* A damaged packet is skipped, as the sequential decode does. */
    if (ret < 0 && ret != AVERROR_INVALIDDATA) {
        if (!dd->found) return give_up(dd), -1;
        set_error(dd, ERR_SEND, ret, av_err2str(ret));
        return -1;
    }
    for (;;) {
        ret = avcodec_receive_frame(dd->dec, dd->w->frame);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return 0;
        if (ret < 0) {
            if (!dd->found) return give_up(dd), -1;
            set_error(dd, ERR_RECEIVE, ret, av_err2str(ret));
            return -1;
        }
        const double t_out = dd->joining ? now_ms() : 0;
        ret = take_frame(dd, dd->w->frame);
        if (dd->joining) note_joined(dd, t_out); /* once run 0's first frame is queued */
        if (ret < 0) return -1;
    }
}

/* The packet n into w->pkt (a reference of its own) once read. 1, 0 at
 * the end of chunk k (or of the stream), -1 leave. */
static int fetch(Decode *const dd, const int k, const int64_t n) {
    struct Chunks *const c = dd->c;
    int res;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        if (c->stop || dd->r->state != RUN_BUSY) {
            res = -1;
            break;
        }
        const Chunk *const ch = &c->ch[k];
        if (ch->end >= 0 && n >= ch->end) {
            res = 0;
            break;
        }
        if (n < c->pk_count) {
            res = av_packet_ref(dd->w->pkt, pkt_at(c, n)->pkt) < 0 ? -1 : 1;
            break;
        }
        c->starving++;
        pthread_cond_broadcast(&c->cond);
        pthread_cond_wait(&c->cond, &c->lock);
        c->starving--;
    }
    pthread_mutex_unlock(&c->lock);
    if (res < 0) dd->leave = 1;
    return res;
}

/* A fresh session for w, with the input's options, x264's version x264
 * (H.264, -1: none) and pictures before a recovery point output or not. */
static AVCodecContext *open_session(struct Chunks *const c, Worker *const w, const int x264,
                                    const int corrupt) {
    const double t0 = now_ms();
    AVCodecContext *const d = avcodec_alloc_context3(c->tmpl->codec);
    if (!d) return NULL;
    Session *const sess = &w->sess;
    AVDictionary *opts = NULL;
    int ok = avcodec_parameters_to_context(d, c->par) >= 0;
    if (ok && d->codec->priv_class) ok = av_opt_copy(d->priv_data, c->tmpl->priv_data) >= 0;
    if (ok) {
        const AVCodecContext *const t = c->tmpl;
        d->pkt_timebase = t->pkt_timebase;
        d->flags = t->flags;
        d->flags2 = t->flags2;
        d->err_recognition = t->err_recognition;
        d->workaround_bugs = t->workaround_bugs;
        d->strict_std_compliance = t->strict_std_compliance;
        d->error_concealment = t->error_concealment;
        d->skip_loop_filter = t->skip_loop_filter;
        d->skip_idct = t->skip_idct;
        d->skip_frame = t->skip_frame;
        d->lowres = t->lowres;
        d->apply_cropping = t->apply_cropping;
        d->export_side_data = t->export_side_data;
        d->extra_hw_frames = t->extra_hw_frames;
        d->hwaccel_flags = t->hwaccel_flags;
        d->thread_type = t->thread_type;
        d->thread_count = c->plan.threads;
        sess->input = t->opaque;
        sess->muted = 1;
        chunks_session_add(sess);
        d->opaque = sess;
        d->get_format = t->get_format;
        if (!t->hw_device_ctx) {
            sess->pool = &c->fpool;
            d->get_buffer2 = chunks_pooled_get_buffer;
        }
        if (t->hw_device_ctx) ok = (d->hw_device_ctx = av_buffer_ref(t->hw_device_ctx)) != NULL;
        if (x264 >= 0) av_dict_set_int(&opts, "x264_build", x264, 0);
        /* From a recovery point, FFmpeg's H.264 decoder marks the pictures
         * decoded before that keyframe is output as not recovered, and drops
         * those it drains (the sequential decoder, recovered long before,
         * outputs them): output them, as the sequential decoder does. What
         * comes before the keyframe is dropped anyway. */
        if (corrupt) d->flags |= AV_CODEC_FLAG_OUTPUT_CORRUPT;
    }
    if (ok) ok = avcodec_open2(d, c->tmpl->codec, &opts) >= 0;
    av_dict_free(&opts);
    AVCodecContext *dec = d;
    if (!ok) {
        avcodec_free_context(&dec);
        chunks_session_remove(sess);
    }
    pthread_mutex_lock(&c->lock);
    c->sessions_opened++;
    c->open_ms += now_ms() - t0;
    pthread_mutex_unlock(&c->lock);
    return dec;
}

static void close_session(Worker *const w) {
    if (!w->dec) return;
    avcodec_free_context(&w->dec);
    chunks_session_remove(&w->sess);
}

/*
 * w's session for a run from chunk `first`: the one it has, flushed (as a
 * decoder after a seek), where it was opened with the options this chunk
 * needs, else a fresh one. The run's checks (its keyframe first, the reorder
 * depth) hold either way. NULL: none opens.
 */
static AVCodecContext *take_session(struct Chunks *const c, Worker *const w,
                                    const Chunk *const first) {
    const int x264 = c->codec == KEY_H264 && first->x264_build >= 0 ? first->x264_build : -1;
    const int corrupt = c->codec == KEY_H264 && first->open;
    if (w->dec && w->x264_build == x264 && w->corrupt == corrupt) {
        avcodec_flush_buffers(w->dec);
        chunks_session_mute(&w->sess);
        pthread_mutex_lock(&c->lock);
        c->sessions_reused++;
        pthread_mutex_unlock(&c->lock);
        return w->dec;
    }
    close_session(w);
    w->dec = open_session(c, w, x264, corrupt);
    w->x264_build = x264;
    w->corrupt = corrupt;
    return w->dec;
}

/* Under lock: wait for a change, saying the run needs packets meanwhile. */
static void wait_starving(struct Chunks *const c) {
    c->starving++;
    pthread_cond_broadcast(&c->cond);
    pthread_cond_wait(&c->cond, &c->lock);
    c->starving--;
}

/* Decode run r to its end, or until it is given up, cancelled or closed. */
static void run_decode(struct Chunks *const c, Worker *const w, Run *const r) {
    Decode dd = {.c = c, .w = w, .r = r, .tail_key = -1};
    pthread_mutex_lock(&c->lock);
    const Chunk first = c->ch[r->first];
    pthread_mutex_unlock(&c->lock);
    dd.lo = dd.hi = first.start;
    dd.lead_hi = r->first ? first.lead_end : first.start + 1;
    dd.found = r->first == 0;
    dd.joining = !w->joined;
    dd.dec = r->first ? take_session(c, w, &first) : c->dec0;
    if (!dd.dec) {
        if (r->first)
            give_up(&dd);
        else
            set_error(&dd, ERR_SPLIT, AVERROR(ENOMEM), "cannot open a decoder");
    } else {
        r->start_hbf = dd.dec->has_b_frames;
    }
    int k = r->first, drain = 0;
    while (!dd.leave && !r->err) {
        const int got = fetch(&dd, k, dd.hi);
        if (got < 0) break;
        if (got) {
            dd.hi++;
            const int res = decode(&dd, w->pkt);
            av_packet_unref(w->pkt);
            if (res < 0) break;
            continue;
        }
        /* The end of chunk k: decode on through the next chunk, or stop. */
        pthread_mutex_lock(&c->lock);
        while (!c->stop && r->state == RUN_BUSY && c->nch <= k + 1 && !c->demux_done)
            wait_starving(c);
        if (c->stop || r->state != RUN_BUSY) {
            pthread_mutex_unlock(&c->lock);
            dd.leave = 1;
            break;
        }
        if (c->nch <= k + 1) { /* the end of the stream */
            const int err = c->demux_err;
            pthread_mutex_unlock(&c->lock);
            if (err)
                set_error(&dd, ERR_READ, err, c->demux_detail);
            else
                drain = 1;
            break;
        }
        /* A run that has started there shows soon whether it started right. */
        while (!c->stop && r->state == RUN_BUSY && c->ch[k + 1].run &&
               c->ch[k + 1].run->state == RUN_BUSY && !c->ch[k + 1].run->verdict)
            pthread_cond_wait(&c->cond, &c->lock);
        if (c->stop || r->state != RUN_BUSY) {
            pthread_mutex_unlock(&c->lock);
            dd.leave = 1;
            break;
        }
        Run *const s = c->ch[k + 1].run;
        if (!s || s->verdict != 1 || s->start_hbf != dd.dec->has_b_frames) {
            if (s) cancel_run(c, s);
            c->ch[k + 1].run = r;
            r->last = ++k;
            c->absorbed++;
            pthread_mutex_unlock(&c->lock);
            continue;
        }
        /* The next run started as the sequential decode: its keyframe and
         * leading pictures (H.264, HEVC) are decoded here, those kept. */
        if (c->codec == KEY_H264 || c->codec == KEY_HEVC) {
            while (!c->stop && c->ch[k + 1].lead_end < 0) wait_starving(c);
            dd.tail_key = c->ch[k + 1].start;
            dd.tail_hi = c->ch[k + 1].lead_end;
            c->tail_packets += dd.tail_hi - dd.tail_key;
        }
        pthread_mutex_unlock(&c->lock);
        for (int64_t t = dd.tail_key; t >= 0 && t < dd.tail_hi; t++) {
            pthread_mutex_lock(&c->lock);
            const int ok = !c->stop && av_packet_ref(w->pkt, pkt_at(c, t)->pkt) >= 0;
            pthread_mutex_unlock(&c->lock);
            const int res = ok ? decode(&dd, w->pkt) : -1;
            av_packet_unref(w->pkt);
            if (res < 0) {
                dd.leave |= !ok;
                break;
            }
        }
        drain = !dd.leave && !r->err;
        break;
    }
    if (drain && !dd.leave && !r->err && decode(&dd, NULL) >= 0 && !r->err && dd.tail_key >= 0 &&
        !dd.tail_seen)
        set_error(&dd, ERR_SPLIT, AVERROR_BUG, "the next chunk's keyframe did not come out");
    if (dd.joining) note_joined(&dd, 0.0);
    if (dd.dec) r->end_hbf = dd.dec->has_b_frames;
    /* Kept for the worker's next run, unless it failed. */
    if (dd.dec && dd.dec != c->dec0 && r->err) close_session(w);
    if (r->ticket) chunks_ticket_give();
    r->ticket = 0;
    pthread_mutex_lock(&c->lock);
    int linked = 0;
    for (int j = r->first; j <= r->last && j < c->nch; j++) linked |= c->ch[j].run == r;
    if (linked) {
        /* Done, or stopped by chunks_close (which frees it). */
        if (r->state == RUN_BUSY && dd.leave && !r->err) r->err = AVERROR_EXIT;
        r->state = RUN_DONE;
    } else {
        chunks_free_queue(c, r); /* given up or cancelled: nobody else has it */
        free(r);
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

/*
 * Under lock: a run for the first chunk nobody decodes yet (read whole, not
 * given up, not too far ahead), NULL when closing. A worker whose session
 * has given no frame yet waits for run 0's first frame: sessions opened all
 * at once kept run 0, the scorer's first frames, waiting behind them.
 * Then NVDEC sessions open one at a time: the driver creates them one after
 * the other anyway, and the running decoders compete with one creation, not
 * with a queue of them. CPU sessions all at once: nothing serializes them.
 */
static Run *take_work(struct Chunks *const c, Worker *const w) {
    for (;;) {
        if (c->stop) return NULL;
        if (!w->joined && (!c->first_out || (c->plan.nvdec && c->opening))) {
            pthread_cond_wait(&c->cond, &c->lock);
            continue;
        }
        int j = -1;
        for (int k = c->cur; k < c->nch && k <= c->cur + c->ahead && c->ch[k].end >= 0; k++) {
            if (c->ch[k].run || c->ch[k].bad) continue;
            /* A session yet to open starts past the chunk a busy run reaches
             * next: that run decodes on into it instead of waiting for the open. */
            const Run *const before = k ? c->ch[k - 1].run : NULL;
            if (!w->joined && before && before->state == RUN_BUSY) continue;
            j = k;
            break;
        }
        if (j >= 0) {
            const int ticket = j != c->cur;
            if (!ticket || chunks_ticket_take()) {
                Run *const r = calloc(1, sizeof(*r));
                if (!r) {
                    if (ticket) chunks_ticket_give();
                    return NULL;
                }
                r->first = r->last = j;
                r->ticket = ticket;
                c->ch[j].run = r;
                c->runs++;
                c->opening += !w->joined;
                return r;
            }
            /* Other inputs hold every ticket: look again soon. */
            wait_a_little(c);
            continue;
        }
        pthread_cond_wait(&c->cond, &c->lock);
    }
}

void *chunks_worker_main(void *const arg) {
    Worker *const w = arg;
    struct Chunks *const c = w->c;
    Run *r = w->run;
    w->run = NULL;
    for (;;) {
        if (!r) {
            pthread_mutex_lock(&c->lock);
            r = take_work(c, w);
            pthread_mutex_unlock(&c->lock);
            if (!r) break;
        }
        run_decode(c, w, r);
        r = NULL;
    }
    close_session(w);
    return NULL;
}
