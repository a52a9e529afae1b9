/*
 * psnrhvs: a compressed input split at keyframes into chunks that several
 * decoder sessions decode at once (input/chunks.h), on NVDEC or the CPU.
 *
 * One thread reads the packets in order, as the sequential decode does, so
 * nothing depends on a seek index (MP4, Matroska with or without cues, IVF,
 * Annex B all read the same way) and the packets are exactly the sequential
 * decode's, edit list flags (discard) included. Each packet's pts is
 * replaced by its number in decode order (TAG_BASE + n): decoders copy it to
 * the frame it produces, which names the packet of every frame.
 *
 * A chunk starts at a keyframe a fresh decoder decodes as the sequential one
 * does (input/keyframes.c) and at least min_chunk packets after the one
 * before. A run decodes one or more consecutive chunks in one decoder
 * session. The frames of the sequential decode between keyframe K(j) and
 * K(j+1), in output order, are the run's of chunk j:
 *  - a run that starts at K(j) in a fresh decoder drops what comes out before
 *    K(j)'s own frame: the leading pictures of K(j) (HEVC RASL/RADL; H.264
 *    open-GOP B-frames, known by their pts), which may refer to chunk j-1;
 *    anything else coming out first means the decoder did not start there
 *    as the sequential one does, and the chunk is given back (below);
 *  - the run before it, its state the sequential decoder's, decodes on into
 *    K(j) and its leading pictures (H.264 and HEVC), then drains, and keeps
 *    what comes out before K(j)'s frame: those leading pictures. Decoding
 *    K(j) there also does what an IDR does to the pictures before it.
 * When a run reaches the end of its chunk and the next one has no run yet,
 * or that run's start was not as above, or the decoder's reorder depth
 * (H.264 without bitstream_restriction grows it) differs from the one the
 * next run started with, it simply decodes on through the next chunk: the
 * sequential decode, nothing lost. A fresh session per run (never a flushed
 * one: FFmpeg's decoders keep some state across a flush) gets the options of
 * the input's decoder and x264's version seen before its chunk.
 *
 * Frames come out in chunk order from per-run queues; runs ahead of the one
 * being read wait once their frames pass a memory budget. Sessions are shared
 * by every input of the process (a ladder's renditions): runs ahead of an
 * input's current one take a ticket from one pool.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>

#include "input/chunks.h"
#include "input/ffmpeg.h"
#include "input/keyframes.h"
#include "msg.h"
#include "thread.h"

#define TAG_BASE      ((int64_t)1 << 62)
#define MAX_SESSIONS  64
#define MAX_PKT_BYTES ((size_t)512 << 20)
#define POLL_MS       5 ///< waits on other inputs look again this often

/* ---- the plan ----------------------------------------------------------- */

typedef struct Plan {
    int sessions;  ///< at most this many runs at once; 1: not split
    int threads;   ///< frame threads of a CPU session (NVDEC: 1)
    int min_chunk; ///< packets between two chunk starts, at least
    int nvdec;
    long long frames; ///< what the container says, -1 unknown
    int keyframes;    ///< chunks its index allows, -1 unknown
    char why[160];    ///< one session: the reason
} Plan;

static long env_long(const char *const name, const long dflt, const long lo, const long hi) {
    const char *const v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    const long x = strtol(v, &end, 10);
    if (*end || x < lo) return dflt;
    return x > hi ? hi : x;
}

static long cpu_count(void) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

/*
 * How many sessions (docs/cli.md, "Decoding in chunks"):
 *  - one by default, with FFmpeg's frame threads on the CPU, as before
 *    chunks: measured on the H200, more sessions did not pay (see below);
 *  - PSNRHVS_DECODE_SESSIONS=N asks for N, PSNRHVS_DECODE_THREADS for the
 *    frame threads of a CPU session (cores / N), PSNRHVS_DECODE_CHUNK for
 *    min_chunk.
 * One session regardless: a pipe (nothing is read ahead of what the pair
 * reader asks for), a codec not split, a file shorter than two chunks, an
 * index with fewer than two keyframes min_chunk apart; no more sessions than
 * the index has such keyframes.
 */
