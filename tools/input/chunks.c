/*
 * psnrhvs: a compressed input split at keyframes into chunks that several
 * decoder sessions decode at once (docs/architecture.md, "Decoding in chunks").
 * Here: the packet reader and the input's side.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>

#include "input/chunks.h"
#include "input/chunks_int.h"
#include "input/ffmpeg.h"
#include "input/keyframes.h"
#include "msg.h"
#include "thread.h"

/* ---- the packet reader ---------------------------------------------------- */

static int grow_packets(struct Chunks *const c) {
    if ((size_t)(c->pk_count - c->pk_base) < c->pk_cap) return 0;
    const size_t cap = c->pk_cap ? 2 * c->pk_cap : 1024;
    Pkt *const pk = malloc(cap * sizeof(*pk));
    if (!pk) return -1;
    for (int64_t i = c->pk_base; i < c->pk_count; i++) pk[(size_t)i & (cap - 1)] = *pkt_at(c, i);
    free(c->pk);
    c->pk = pk;
    c->pk_cap = cap;
    return 0;
}

static Chunk *new_chunk(struct Chunks *const c) {
    if (c->nch == c->ch_cap) {
        const int cap = c->ch_cap ? 2 * c->ch_cap : 64;
        Chunk *const ch = realloc(c->ch, (size_t)cap * sizeof(*ch));
        if (!ch) return NULL;
        c->ch = ch;
        c->ch_cap = cap;
    }
    Chunk *const ch = &c->ch[c->nch++];
    memset(ch, 0, sizeof(*ch));
    ch->end = ch->lead_end = -1;
    return ch;
}

static void close_chunk(Chunk *const ch, const int64_t end) {
    ch->end = end;
    if (ch->lead_end < 0) ch->lead_end = end;
}

/* One packet read (under lock): the leading pictures of the chunk being read
 * and whether it starts the next chunk. */
static int add_packet(struct Chunks *const c, AVPacket *const own, const int64_t pts,
                      const KeyInfo *const ki) {
    if (grow_packets(c) < 0) return -1;
    const int64_t i = c->pk_count;
    *pkt_at(c, i) = (Pkt){own, pts, ki->leading};
    c->pk_count++;
    c->pk_bytes += (size_t)own->size;
    Chunk *const open = &c->ch[c->nch - 1];
    if (c->nch > 1 && i > open->start) {
        /* HEVC: by NAL type; H.264: by pts, before the keyframe's. */
        int lead = 0;
        if (c->codec == KEY_HEVC) lead = ki->leading;
        if (c->codec == KEY_H264 && open->open) lead = pts != AV_NOPTS_VALUE && pts < open->key_pts;
        if (open->lead_end < 0 && !lead)
            open->lead_end = i;
        else if (open->lead_end >= 0 && lead)
            open->bad = 1; /* after a trailing picture */
        /* Where pts are known they must agree: leading before the keyframe, the rest after. */
        if (open->key_pts != AV_NOPTS_VALUE && pts != AV_NOPTS_VALUE && open->open &&
            (lead ? pts >= open->key_pts : pts <= open->key_pts))
            open->bad = 1;
        if (c->codec == KEY_H264 && open->open && pts == AV_NOPTS_VALUE) open->bad = 1;
    }
    const int flagged = own->flags & (AV_PKT_FLAG_DISCARD | AV_PKT_FLAG_CORRUPT);
    const int usable = ki->kind != KEY_NONE && !flagged && i - open->start >= c->plan.min_chunk &&
                       (pts == AV_NOPTS_VALUE || (pts < TAG_BASE / 2 && pts > -TAG_BASE / 2)) &&
                       !(c->codec == KEY_H264 && ki->kind == KEY_OPEN && pts == AV_NOPTS_VALUE);
    if (!usable) return 0;
    close_chunk(open, i);
    Chunk *const ch = new_chunk(c);
    if (!ch) return -1;
    ch->start = i;
    ch->key_pts = pts;
    ch->open = ki->kind == KEY_OPEN;
    ch->x264_build = c->ks.x264_build;
    if (!ch->open || (c->codec != KEY_H264 && c->codec != KEY_HEVC)) ch->lead_end = i + 1;
    return 0;
}

/* Packets read and not consumed: at most this many chunks past the run
 * being read, unless a run waits for packets. */
static int read_enough(const struct Chunks *const c) {
    const Run *const r = c->cur < c->nch ? c->ch[c->cur].run : NULL;
    const int last = r ? r->last : c->cur;
    return !c->starving && (c->nch - 1 - last > c->ahead + 2 || c->pk_bytes > MAX_PKT_BYTES);
}

