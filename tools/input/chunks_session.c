/*
 * psnrhvs: decoding in keyframe chunks: what the decoder sessions share: the
 * process's tickets for runs ahead and count of frames queued (a ladder's
 * inputs draw on one pool), ffmpeg.c's get_format behind a lock, the
 * sessions' opaque, an input's pool of frame buffers, and NVDEC frames'
 * copies.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>

/* No CUDA headers here: the two types hwcontext_cuda.h needs are opaque. */
#define CUDA_VERSION 0
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>

#include "input/chunks_int.h"

/* ---- sessions shared by the process: tickets for runs ahead --------------- */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static int pool_size, pool_used;

void chunks_tickets_reserve(const int n) {
    pthread_mutex_lock(&pool_lock);
    if (pool_size < n) pool_size = n;
    pthread_mutex_unlock(&pool_lock);
}

int chunks_ticket_take(void) {
    pthread_mutex_lock(&pool_lock);
    const int ok = pool_used < pool_size;
    if (ok) pool_used++;
    pthread_mutex_unlock(&pool_lock);
    return ok;
}

void chunks_ticket_give(void) {
    pthread_mutex_lock(&pool_lock);
    pool_used--;
    pthread_mutex_unlock(&pool_lock);
}

/* Frames queued by every input's runs (a ladder's too), under pool_lock:
 * the memory budget is the process's, not each input's. */
static size_t all_buffered;

void chunks_account(const size_t add, const size_t sub) {
    pthread_mutex_lock(&pool_lock);
    all_buffered = all_buffered + add - sub;
    pthread_mutex_unlock(&pool_lock);
}

int chunks_over_budget(const size_t budget) {
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

void chunks_lock_get_format(AVCodecContext *const dec, AVCodecContext *const t) {
    if (dec->get_format != avcodec_default_get_format) {
        pthread_mutex_lock(&format_lock);
        if (!inner_get_format) inner_get_format = dec->get_format;
        pthread_mutex_unlock(&format_lock);
        if (inner_get_format == dec->get_format) {
            t->get_format = locked_get_format;
            if (dec->thread_count == 1) dec->get_format = locked_get_format;
        }
    }
}

/* ---- the sessions' opaque: their input, and whether their messages count -- */

static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;
static Session *sessions;

void chunks_session_add(Session *const s) {
    pthread_mutex_lock(&session_lock);
    s->next = sessions;
    sessions = s;
    pthread_mutex_unlock(&session_lock);
}

void chunks_session_remove(Session *const s) {
    pthread_mutex_lock(&session_lock);
    for (Session **p = &sessions; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    pthread_mutex_unlock(&session_lock);
}

void chunks_session_unmute(Session *const s) {
    pthread_mutex_lock(&session_lock);
    s->muted = 0;
    pthread_mutex_unlock(&session_lock);
}

void chunks_session_mute(Session *const s) {
    pthread_mutex_lock(&session_lock);
    s->muted = 1;
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
void chunks_frame_pool_reset(FramePool *const fp) {
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
    chunks_frame_pool_reset(fp);
    for (int p = 0; p < 4; p++) {
        fp->linesize[p] = linesize[p];
        if (size[p] && !(fp->pools[p] = av_buffer_pool_init(size[p] + 16 + 64, av_buffer_allocz)))
            return chunks_frame_pool_reset(fp), -1;
    }
    fp->format = f->format;
    fp->width = f->width;
    fp->height = f->height;
    return 0;
}

int chunks_pooled_get_buffer(AVCodecContext *const avctx, AVFrame *const f, const int flags) {
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

/* ---- NVDEC's surfaces ------------------------------------------------------ */

static struct {
    pthread_once_t once;
    int (*push)(CUcontext);
    int (*pop)(CUcontext *);
    int (*sync)(CUstream);
} cu = {PTHREAD_ONCE_INIT, NULL, NULL, NULL};

static void cu_load(void) {
    cu.push = (int (*)(CUcontext))chunks_cuda_sym("cuCtxPushCurrent_v2");
    cu.pop = (int (*)(CUcontext *))chunks_cuda_sym("cuCtxPopCurrent_v2");
    cu.sync = (int (*)(CUstream))chunks_cuda_sym("cuStreamSynchronize");
}

int chunks_detach_surface(AVBufferRef **const own, pthread_mutex_t *const lock, AVFrame **const f) {
    AVFrame *const src = *f;
    if (!src->hw_frames_ctx) return 0;
    const AVHWFramesContext *const hw =
        (const AVHWFramesContext *)(const void *)src->hw_frames_ctx->data;
    pthread_once(&cu.once, cu_load);
    if (!cu.push || !cu.pop || !cu.sync) return AVERROR(ENOSYS);
    pthread_mutex_lock(lock);
    const AVHWFramesContext *o =
        *own ? (const AVHWFramesContext *)(const void *)(*own)->data : NULL;
    if (!o || o->sw_format != hw->sw_format || o->width != hw->width || o->height != hw->height) {
        AVBufferRef *fresh = av_hwframe_ctx_alloc(hw->device_ref);
        AVHWFramesContext *const n = fresh ? (AVHWFramesContext *)(void *)fresh->data : NULL;
        if (n) {
            n->format = hw->format;
            n->sw_format = hw->sw_format;
            n->width = hw->width;
            n->height = hw->height;
        }
        if (!n || av_hwframe_ctx_init(fresh) < 0) {
            pthread_mutex_unlock(lock);
            av_buffer_unref(&fresh);
            return AVERROR(ENOMEM);
        }
        av_buffer_unref(own); /* frames of the old size hold their own reference */
        *own = fresh;
    }
    AVBufferRef *frames = av_buffer_ref(*own);
    pthread_mutex_unlock(lock);
    AVFrame *dst = frames ? av_frame_alloc() : NULL;
    int ret = dst ? av_hwframe_get_buffer(frames, dst, 0) : AVERROR(ENOMEM);
    av_buffer_unref(&frames);
    if (ret >= 0) {
        dst->width = src->width;
        dst->height = src->height;
        ret = av_hwframe_transfer_data(dst, src, 0);
    }
    if (ret >= 0) ret = av_frame_copy_props(dst, src);
    if (ret >= 0) {
        /* The copy is queued on FFmpeg's stream; the library's do not wait for it. */
        const AVCUDADeviceContext *const dev = hw->device_ctx->hwctx;
        CUcontext dummy;
        ret = cu.push(dev->cuda_ctx) ? AVERROR_EXTERNAL : 0;
        if (!ret) {
            if (cu.sync(dev->stream)) ret = AVERROR_EXTERNAL;
            cu.pop(&dummy);
        }
    }
    if (ret < 0) {
        av_frame_free(&dst);
        return ret;
    }
    av_frame_free(f);
    *f = dst;
    return 0;
}