static void make_plan(Plan *const p, const AVFormatContext *const fc, const int stream,
                      const AVCodecContext *const dec, const int seekable) {
    const AVStream *const st = fc->streams[stream];
    const long cores = cpu_count();
    memset(p, 0, sizeof(*p));
    p->nvdec = dec->hw_device_ctx != NULL;
    p->min_chunk = (int)env_long("PSNRHVS_DECODE_CHUNK", 48, 1, 1 << 20);
    /* One session unless asked: on the H200 (bench/RESULTS.md, run o) several
     * NVDEC sessions ran out of decoder surfaces, and several CPU sessions
     * were slower than one with frame threads (H.264) or about as fast (HEVC). */
    p->sessions = 1;
    const long forced = env_long("PSNRHVS_DECODE_SESSIONS", 0, 1, MAX_SESSIONS);
    if (forced) p->sessions = (int)forced;
    p->threads = p->nvdec
                     ? 1
                     : (int)env_long("PSNRHVS_DECODE_THREADS",
                                     cores / p->sessions > 1 ? cores / p->sessions : 1, 1, 256);
    p->frames = st->nb_frames > 0 ? st->nb_frames : -1;
    if (p->frames < 0 && st->avg_frame_rate.num > 0 && st->avg_frame_rate.den > 0) {
        const double secs = st->duration != AV_NOPTS_VALUE   ? st->duration * av_q2d(st->time_base)
                            : fc->duration != AV_NOPTS_VALUE ? fc->duration / (double)AV_TIME_BASE
                                                             : -1;
        if (secs > 0) p->frames = (long long)(secs * av_q2d(st->avg_frame_rate) + 0.5);
    }
    /* A whole-sample index (MP4): the keyframes min_chunk apart. */
    p->keyframes = -1;
    const int entries = avformat_index_get_entries_count(st);
    if (p->frames > 0 && entries >= p->frames * 9 / 10) {
        int n = 0, last = -p->min_chunk;
        for (int i = 0; i < entries; i++) {
            const AVIndexEntry *const e = avformat_index_get_entry((AVStream *)st, i);
            if (e && (e->flags & AVINDEX_KEYFRAME) && i - last >= p->min_chunk) n++, last = i;
        }
        p->keyframes = n;
    }
    const char *const cname = avcodec_get_name(st->codecpar->codec_id);
    if (!seekable)
        snprintf(p->why, sizeof(p->why), "a pipe is read as it comes");
    else if (p->sessions == 1)
        snprintf(p->why, sizeof(p->why), "%s",
                 forced ? "PSNRHVS_DECODE_SESSIONS=1"
                        : "the default; PSNRHVS_DECODE_SESSIONS=N asks for N");
    else if (keyscan_codec(st->codecpar->codec_id) == KEY_OTHER)
        snprintf(p->why, sizeof(p->why), "%s is not split into chunks", cname);
    else if (p->frames >= 0 && p->frames < 2LL * p->min_chunk)
        snprintf(p->why, sizeof(p->why), "%lld frames, shorter than two chunks of %d", p->frames,
                 p->min_chunk);
    else if (p->keyframes >= 0 && p->keyframes < 2)
        snprintf(p->why, sizeof(p->why), "its index has no two keyframes %d frames apart",
                 p->min_chunk);
    if (p->why[0]) {
        p->sessions = 1;
        return;
    }
    if (p->keyframes > 0 && p->keyframes < p->sessions) p->sessions = p->keyframes;
}

/* ---- sessions shared by the process: tickets for runs ahead --------------- */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static int pool_size, pool_used;

static int ticket_take(void) {
    pthread_mutex_lock(&pool_lock);
    const int ok = pool_used < pool_size;
    if (ok) pool_used++;
    pthread_mutex_unlock(&pool_lock);
    return ok;
}

static void ticket_give(void) {
    pthread_mutex_lock(&pool_lock);
    pool_used--;
    pthread_mutex_unlock(&pool_lock);
}

/* Frames queued by every input's runs (a ladder's too), under pool_lock:
 * the memory budget is the process's, not each input's. */
static size_t all_buffered;

static void account(const size_t add, const size_t sub) {
    pthread_mutex_lock(&pool_lock);
    all_buffered = all_buffered + add - sub;
    pthread_mutex_unlock(&pool_lock);
}

static int over_budget(const size_t budget) {
    pthread_mutex_lock(&pool_lock);
    const int over = all_buffered > budget;
    pthread_mutex_unlock(&pool_lock);
    return over;
}