static void *reader_main(void *const arg) {
    struct Chunks *const c = arg;
    AVPacket *pkt = av_packet_alloc();
    for (;;) {
        pthread_mutex_lock(&c->lock);
        while (!c->stop && read_enough(c)) pthread_cond_wait(&c->cond, &c->lock);
        const int stop = c->stop;
        pthread_mutex_unlock(&c->lock);
        if (stop) break;
        int ret = pkt ? av_read_frame(c->fc, pkt) : AVERROR(ENOMEM);
        if (ret >= 0 && pkt->stream_index != c->stream) {
            av_packet_unref(pkt);
            continue;
        }
        AVPacket *own = NULL;
        KeyInfo ki = {KEY_NONE, 0};
        int64_t pts = AV_NOPTS_VALUE;
        if (ret >= 0) {
            keyscan_packet(&c->ks, pkt->data, (size_t)pkt->size, pkt->flags & AV_PKT_FLAG_KEY, &ki);
            if ((own = av_packet_alloc())) {
                av_packet_move_ref(own, pkt);
                pts = own->pts;
            } else {
                av_packet_unref(pkt);
                ret = AVERROR(ENOMEM);
            }
        }
        pthread_mutex_lock(&c->lock);
        if (ret >= 0) {
            own->pts = TAG_BASE + c->pk_count;
            if (add_packet(c, own, pts, &ki) < 0) {
                av_packet_free(&own);
                ret = AVERROR(ENOMEM);
            }
        }
        if (ret < 0) {
            if (ret != AVERROR_EOF) {
                c->demux_err = ret;
                char last[512];
                ffmpeg_last_error(last, sizeof(last));
                snprintf(c->demux_detail, sizeof(c->demux_detail), "%s%s%s%s", av_err2str(ret),
                         last[0] ? " (ffmpeg: " : "", last, last[0] ? ")" : "");
            }
            close_chunk(&c->ch[c->nch - 1], c->pk_count);
            c->demux_done = 1;
        }
        pthread_cond_broadcast(&c->cond);
        pthread_mutex_unlock(&c->lock);
        if (ret < 0) break;
    }
    av_packet_free(&pkt);
    return NULL;
}

/* ---- the input's side ----------------------------------------------------- */

static const char *decoder_kind(const Plan *const p) {
    return p->nvdec ? "NVDEC" : "CPU";
}

