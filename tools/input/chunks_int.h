/*
 * psnrhvs: FFmpeg builds only: decoding in keyframe chunks, inside: the
 * state its files share and what one calls in another. chunks.c reads the
 * packets and hands the frames out, chunks_run.c decodes the runs,
 * chunks_plan.c decides how an input is decoded, chunks_session.c holds what
 * the decoder sessions share.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_CHUNKS_INT_H
#define PSNRHVS_TOOLS_INPUT_CHUNKS_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "clock.h"
#include "input/chunks.h"
#include "input/keyframes.h"

#define TAG_BASE      ((int64_t)1 << 62)
#define MAX_SESSIONS  INPUT_MAX_DECODE_SESSIONS
#define MAX_PKT_BYTES ((size_t)512 << 20)
#define POLL_MS       5 ///< waits on other inputs look again this often

typedef struct Plan {
    int sessions;  ///< at most this many runs at once; 1: not split
    int threads;   ///< frame threads of a CPU session (NVDEC: 1)
    int min_chunk; ///< packets between two chunk starts, at least
    int nvdec;
    long long frames; ///< what the container says, -1 unknown
    int keyframes;    ///< chunks its index allows, -1 unknown
    char why[160];    ///< one session: the reason
} Plan;

/* The frame buffers of an input's CPU sessions (chunks_session.c says why). */
typedef struct FramePool {
    pthread_mutex_t lock;
    int format, width, height;
    int linesize[4];
    AVBufferPool *pools[4];
} FramePool;

typedef struct Session {
    void *input; ///< the input decoder's opaque (ffmpeg.c's input)
    int muted;   ///< before the run's first frame: pictures the run before decodes
    struct FramePool *pool;
    struct Session *next;
} Session;

/* ---- the state ---- */

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
    Run *run;   ///< worker 0: chunk 0's run, in the input's own decoder
    int joined; ///< a session of its gave a frame (worker 0: run 0 did)
    AVPacket *pkt;
    AVFrame *frame;
    /* Its session, flushed between runs: opening and closing one for every
     * chunk cost NVDEC more than the chunk's decoding. */
    AVCodecContext *dec; ///< NULL: none open
    Session sess;        ///< dec's opaque
    int x264_build;      ///< dec's option (H.264)
    int corrupt;         ///< dec outputs pictures before a recovery point (H.264)
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
    int ahead;             ///< chunks a run may start ahead of cur
    FramePool fpool;       ///< the CPU sessions' frame buffers
    AVBufferRef *surfaces; ///< NVDEC: GPU frames that queued frames are copied to

    pthread_t reader;
    int reader_started;
    Worker w[MAX_SESSIONS];
    int nw;

    int first_out; ///< run 0 gave a frame or ended: the other workers may open sessions
    int opening;   ///< workers past that gate whose session gave no frame yet

    int timing;
    double t_open, t_first, open_ms;
    double t_decoded;             ///< run 0's first frame out, 0 none
    double join_ms[MAX_SESSIONS]; ///< each other worker's first frame out, after t_open
    int runs, absorbed, given_up, sessions_opened, sessions_reused, joined;
    long long tail_packets;
};

static inline double now_ms(void) {
    return cli_now() * 1e3;
}

static inline Pkt *pkt_at(const struct Chunks *const c, const int64_t i) {
    return &c->pk[(size_t)i & (c->pk_cap - 1)];
}

/* ---- chunks_plan.c ---- */

/** How the video stream `stream` of fc is decoded: sessions, threads, chunks. */
void chunks_make_plan(Plan *p, const AVFormatContext *fc, int stream, const AVCodecContext *dec,
                      int seekable, int sessions);

/** The bytes of frames that runs ahead may queue, every input's together. */
size_t chunks_frame_budget(const Plan *p, int device);

/** A symbol of libcuda.so.1 once FFmpeg has loaded it (never loaded here, no
 * CUDA headers either); NULL: not loaded, or no such symbol. */
void *chunks_cuda_sym(const char *name);

/* ---- chunks_session.c: what the decoder sessions share ---- */

/** At least n tickets for runs ahead, in the process's pool. */
void chunks_tickets_reserve(int n);
/** @return 1 with a ticket taken, 0 none free. */
int chunks_ticket_take(void);
void chunks_ticket_give(void);

/* The bytes of frames every input has queued, against the budget. */
void chunks_account(size_t add, size_t sub);
int chunks_over_budget(size_t budget);

/** dec's get_format (ffmpeg.c's, not the default) called by one session at a
 * time: t, the sessions' template, gets the locked one. */
void chunks_lock_get_format(AVCodecContext *dec, AVCodecContext *t);

/* A session's opaque, known to chunks_input() from add to remove. */
void chunks_session_add(Session *s);
void chunks_session_remove(Session *s);
void chunks_session_unmute(Session *s);
void chunks_session_mute(Session *s);

/** get_buffer2 of a CPU session: buffers from its input's FramePool. */
int chunks_pooled_get_buffer(AVCodecContext *avctx, AVFrame *f, int flags);
void chunks_frame_pool_reset(FramePool *fp);

/**
 * FFmpeg's NVDEC (before 6.1) hands out its decoder's surfaces, of which
 * there are a few: runs queueing them ahead leave the sessions none. A GPU
 * frame in *f is copied to a frame of the pool *own (made under lock to
 * match) and *f replaced by it. @return 0 (also for a frame in host memory)
 * or an AVERROR.
 */
int chunks_detach_surface(AVBufferRef **own, pthread_mutex_t *lock, AVFrame **f);

/* ---- chunks_run.c: the runs ---- */

/** A worker's thread (arg: its Worker): runs until chunks_close(). */
void *chunks_worker_main(void *arg);

/** Free r's queued frames, taking them off the counts. */
void chunks_free_queue(struct Chunks *c, Run *r);

#endif /* PSNRHVS_TOOLS_INPUT_CHUNKS_INT_H */