/* ffmpeg.c's get_format (--hwaccel) notes a fallback in its input: one
 * session at a time. */
static enum AVPixelFormat (*inner_get_format)(AVCodecContext *, const enum AVPixelFormat *);
static pthread_mutex_t format_lock = PTHREAD_MUTEX_INITIALIZER;

static enum AVPixelFormat locked_get_format(AVCodecContext *const ctx,
                                            const enum AVPixelFormat *const fmts) {
    pthread_mutex_lock(&format_lock);
    const enum AVPixelFormat f = inner_get_format(ctx, fmts);
    pthread_mutex_unlock(&format_lock);
    return f;
}

/* ---- the sessions' opaque: their input, and whether their messages count -- */

struct FramePool;

typedef struct Session {
    void *input; ///< the input decoder's opaque (ffmpeg.c's input)
    int muted;   ///< before the run's first frame: pictures the run before decodes
    struct FramePool *pool;
    struct Session *next;
} Session;

static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;
static Session *sessions;

static void session_add(Session *const s) {
    pthread_mutex_lock(&session_lock);
    s->next = sessions;
    sessions = s;
    pthread_mutex_unlock(&session_lock);
}

static void session_remove(Session *const s) {
    pthread_mutex_lock(&session_lock);
    for (Session **p = &sessions; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    pthread_mutex_unlock(&session_lock);
}

static void session_unmute(Session *const s) {
    pthread_mutex_lock(&session_lock);
    s->muted = 0;
    pthread_mutex_unlock(&session_lock);
}

void *chunks_input(void *const opaque, int *const muted) {
    void *input = opaque;
    int mute = 0;
    pthread_mutex_lock(&session_lock);
    for (const Session *s = sessions; s; s = s->next)
        if (s == opaque) {
            input = s->input;
            mute = s->muted;
            break;
        }
    pthread_mutex_unlock(&session_lock);
    if (muted) *muted = mute;
    return input;
}

/* ---- frame buffers shared by an input's CPU sessions ------------------------ */

/*
 * Every run has a fresh decoder, whose own buffer pool would allocate (and
 * zero, and fault in) a new buffer for each frame it queues, and free them
 * all when its frames are scored: hundreds of thousands of page faults a
 * 4K clip. The sessions of an input take their buffers from one pool
 * instead, laid out as libavcodec's default get_buffer2 lays them out
 * (avcodec_align_dimensions2, linesizes aligned for every plane, 16 +
 * 64 bytes of slack). Only the samples' place in memory differs.
 */
typedef struct FramePool {
    pthread_mutex_t lock;
    int format, width, height;
    int linesize[4];
    AVBufferPool *pools[4];
} FramePool;

static void frame_pool_reset(FramePool *const fp) {
    for (int i = 0; i < 4; i++) av_buffer_pool_uninit(&fp->pools[i]);
    fp->format = -1;
}

static int frame_pool_setup(FramePool *const fp, AVCodecContext *const avctx,
                            const AVFrame *const f) {
    int w = f->width, h = f->height, align[AV_NUM_DATA_POINTERS], linesize[4];
    avcodec_align_dimensions2(avctx, &w, &h, align);
    int unaligned;
    do {
        if (av_image_fill_linesizes(linesize, f->format, w) < 0) return -1;
        w += w & ~(w - 1); /* the next power of two a divisor of w, as libavcodec does */
        unaligned = 0;
        for (int i = 0; i < 4; i++) unaligned |= align[i] ? linesize[i] % align[i] : 0;
    } while (unaligned);
    size_t size[4];
    ptrdiff_t lines[4];
    for (int i = 0; i < 4; i++) lines[i] = linesize[i];
    if (av_image_fill_plane_sizes(size, f->format, h, lines) < 0) return -1;
    frame_pool_reset(fp);
    for (int p = 0; p < 4; p++) {
        fp->linesize[p] = linesize[p];
        if (size[p] && !(fp->pools[p] = av_buffer_pool_init(size[p] + 16 + 64, av_buffer_allocz)))
            return frame_pool_reset(fp), -1;
    }
    fp->format = f->format;
    fp->width = f->width;
    fp->height = f->height;
    return 0;
}

static int pooled_get_buffer(AVCodecContext *const avctx, AVFrame *const f, const int flags) {
    const Session *const sess = avctx->opaque;
    FramePool *const fp = sess ? sess->pool : NULL;
    const AVPixFmtDescriptor *const desc = av_pix_fmt_desc_get(f->format);
    if (!fp || avctx->hw_frames_ctx || !desc ||
        (desc->flags & (AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL)) ||
        !(avctx->codec->capabilities & AV_CODEC_CAP_DR1))
        return avcodec_default_get_buffer2(avctx, f, flags);
    pthread_mutex_lock(&fp->lock);
    int ok = (fp->format == f->format && fp->width == f->width && fp->height == f->height) ||
             frame_pool_setup(fp, avctx, f) >= 0;
    for (int i = 0; ok && i < 4 && fp->pools[i]; i++) {
        ok = (f->buf[i] = av_buffer_pool_get(fp->pools[i])) != NULL;
        if (ok) {
            f->data[i] = f->buf[i]->data;
            f->linesize[i] = fp->linesize[i];
        }
    }
    pthread_mutex_unlock(&fp->lock);
    if (!ok) {
        for (int i = 0; i < 4; i++) av_buffer_unref(&f->buf[i]);
        return AVERROR(ENOMEM);
    }
    f->extended_data = f->data;
    return 0;
}

/* ---- state ---------------------------------------------------------------- */

typedef struct Pkt {
    AVPacket *pkt; ///< pts: TAG_BASE + its number
    int64_t pts;   ///< as demuxed
    int leading;   ///< HEVC RASL/RADL
} Pkt;

typedef struct Run Run;

typedef struct Chunk {
    int64_t start, end; ///< packets [start, end); end -1 while the chunk is being read
    int64_t lead_end;   ///< the keyframe's leading pictures are [start + 1, lead_end); -1 unknown
    int64_t key_pts;    ///< the keyframe's pts as demuxed
    int open;           ///< KEY_OPEN: leading pictures may follow
    int x264_build;     ///< x264's version seen up to here
    int bad;  ///< a fresh decoder does not start here as the sequential one: never a run's first
    Run *run; ///< decoding it, NULL: none yet
} Chunk;

typedef struct Queued {
    AVFrame *f;
    size_t bytes;
} Queued;

enum { RUN_BUSY, RUN_DONE, RUN_CANCELLED };
enum { ERR_SEND = 1, ERR_RECEIVE, ERR_READ, ERR_SPLIT };

struct Run {
    int first, last; ///< chunks
    int state;
    int verdict; ///< 1: its first chunk's keyframe came out first (always for chunk 0), -1 not, 0
                 ///< not yet
    int start_hbf, found_hbf, end_hbf; ///< has_b_frames (reorder depth): open, first frame, end
    int ticket;
    Queued *q;
    int q_head, q_len, q_cap;
    int err; ///< an AVERROR after its frames
    int err_kind;
    char detail[640];
};

typedef struct Worker {
    struct Chunks *c;
    pthread_t th;
    int started;
    Run *run; ///< worker 0: chunk 0's run, in the input's own decoder
    AVPacket *pkt;
    AVFrame *frame;
} Worker;

struct Chunks {
    pthread_mutex_t lock;
    pthread_cond_t cond; ///< any change; waiters check their condition again
    AVFormatContext *fc;
    int stream;
    AVCodecContext *dec0; ///< the input's decoder: chunk 0's run
    AVCodecContext *tmpl; ///< its options, for the sessions
    AVCodecParameters *par;
    const char *name;
    Plan plan;
    enum KeyCodec codec;
    KeyScan ks; ///< the reader thread's

    Pkt *pk; ///< a ring: packets [pk_base, pk_count)
    size_t pk_cap, pk_bytes;
    int64_t pk_base, pk_count;
    Chunk *ch;
    int nch, ch_cap;
    int demux_done, demux_err;
    char demux_detail[600];
    int starving; ///< runs waiting for packets: the reader does not pause

    int cur; ///< the chunk being handed out: its run's first
    unsigned delivered;
    size_t buffered, budget, peak;
    int stop;
    int ahead;       ///< chunks a run may start ahead of cur
    FramePool fpool; ///< the CPU sessions' frame buffers

    pthread_t reader;
    int reader_started;
    Worker w[MAX_SESSIONS];
    int nw;

    int timing;
    double t_open, t_first, open_ms;
    int runs, absorbed, given_up, sessions_opened;
    long long tail_packets;
};

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Under lock: wait for a change, or POLL_MS for one elsewhere. */
static void wait_a_little(struct Chunks *const c) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += POLL_MS * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&c->cond, &c->lock, &ts);
}