int chunks_open(Chunks **const out, AVFormatContext *const fc, const int stream,
                AVCodecContext *const dec, const int seekable, InputStream *const s) {
    *out = NULL;
    Plan plan;
    chunks_make_plan(&plan, fc, stream, dec, seekable, s->opt->decode_sessions);
    const int timing = s->opt->timing;
    if (plan.sessions <= 1) {
        if (timing)
            fprintf(cli_err(), "psnrhvs: decode plan: %s: one session (%s): %s\n", s->name,
                    decoder_kind(&plan), plan.why);
        return 0;
    }
    struct Chunks *const c = calloc(1, sizeof(*c));
    if (!c) {
        stream_error(s, "out of memory");
        return -1;
    }
    c->fc = fc;
    c->stream = stream;
    c->dec0 = dec;
    c->name = s->name;
    c->plan = plan;
    c->timing = timing;
    c->t_open = now_ms();
    c->ahead = 2 * plan.sessions;
    c->budget = chunks_frame_budget(&plan, s->opt->hw_device);
    const AVCodecParameters *const par = fc->streams[stream]->codecpar;
    c->codec = keyscan_codec(par->codec_id);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    pthread_mutex_init(&c->fpool.lock, NULL);
    c->fpool.format = -1;
    /* The sessions' options, taken before chunk 0's run decodes in dec. */
    int ok = (c->par = avcodec_parameters_alloc()) && avcodec_parameters_copy(c->par, par) >= 0 &&
             (c->tmpl = avcodec_alloc_context3(dec->codec)) &&
             (!dec->codec->priv_class || av_opt_copy(c->tmpl->priv_data, dec->priv_data) >= 0) &&
             keyscan_init(&c->ks, c->codec, par->extradata, (size_t)par->extradata_size) >= 0 &&
             new_chunk(c);
    if (ok) {
        AVCodecContext *const t = c->tmpl;
        t->pkt_timebase = dec->pkt_timebase;
        t->flags = dec->flags;
        t->flags2 = dec->flags2;
        t->err_recognition = dec->err_recognition;
        t->workaround_bugs = dec->workaround_bugs;
        t->strict_std_compliance = dec->strict_std_compliance;
        t->error_concealment = dec->error_concealment;
        t->skip_loop_filter = dec->skip_loop_filter;
        t->skip_idct = dec->skip_idct;
        t->skip_frame = dec->skip_frame;
        t->lowres = dec->lowres;
        t->apply_cropping = dec->apply_cropping;
        t->export_side_data = dec->export_side_data;
        t->extra_hw_frames = dec->extra_hw_frames;
        t->hwaccel_flags = dec->hwaccel_flags;
        t->thread_type = dec->thread_type;
        t->opaque = dec->opaque;
        t->get_format = dec->get_format;
        chunks_lock_get_format(dec, t);
        if (dec->hw_device_ctx) ok = (t->hw_device_ctx = av_buffer_ref(dec->hw_device_ctx)) != NULL;
    }
    /* Chunk 0 from the first packet, in dec. */
    Run *const r0 = ok ? calloc(1, sizeof(*r0)) : NULL;
    if (r0) {
        r0->verdict = 1;
        c->ch[0].run = r0;
        c->runs = 1;
        c->w[0].run = r0;
    }
    ok = r0 != NULL;
    chunks_tickets_reserve(2 * plan.sessions);
    for (int i = 0; ok && i < plan.sessions; i++) {
        Worker *const w = &c->w[i];
        w->c = c;
        ok = (w->pkt = av_packet_alloc()) && (w->frame = av_frame_alloc());
    }
    ok = ok && !cli_thread_start(&c->reader, reader_main, c);
    c->reader_started = ok;
    for (int i = 0; ok && i < plan.sessions; i++) {
        ok = !cli_thread_start(&c->w[i].th, chunks_worker_main, &c->w[i]);
        c->w[i].started = ok;
        c->nw = i + 1;
    }
    if (!ok) {
        Chunks *cc = c;
        chunks_close(&cc);
        stream_error(s, "out of memory or threads to decode %s in chunks", s->name);
        return -1;
    }
    if (timing)
        fprintf(cli_err(),
                "psnrhvs: decode plan: %s: up to %d sessions (%s%s), chunks at keyframes %d "
                "frames apart or more (%lld frames%s), frames buffered ahead up to %zu MB\n",
                s->name, plan.sessions, decoder_kind(&plan),
                plan.nvdec         ? ""
                : plan.threads > 1 ? ", frame threads"
                                   : ", one thread each",
                plan.min_chunk, plan.frames,
                plan.keyframes >= 0 ? ", keyframes counted in the index" : "", c->budget >> 20);
    *out = c;
    return 0;
}

/* The message of run r's error, frame numbers as the sequential decode's. */
static void report(const struct Chunks *const c, const Run *const r, InputStream *const s) {
    switch (r->err_kind) {
    case ERR_SEND:
        stream_error(s, "cannot decode %s after frame %u: %s", s->name, c->delivered, r->detail);
        break;
    case ERR_RECEIVE:
        stream_error(s, "cannot decode frame %u of %s: %s", c->delivered, s->name, r->detail);
        break;
    case ERR_READ:
        stream_error(s, "cannot read %s after frame %u: %s", s->name, c->delivered, r->detail);
        break;
    default:
        stream_error(s,
                     "cannot decode %s in chunks after frame %u: %s; "
                     "--decode-sessions 1 decodes it in one session",
                     s->name, c->delivered, r->detail);
        break;
    }
}

int chunks_receive(Chunks *const c, AVFrame *const frame, InputStream *const s) {
    pthread_mutex_lock(&c->lock);
    for (;;) {
        if (c->cur >= c->nch && c->demux_done) {
            pthread_mutex_unlock(&c->lock);
            return AVERROR_EOF;
        }
        Run *const r = c->cur < c->nch ? c->ch[c->cur].run : NULL;
        if (r && r->q_len) {
            Queued e = r->q[r->q_head];
            r->q_head = (r->q_head + 1) % r->q_cap;
            r->q_len--;
            c->buffered -= e.bytes;
            chunks_account(0, e.bytes);
            c->delivered++;
            if (!c->t_first) c->t_first = now_ms();
            pthread_cond_broadcast(&c->cond);
            pthread_mutex_unlock(&c->lock);
            av_frame_move_ref(frame, e.f);
            av_frame_free(&e.f);
            return 0;
        }
        if (!r && c->cur < c->nch && c->ch[c->cur].bad && c->ch[c->cur].end >= 0) {
            stream_error(s,
                         "cannot decode %s in chunks after frame %u: nobody decodes "
                         "its next chunk (a bug); --decode-sessions 1 decodes it "
                         "in one session",
                         s->name, c->delivered);
            pthread_mutex_unlock(&c->lock);
            return AVERROR_BUG;
        }
        if (r && r->state == RUN_DONE) {
            if (r->err) {
                report(c, r, s);
                pthread_mutex_unlock(&c->lock);
                return r->err;
            }
            const int next = r->last + 1;
            const Run *const nr = next < c->nch ? c->ch[next].run : NULL;
            /* The reorder depth there (H.264 without bitstream_restriction
             * grows it as it goes) must be the one the next run had. */
            if (nr && nr->found_hbf != r->end_hbf) {
                stream_error(s,
                             "cannot decode %s in chunks after frame %u: its reorder "
                             "depth is %d frames there, %d in a decoder started there "
                             "(an H.264 stream without bitstream_restriction); "
                             "--decode-sessions 1 decodes it in one session",
                             s->name, c->delivered, r->end_hbf, nr->found_hbf);
                pthread_mutex_unlock(&c->lock);
                return AVERROR_PATCHWELCOME;
            }
            for (int k = r->first; k <= r->last; k++) c->ch[k].run = NULL;
            chunks_free_queue(c, r);
            free(r);
            c->cur = next;
            /* Packets before the next run's are nobody's now. */
            const int64_t keep = next < c->nch ? c->ch[next].start : c->pk_count;
            for (; c->pk_base < keep; c->pk_base++) {
                Pkt *const p = pkt_at(c, c->pk_base);
                c->pk_bytes -= (size_t)p->pkt->size;
                av_packet_free(&p->pkt);
            }
            pthread_cond_broadcast(&c->cond);
            continue;
        }
        pthread_cond_wait(&c->cond, &c->lock);
    }
}

void chunks_close(Chunks **const cp) {
    struct Chunks *const c = *cp;
    if (!c) return;
    *cp = NULL;
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    if (c->reader_started) pthread_join(c->reader, NULL);
    for (int i = 0; i < c->nw; i++)
        if (c->w[i].started) pthread_join(c->w[i].th, NULL);
    if (c->timing) {
        char joins[MAX_SESSIONS * 12] = "";
        for (int i = 0, n = 0; i < c->joined && n >= 0 && (size_t)n < sizeof(joins); i++)
            n += snprintf(joins + n, sizeof(joins) - (size_t)n, " %.1f", c->join_ms[i]);
        fprintf(cli_err(),
                "psnrhvs: decode chunks: %s: %d chunks, %d runs (%d chunks decoded on by the run "
                "before, %d runs given up), %lld packets decoded twice (keyframes and leading "
                "pictures), %d decoders opened in %.1f ms (%d runs in one flushed), first frame "
                "%.1f ms after the plan (decoded at %.1f), %d of %d more sessions joined (their "
                "first frame) at%s ms, "
                "up to %.1f MB of frames buffered\n",
                c->name, c->nch, c->runs, c->absorbed, c->given_up, c->tail_packets,
                c->sessions_opened, c->open_ms, c->sessions_reused,
                c->t_first ? c->t_first - c->t_open : 0.0,
                c->t_decoded ? c->t_decoded - c->t_open : 0.0, c->joined, c->nw - 1,
                c->joined ? joins : " -", c->peak / 1048576.0);
    }
    /* Runs still a chunk's: done, not handed out. */
    for (int k = 0; k < c->nch; k++) {
        Run *const r = c->ch[k].run;
        if (!r) continue;
        for (int j = r->first; j <= r->last && j < c->nch; j++)
            if (c->ch[j].run == r) c->ch[j].run = NULL;
        chunks_free_queue(c, r);
        free(r);
    }
    for (int64_t i = c->pk_base; i < c->pk_count; i++) av_packet_free(&pkt_at(c, i)->pkt);
    for (int i = 0; i < MAX_SESSIONS; i++) {
        av_packet_free(&c->w[i].pkt);
        av_frame_free(&c->w[i].frame);
    }
    free(c->pk);
    free(c->ch);
    keyscan_free(&c->ks);
    avcodec_free_context(&c->tmpl);
    avcodec_parameters_free(&c->par);
    chunks_frame_pool_reset(&c->fpool); /* freed once the last frame is */
    av_buffer_unref(&c->surfaces);
    pthread_mutex_destroy(&c->fpool.lock);
    pthread_cond_destroy(&c->cond);
    pthread_mutex_destroy(&c->lock);
    free(c);
}