static Pkt *pkt_at(const struct Chunks *const c, const int64_t i) {
    return &c->pk[(size_t)i & (c->pk_cap - 1)];
}

static size_t frame_bytes(const AVFrame *const f) {
    enum AVPixelFormat fmt = f->format;
    if (f->hw_frames_ctx)
        fmt = ((const AVHWFramesContext *)(const void *)f->hw_frames_ctx->data)->sw_format;
    const int n = av_image_get_buffer_size(fmt, f->width, f->height, 1);
    return n > 0 ? (size_t)n : 1;
}

/* ---- the memory budget for frames of runs ahead ---------------------------- */

/* A GPU's memory, from the driver FFmpeg opened (no CUDA headers here). */
static size_t gpu_memory(const int device) {
    void *const lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return 0;
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(lib, "cuInit");
    int (*get)(int *, int) = (int (*)(int *, int))dlsym(lib, "cuDeviceGet");
    int (*total)(size_t *, int) = (int (*)(size_t *, int))dlsym(lib, "cuDeviceTotalMem_v2");
    size_t bytes = 0;
    int dev = 0;
    if (!init || !get || !total || init(0) || get(&dev, device) || total(&bytes, dev)) bytes = 0;
    dlclose(lib);
    return bytes;
}

/* An eighth of the memory the frames live in (GPU or host), 16 GiB at most,
 * for the frames every input queues; PSNRHVS_DECODE_BUFFER_MB sets it. */
static size_t frame_budget(const Plan *const p, const int device) {
    const long mb = env_long("PSNRHVS_DECODE_BUFFER_MB", 0, 1, 1L << 30);
    if (mb) return (size_t)mb << 20;
    size_t total = p->nvdec ? gpu_memory(device) : 0;
    if (!p->nvdec) {
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0) total = (size_t)pages * (size_t)page;
    }
    size_t b = total ? total / 8 : (size_t)4 << 30;
    if (b > (size_t)16 << 30) b = (size_t)16 << 30;
    return b;
}

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
                psnrhvs_ffmpeg_last_error(last, sizeof(last));
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

/* ---- runs ----------------------------------------------------------------- */

static void free_queue(struct Chunks *const c, Run *const r) {
    for (; r->q_len; r->q_len--) {
        Queued *const e = &r->q[r->q_head];
        c->buffered -= e->bytes;
        account(0, e->bytes);
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
        free_queue(c, r); /* its worker has left it */
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
    int leave;    ///< cancelled or closing
    Session sess; ///< the decoder's opaque
} Decode;

static void set_error(Decode *const dd, const int kind, const int err, const char *const what) {
    char last[256];
    psnrhvs_ffmpeg_last_error(last, sizeof(last));
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
            session_unmute(&dd->sess);
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
    const size_t bytes = frame_bytes(q);
    pthread_mutex_lock(&c->lock);
    /* Runs ahead wait while the frames queued pass the budget; other
     * inputs' frames are freed without a word to this one: look again soon. */
    while (!c->stop && r->state == RUN_BUSY && c->cur < c->nch && c->ch[c->cur].run != r &&
           (c->buffered > c->budget || over_budget(c->budget))) {
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
    account(bytes, 0);
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
        if (take_frame(dd, dd->w->frame) < 0) return -1;
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

static AVCodecContext *open_session(struct Chunks *const c, const Chunk *const first,
                                    Session *const sess) {
    const double t0 = now_ms();
    AVCodecContext *const d = avcodec_alloc_context3(c->tmpl->codec);
    if (!d) return NULL;
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
        session_add(sess);
        d->opaque = sess;
        d->get_format = t->get_format;
        if (!t->hw_device_ctx) {
            sess->pool = &c->fpool;
            d->get_buffer2 = pooled_get_buffer;
        }
        if (t->hw_device_ctx) ok = (d->hw_device_ctx = av_buffer_ref(t->hw_device_ctx)) != NULL;
        if (c->codec == KEY_H264 && first->x264_build >= 0)
            av_dict_set_int(&opts, "x264_build", first->x264_build, 0);
        /* From a recovery point, FFmpeg's H.264 decoder marks the pictures
         * decoded before that keyframe is output as not recovered, and drops
         * those it drains (the sequential decoder, recovered long before,
         * outputs them): output them, as the sequential decoder does. What
         * comes before the keyframe is dropped anyway. */
        if (c->codec == KEY_H264 && first->open) d->flags |= AV_CODEC_FLAG_OUTPUT_CORRUPT;
    }
    if (ok) ok = avcodec_open2(d, c->tmpl->codec, &opts) >= 0;
    av_dict_free(&opts);
    AVCodecContext *dec = d;
    if (!ok) {
        avcodec_free_context(&dec);
        session_remove(sess);
    }
    pthread_mutex_lock(&c->lock);
    c->sessions_opened++;
    c->open_ms += now_ms() - t0;
    pthread_mutex_unlock(&c->lock);
    return dec;
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
    dd.dec = r->first ? open_session(c, &first, &dd.sess) : c->dec0;
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
    if (dd.dec) r->end_hbf = dd.dec->has_b_frames;
    if (dd.dec && dd.dec != c->dec0) {
        avcodec_free_context(&dd.dec);
        session_remove(&dd.sess);
    }
    if (r->ticket) ticket_give();
    r->ticket = 0;
    pthread_mutex_lock(&c->lock);
    int linked = 0;
    for (int j = r->first; j <= r->last && j < c->nch; j++) linked |= c->ch[j].run == r;
    if (linked) {
        /* Done, or stopped by chunks_close (which frees it). */
        if (r->state == RUN_BUSY && dd.leave && !r->err) r->err = AVERROR_EXIT;
        r->state = RUN_DONE;
    } else {
        free_queue(c, r); /* given up or cancelled: nobody else has it */
        free(r);
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

/* Under lock: a run for the first chunk nobody decodes yet (read whole, not
 * given up, not too far ahead), NULL when closing. */
static Run *take_work(struct Chunks *const c) {
    for (;;) {
        if (c->stop) return NULL;
        int j = -1;
        for (int k = c->cur; k < c->nch && k <= c->cur + c->ahead && c->ch[k].end >= 0; k++)
            if (!c->ch[k].run && !c->ch[k].bad) {
                j = k;
                break;
            }
        if (j >= 0) {
            const int ticket = j != c->cur;
            if (!ticket || ticket_take()) {
                Run *const r = calloc(1, sizeof(*r));
                if (!r) {
                    if (ticket) ticket_give();
                    return NULL;
                }
                r->first = r->last = j;
                r->ticket = ticket;
                c->ch[j].run = r;
                c->runs++;
                return r;
            }
            /* Other inputs hold every ticket: look again soon. */
            wait_a_little(c);
            continue;
        }
        pthread_cond_wait(&c->cond, &c->lock);
    }
}

static void *worker_main(void *const arg) {
    Worker *const w = arg;
    struct Chunks *const c = w->c;
    Run *r = w->run;
    w->run = NULL;
    for (;;) {
        if (!r) {
            pthread_mutex_lock(&c->lock);
            r = take_work(c);
            pthread_mutex_unlock(&c->lock);
            if (!r) break;
        }
        run_decode(c, w, r);
        r = NULL;
    }
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
    make_plan(&plan, fc, stream, dec, seekable);
    const int timing = getenv("PSNRHVS_TIMING") != NULL;
    if (plan.sessions <= 1) {
        if (timing)
            fprintf(cli_err(), "psnrhvs: decode plan: %s: one session (%s): %s\n", s->name,
                    decoder_kind(&plan), plan.why);
        return 0;
    }
    struct Chunks *const c = calloc(1, sizeof(*c));
    if (!c) {
        psnrhvs_stream_error(s, "out of memory");
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
    c->budget = frame_budget(&plan, s->opt->hw_device);
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
        if (dec->get_format != avcodec_default_get_format) {
            pthread_mutex_lock(&format_lock);
            if (!inner_get_format) inner_get_format = dec->get_format;
            pthread_mutex_unlock(&format_lock);
            if (inner_get_format == dec->get_format) {
                t->get_format = locked_get_format;
                if (dec->thread_count == 1) dec->get_format = locked_get_format;
            }
        }
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
    pthread_mutex_lock(&pool_lock);
    if (pool_size < 2 * plan.sessions) pool_size = 2 * plan.sessions;
    pthread_mutex_unlock(&pool_lock);
    for (int i = 0; ok && i < plan.sessions; i++) {
        Worker *const w = &c->w[i];
        w->c = c;
        ok = (w->pkt = av_packet_alloc()) && (w->frame = av_frame_alloc());
    }
    ok = ok && !cli_thread_start(&c->reader, reader_main, c);
    c->reader_started = ok;
    for (int i = 0; ok && i < plan.sessions; i++) {
        ok = !cli_thread_start(&c->w[i].th, worker_main, &c->w[i]);
        c->w[i].started = ok;
        c->nw = i + 1;
    }
    if (!ok) {
        Chunks *cc = c;
        chunks_close(&cc);
        psnrhvs_stream_error(s, "out of memory or threads to decode %s in chunks", s->name);
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
        psnrhvs_stream_error(s, "cannot decode %s after frame %u: %s", s->name, c->delivered,
                             r->detail);
        break;
    case ERR_RECEIVE:
        psnrhvs_stream_error(s, "cannot decode frame %u of %s: %s", c->delivered, s->name,
                             r->detail);
        break;
    case ERR_READ:
        psnrhvs_stream_error(s, "cannot read %s after frame %u: %s", s->name, c->delivered,
                             r->detail);
        break;
    default:
        psnrhvs_stream_error(s,
                             "cannot decode %s in chunks after frame %u: %s; "
                             "PSNRHVS_DECODE_SESSIONS=1 decodes it in one session",
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
            account(0, e.bytes);
            c->delivered++;
            if (!c->t_first) c->t_first = now_ms();
            pthread_cond_broadcast(&c->cond);
            pthread_mutex_unlock(&c->lock);
            av_frame_move_ref(frame, e.f);
            av_frame_free(&e.f);
            return 0;
        }
        if (!r && c->cur < c->nch && c->ch[c->cur].bad && c->ch[c->cur].end >= 0) {
            psnrhvs_stream_error(s,
                                 "cannot decode %s in chunks after frame %u: nobody decodes "
                                 "its next chunk (a bug); PSNRHVS_DECODE_SESSIONS=1 decodes it "
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
                psnrhvs_stream_error(s,
                                     "cannot decode %s in chunks after frame %u: its reorder "
                                     "depth is %d frames there, %d in a decoder started there "
                                     "(an H.264 stream without bitstream_restriction); "
                                     "PSNRHVS_DECODE_SESSIONS=1 decodes it in one session",
                                     s->name, c->delivered, r->end_hbf, nr->found_hbf);
                pthread_mutex_unlock(&c->lock);
                return AVERROR_PATCHWELCOME;
            }
            for (int k = r->first; k <= r->last; k++) c->ch[k].run = NULL;
            free_queue(c, r);
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
    if (c->timing)
        fprintf(cli_err(),
                "psnrhvs: decode chunks: %s: %d chunks, %d runs (%d chunks decoded on by the run "
                "before, %d runs given up), %lld packets decoded twice (keyframes and leading "
                "pictures), %d decoders opened in %.1f ms, first frame %.1f ms after the plan, up "
                "to %.1f MB of frames buffered\n",
                c->name, c->nch, c->runs, c->absorbed, c->given_up, c->tail_packets,
                c->sessions_opened, c->open_ms, c->t_first ? c->t_first - c->t_open : 0.0,
                c->peak / 1048576.0);
    /* Runs still a chunk's: done, not handed out. */
    for (int k = 0; k < c->nch; k++) {
        Run *const r = c->ch[k].run;
        if (!r) continue;
        for (int j = r->first; j <= r->last && j < c->nch; j++)
            if (c->ch[j].run == r) c->ch[j].run = NULL;
        free_queue(c, r);
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
    frame_pool_reset(&c->fpool); /* freed once the last frame is */
    pthread_mutex_destroy(&c->fpool.lock);
    pthread_cond_destroy(&c->cond);
    pthread_mutex_destroy(&c->lock);
    free(c);
}
