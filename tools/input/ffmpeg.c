/*
 * psnrhvs: compressed input through FFmpeg's libraries (libavformat demuxes,
 * libavcodec decodes), the Decoder of the input library: the pair
 * reader reads both sides at once on its threads, libavcodec's frame threads
 * decode each, and the scoring overlaps both.
 *
 * Frame-exact: every frame the decoder returns, in its order (presentation
 * order), none dropped or repeated: what ffmpeg -fps_mode passthrough
 * writes. Samples are used as they are: planar YUV 4:2:0/4:2:2/4:4:4 and gray
 * at 8, 10 or 12 bits (yuvj* too), semi-planar NV12/P010-style chroma
 * de-interleaved, samples stored in the high bits of their word (P010) moved
 * down without arithmetic (their low bits must be zero). Any other pixel
 * format is an error that names it.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>

#include "input/decode_choice.h"
#include "msg.h"
#include "input/ffmpeg.h"
#include "input/input.h"

#define IO_BUFFER_SIZE (1 << 16)

typedef struct FFmpegInput FFmpegInput;

struct FFmpegInput {
    AVFormatContext *fc;
    AVIOContext *pb;
    AVCodecContext *dec;
    AVBufferRef *hw_device;
    AVPacket *pkt;
    AVFrame *frame; ///< as decoded (a GPU frame with --hwaccel)
    AVFrame *host;  ///< a GPU frame copied to system memory
    const AVFrame *cur;
    int stream;
    int flushed;      ///< the end of the stream was sent to the decoder
    int pending;      ///< cur is the first frame, decoded by open
    int hw_fallback;  ///< NVDEC turned this stream down: decoded on the CPU
    char choice[160]; ///< why NVDEC or the CPU decodes it (--timing)
    int device_out;   ///< GPU frames are handed out as they are (read_device), not copied
    unsigned decoded;

    FrameUnpack u; ///< the format of the first frame; every frame must keep it
    const char *name;
    const InputStream *s; ///< its scored flag, at close
    int quiet, failed;
    int seekable;        ///< a regular file (else a pipe, read once)
    unsigned log_errors; ///< FFmpeg's error messages about this input (under log_lock)
    char first_error[512];
    char last_error[512]; ///< inputs open at once: each its own (under log_lock)
};

/* ---- FFmpeg's log ------------------------------------------------------ */

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_last[512];
static const FFmpegInput *log_last_input; ///< whose log_last is, NULL: unknown

static void log_callback(void *const avcl, const int level, const char *const fmt, va_list vl) {
    if (level > AV_LOG_ERROR) return;
    char msg[400];
    int prefix = 0;
    av_log_format_line2(avcl, level, fmt, vl, msg, sizeof(msg), &prefix);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == ' ')) msg[--n] = '\0';
    if (!n) return;
    /* "h264: ...", without FFmpeg's "@ 0x..." address */
    const AVClass *const cls = avcl ? *(const AVClass *const *)avcl : NULL;
    const char *const item = cls && cls->item_name ? cls->item_name(avcl) : NULL;
    /* The input it concerns: decoder contexts (frame threads' copies too) and
     * demuxers carry it as their opaque. */
    FFmpegInput *d = NULL;
    if (cls && !strcmp(cls->class_name, "AVCodecContext"))
        d = ((AVCodecContext *)avcl)->opaque;
    else if (cls && !strcmp(cls->class_name, "AVFormatContext"))
        d = ((AVFormatContext *)avcl)->opaque;
    pthread_mutex_lock(&log_lock);
    snprintf(log_last, sizeof(log_last), "%s%s%s", item ? item : "", item ? ": " : "", msg);
    /* Counted, not printed: a fatal one is in the error line, the others
     * (concealed damage) in one warning when the input is closed. */
    if (d && !d->log_errors++) snprintf(d->first_error, sizeof(d->first_error), "%s", log_last);
    if (d) snprintf(d->last_error, sizeof(d->last_error), "%s", log_last);
    log_last_input = d;
    pthread_mutex_unlock(&log_lock);
}

static void log_setup(void) {
    av_log_set_level(AV_LOG_ERROR);
    av_log_set_callback(log_callback);
}

void ffmpeg_log_init(void) {
    pthread_once(&log_once, log_setup);
}

void ffmpeg_last_error(char *const buf, const size_t size) {
    pthread_mutex_lock(&log_lock);
    snprintf(buf, size, "%s", log_last);
    pthread_mutex_unlock(&log_lock);
}

static void log_clear(void) {
    pthread_mutex_lock(&log_lock);
    log_last[0] = '\0';
    log_last_input = NULL;
    pthread_mutex_unlock(&log_lock);
}

/* " (ffmpeg: <its last error>)" or "": the last one, unless it is another
 * input's (inputs open at once): then d's own last. */
static const char *ffmpeg_detail(const FFmpegInput *const d, char *const buf, const size_t size) {
    char last[512];
    pthread_mutex_lock(&log_lock);
    const int other = log_last_input && log_last_input != d;
    snprintf(last, sizeof(last), "%s", other ? d->last_error : log_last);
    pthread_mutex_unlock(&log_lock);
    if (last[0])
        snprintf(buf, size, " (ffmpeg: %s)", last);
    else
        buf[0] = '\0';
    return buf;
}

/* ---- I/O: FFmpeg reads the InputStream (its look-ahead first) ---------- */

static int io_read(void *const opaque, uint8_t *const buf, const int size) {
    InputStream *const s = opaque;
    const size_t n = stream_read(s, buf, (size_t)size);
    if (n) return (int)n;
    return ferror(s->f) ? AVERROR(EIO) : AVERROR_EOF;
}

/* Regular files only: pipes are read once, front to back. */
static int64_t io_seek(void *const opaque, const int64_t offset, int whence) {
    InputStream *const s = opaque;
    struct stat st;
    if (whence & AVSEEK_SIZE) return fstat(fileno(s->f), &st) ? AVERROR(errno) : st.st_size;
    whence &= ~AVSEEK_FORCE;
    off_t target = (off_t)offset;
    if (whence == SEEK_CUR) {
        /* The logical position is behind the FILE's by what is left of the look-ahead. */
        const off_t pos = ftello(s->f);
        if (pos < 0) return AVERROR(errno);
        target += pos - (off_t)(s->peek_len - s->peek_pos);
        whence = SEEK_SET;
    }
    if (fseeko(s->f, target, whence)) return AVERROR(errno);
    s->peek_pos = s->peek_len; /* the look-ahead is behind us now */
    const off_t pos = ftello(s->f);
    return pos < 0 ? AVERROR(errno) : pos;
}

/* ---- the demuxer ------------------------------------------------------- */

static enum AVPixelFormat get_hw_format(AVCodecContext *const ctx,
                                        const enum AVPixelFormat *const fmts) {
    FFmpegInput *const d = ctx->opaque;
    for (const enum AVPixelFormat *p = fmts; *p != AV_PIX_FMT_NONE; p++)
        if (*p == AV_PIX_FMT_CUDA) return *p;
    /* Offered again without CUDA: NVDEC cannot decode this stream (its
     * profile, size or chroma format). The CPU decodes the same samples. */
    d->hw_fallback = 1;
    for (const enum AVPixelFormat *p = fmts; *p != AV_PIX_FMT_NONE; p++) {
        const AVPixFmtDescriptor *const desc = av_pix_fmt_desc_get(*p);
        if (desc && !(desc->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *p;
    }
    return AV_PIX_FMT_NONE;
}

/*
 * The CUDA device of GPU `device` for FFmpeg's decoders: one for every input
 * of the process, kept until it ends, so that a batch's jobs and a pair's
 * inputs make it once (FFmpeg loads the driver's functions and retains the
 * primary context for each one made).
 */
static int cuda_device(AVBufferRef **const out, const int device) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct {
        int device;
        AVBufferRef *ref;
    } made[16];
    static int num_made;
    static int failed = -1, failed_ret; /* a device that did not open is not tried again */
    pthread_mutex_lock(&lock);
    int ret = 0;
    AVBufferRef *dev = NULL;
    for (int i = 0; i < num_made && !dev; i++)
        if (made[i].device == device) dev = made[i].ref;
    if (!dev && device == failed) ret = failed_ret;
    if (!dev && !ret) {
        char name[16];
        snprintf(name, sizeof(name), "%d", device);
        /* The device's primary context, the one the CUDA runtime (the
         * library's CUDA backend) uses: the decoded frames' memory is then
         * valid there. */
        AVDictionary *opts = NULL;
        av_dict_set(&opts, "primary_ctx", "1", 0);
        ret = av_hwdevice_ctx_create(&dev, AV_HWDEVICE_TYPE_CUDA, name, opts, 0);
        av_dict_free(&opts);
        if (ret < 0) failed = device, failed_ret = ret;
        if (ret >= 0 && num_made < (int)(sizeof(made) / sizeof(made[0])))
            made[num_made].device = device, made[num_made++].ref = dev;
        else if (ret >= 0)
            *out = dev, dev = NULL; /* no room to keep it: this input's alone */
    }
    if (ret >= 0 && dev && !(*out = av_buffer_ref(dev))) ret = AVERROR(ENOMEM);
    pthread_mutex_unlock(&lock);
    return ret;
}

/* NVDEC for this input (decode_choice.c decides): -1 on error (reported in
 * s->err), 0 when set up or when it cannot be and the CPU decodes (with
 * --hwaccel cuda a warning says so where the codec has no CUDA decoder, an
 * error where the device does not open; auto falls back silently). */
static int setup_hwaccel(FFmpegInput *const d, const AVCodec *const codec, InputStream *const s) {
    const int asked = s->opt->hwaccel == INPUT_HWACCEL_CUDA;
    if (!decode_on_nvdec(d->fc, d->stream, s->opt, d->choice, sizeof(d->choice))) return 0;
    int found = 0;
    for (int i = 0;; i++) {
        const AVCodecHWConfig *const cfg = avcodec_get_hw_config(codec, i);
        if (!cfg) break;
        if (cfg->device_type == AV_HWDEVICE_TYPE_CUDA &&
            (cfg->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
            found = 1;
    }
    if (!found) {
        snprintf(d->choice, sizeof(d->choice), "FFmpeg has no CUDA decoder for %s", codec->name);
        if (asked && !s->opt->quiet)
            fprintf(cli_err(),
                    "psnrhvs: warning: --hwaccel cuda: FFmpeg has no CUDA decoder for %s (%s): "
                    "decoding it on the CPU\n",
                    s->name, codec->name);
        return 0;
    }
    char detail[600];
    const int ret = cuda_device(&d->hw_device, s->opt->hw_device);
    if (ret < 0 && !asked) {
        snprintf(d->choice, sizeof(d->choice), "no CUDA device %d opens", s->opt->hw_device);
        return 0;
    }
    if (ret < 0) {
        stream_error(s,
                     "--hwaccel cuda: cannot open CUDA device %d to decode %s: %s%s; it "
                     "needs an NVIDIA GPU with NVDEC and its driver (libcuda.so.1, "
                     "libnvcuvid.so.1); without --hwaccel the CPU decodes it",
                     s->opt->hw_device, s->name, av_err2str(ret),
                     ffmpeg_detail(d, detail, sizeof(detail)));
        return -1;
    }
    d->dec->hw_device_ctx = av_buffer_ref(d->hw_device);
    d->dec->get_format = get_hw_format;
    /* NVDEC decodes; frame threads would only hold more GPU surfaces. */
    d->dec->thread_count = 1;
    return d->dec->hw_device_ctx ? 0 : -1;
}

/*
 * A decoded GPU frame for the host path: copied to system memory (NV12, P010,
 * P016 or YUV444P/YUV444P16, as NVDEC writes them) and scored like any other
 * frame. Frames handed out on the GPU (read_device) are not copied.
 */
static int frame_to_host(FFmpegInput *const d, const AVFrame *const frame,
                         const AVFrame **const out) {
    if (frame->format != AV_PIX_FMT_CUDA || d->device_out) {
        *out = frame;
        return 0;
    }
    av_frame_unref(d->host);
    const int ret = av_hwframe_transfer_data(d->host, frame, 0);
    if (ret < 0) return ret;
    *out = d->host;
    return 0;
}

/* An MP4 read from a pipe: its index (moov) must come before its media. */
static const char *pipe_hint(const FFmpegInput *const d, const char *const detail) {
    const int mp4 = (d->fc && d->fc->iformat && strstr(d->fc->iformat->name, "mp4")) ||
                    strstr(detail, "moov atom not found");
    return !d->seekable && mp4 ? "; an MP4 whose index (moov) follows its media cannot be read "
                                 "from a pipe: give its file name, or write it with -movflags "
                                 "+faststart"
                               : "";
}

/* The next frame into d->cur: 1, 0 at the end, -1 with s->err set. */
static int next_frame(FFmpegInput *const d, InputStream *const s) {
    char detail[600];
    for (;;) {
        av_frame_unref(d->frame);
        int ret = avcodec_receive_frame(d->dec, d->frame);
        if (ret >= 0) {
            if ((ret = frame_to_host(d, d->frame, &d->cur)) < 0) {
                stream_error(s, "cannot copy frame %u of %s from the GPU: %s%s", d->decoded,
                             s->name, av_err2str(ret), ffmpeg_detail(d, detail, sizeof(detail)));
                return -1;
            }
            d->decoded++;
            return 1;
        }
        if (ret == AVERROR_EOF) return 0;
        if (ret != AVERROR(EAGAIN) || d->flushed) {
            stream_error(s, "cannot decode frame %u of %s: %s%s", d->decoded, s->name,
                         av_err2str(ret), ffmpeg_detail(d, detail, sizeof(detail)));
            return -1;
        }
        ret = av_read_frame(d->fc, d->pkt);
        if (ret == AVERROR_EOF) {
            /* Drain the decoder: the frames it still holds (B-frame reordering, frame threads). */
            d->flushed = 1;
            avcodec_send_packet(d->dec, NULL);
            continue;
        }
        if (ret < 0) {
            ffmpeg_detail(d, detail, sizeof(detail));
            stream_error(s, "cannot read %s after frame %u: %s%s%s", s->name, d->decoded,
                         av_err2str(ret), detail, pipe_hint(d, detail));
            return -1;
        }
        if (d->pkt->stream_index == d->stream) {
            ret = avcodec_send_packet(d->dec, d->pkt);
            /* A damaged packet is skipped, as ffmpeg does (its error was printed);
             * anything else ends the input. */
            if (ret < 0 && ret != AVERROR_INVALIDDATA) {
                av_packet_unref(d->pkt);
                stream_error(s, "cannot decode %s after frame %u: %s%s", s->name, d->decoded,
                             av_err2str(ret), ffmpeg_detail(d, detail, sizeof(detail)));
                return -1;
            }
        }
        av_packet_unref(d->pkt);
    }
}

static void ffmpeg_close(void *const priv) {
    FFmpegInput *const d = priv;
    /* Only after a run that wrote its scores: else nothing was scored. */
    if (d->log_errors && !d->failed && !d->quiet && d->s && d->s->scored)
        fprintf(cli_err(),
                "psnrhvs: warning: %s: FFmpeg reported %u decoding error%s (first: %s); its "
                "frames were scored as decoded, as ffmpeg decodes them\n",
                d->name, d->log_errors, d->log_errors > 1 ? "s" : "", d->first_error);
    av_frame_free(&d->frame);
    av_frame_free(&d->host);
    av_packet_free(&d->pkt);
    avcodec_free_context(&d->dec);
    av_buffer_unref(&d->hw_device);
    avformat_close_input(&d->fc);
    if (d->pb) av_freep(&d->pb->buffer);
    avio_context_free(&d->pb);
}

static int open_decoder(FFmpegInput *const d, InputStream *const s) {
    char detail[600];
    struct stat st;
    /* An image sequence (no stream: s->f is NULL) is opened by name, image2. */
    const int sequence = !s->f;
    const int seekable = d->seekable =
        sequence || (!fstat(fileno(s->f), &st) && S_ISREG(st.st_mode));
    uint8_t *const iobuf = sequence ? NULL : av_malloc(IO_BUFFER_SIZE);
    d->pb = iobuf ? avio_alloc_context(iobuf, IO_BUFFER_SIZE, 0, s, io_read, NULL,
                                       seekable ? io_seek : NULL)
                  : NULL;
    d->fc = avformat_alloc_context();
    d->pkt = av_packet_alloc();
    d->frame = av_frame_alloc();
    d->host = av_frame_alloc();
    if ((!sequence && !d->pb) || !d->fc || !d->pkt || !d->frame || !d->host) {
        if (!d->pb) av_free(iobuf);
        stream_error(s, "out of memory");
        return -1;
    }
    d->fc->pb = d->pb;
    d->fc->opaque = d;
    int ret = avformat_open_input(&d->fc, s->name, sequence ? av_find_input_format("image2") : NULL,
                                  NULL);
    if (ret < 0) {
        ffmpeg_detail(d, detail, sizeof(detail));
        stream_error(s, "cannot open %s as a video file: %s%s%s", s->name, av_err2str(ret), detail,
                     pipe_hint(d, detail));
        return -1;
    }
    if ((ret = avformat_find_stream_info(d->fc, NULL)) < 0) {
        stream_error(s, "cannot read the streams of %s: %s%s", s->name, av_err2str(ret),
                     ffmpeg_detail(d, detail, sizeof(detail)));
        return -1;
    }
    const AVCodec *codec = NULL;
    d->stream = av_find_best_stream(d->fc, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (d->stream == AVERROR_STREAM_NOT_FOUND) {
        stream_error(s, "%s has no video stream", s->name);
        return -1;
    }
    if (d->stream < 0 || !codec) {
        const int i = av_find_best_stream(d->fc, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
        stream_error(s, "this FFmpeg has no decoder for the %s video of %s",
                     i >= 0 ? avcodec_get_name(d->fc->streams[i]->codecpar->codec_id) : "?",
                     s->name);
        return -1;
    }
    for (unsigned i = 0; i < d->fc->nb_streams; i++)
        if ((int)i != d->stream) d->fc->streams[i]->discard = AVDISCARD_ALL;
    const AVStream *const st_v = d->fc->streams[d->stream];
    if (!(d->dec = avcodec_alloc_context3(codec)) ||
        avcodec_parameters_to_context(d->dec, st_v->codecpar) < 0) {
        stream_error(s, "out of memory");
        return -1;
    }
    d->dec->pkt_timebase = st_v->time_base;
    /* Frame and slice threads, one per core, as ffmpeg decodes. */
    d->dec->thread_count = 0;
    d->dec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    d->dec->opaque = d;
    if (s->opt->hwaccel && setup_hwaccel(d, codec, s) < 0) return -1;
    /* The decoder's threads inherit every signal blocked (thread.h). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    ret = avcodec_open2(d->dec, codec, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (ret < 0) {
        stream_error(s, "cannot open the %s decoder for %s: %s%s", codec->name, s->name,
                     av_err2str(ret), ffmpeg_detail(d, detail, sizeof(detail)));
        return -1;
    }
    return 0;
}

/* What the stream declares about its colour (the first frame's, else the
 * decoder's); unspecified stays "". The yuvj formats are full range. */
static void declared_colour(const FFmpegInput *const d, InputStream *const s) {
    InputColour *const c = &s->colour;
    const AVFrame *const f = d->frame;
    enum AVColorRange range = f->color_range ? f->color_range : d->dec->color_range;
    const enum AVPixelFormat pf = (enum AVPixelFormat)d->u.pix_fmt;
    /* A JPEG's samples are full range unless it says otherwise: the range is
     * stated, not merely tagged (input_colour_check). */
    const int jpeg = d->dec->codec_id == AV_CODEC_ID_MJPEG && range != AVCOL_RANGE_MPEG;
    if (pf == AV_PIX_FMT_YUVJ420P || pf == AV_PIX_FMT_YUVJ422P || pf == AV_PIX_FMT_YUVJ444P ||
        jpeg) {
        range = AVCOL_RANGE_JPEG;
        snprintf(s->range_by, sizeof(s->range_by), "%s", jpeg ? "JPEG" : av_get_pix_fmt_name(pf));
    }
    if (range == AVCOL_RANGE_MPEG) snprintf(c->range, sizeof(c->range), "limited");
    if (range == AVCOL_RANGE_JPEG) snprintf(c->range, sizeof(c->range), "full");
    const enum AVColorSpace cs =
        f->colorspace != AVCOL_SPC_UNSPECIFIED ? f->colorspace : d->dec->colorspace;
    const enum AVColorPrimaries cp =
        f->color_primaries != AVCOL_PRI_UNSPECIFIED ? f->color_primaries : d->dec->color_primaries;
    const enum AVColorTransferCharacteristic tc =
        f->color_trc != AVCOL_TRC_UNSPECIFIED ? f->color_trc : d->dec->color_trc;
    const char *name;
    if (cs != AVCOL_SPC_UNSPECIFIED && (name = av_color_space_name(cs)))
        snprintf(c->matrix, sizeof(c->matrix), "%s", name);
    if (cp != AVCOL_PRI_UNSPECIFIED && cp != AVCOL_PRI_RESERVED0 &&
        (name = av_color_primaries_name(cp)))
        snprintf(c->primaries, sizeof(c->primaries), "%s", name);
    if (tc != AVCOL_TRC_UNSPECIFIED && tc != AVCOL_TRC_RESERVED0 &&
        (name = av_color_transfer_name(tc)))
        snprintf(c->transfer, sizeof(c->transfer), "%s", name);
}

static int ffmpeg_open(void *const priv, InputStream *const s, InputFormat *const fmt) {
    FFmpegInput *const d = priv;
    ffmpeg_log_init();
    log_clear();
    d->name = s->name;
    d->s = s;
    d->quiet = s->opt->quiet;
    int res = open_decoder(d, s);
    if (!res && s->opt->timing)
        fprintf(cli_err(), "psnrhvs: decoder: %s: %s (%s)\n", s->name,
                d->dec->hw_device_ctx ? "NVDEC" : "the CPU",
                d->choice[0] ? d->choice : "--hwaccel none");
    /* The first frame tells the format; it is kept for the first read. */
    if (!res) res = next_frame(d, s);
    if (res < 0) return d->failed = 1, -1;
    if (d->hw_fallback && s->opt->hwaccel == INPUT_HWACCEL_CUDA && !s->opt->quiet)
        fprintf(cli_err(),
                "psnrhvs: warning: --hwaccel cuda: NVDEC cannot decode %s (%s): decoding it on "
                "the CPU\n",
                s->name, d->dec->codec->name);
    if (!res) {
        stream_error(s, "no frames to score: %s has no frame", s->name);
        return d->failed = 1, -1;
    }
    const AVFrame *const f = d->cur;
    d->pending = 1;
    /* A GPU frame's own depth is the decoder's (P016 may hold 10 or 12 bits). */
    const AVPixFmtDescriptor *const desc = av_pix_fmt_desc_get(
        d->frame->format == AV_PIX_FMT_CUDA ? d->dec->sw_pix_fmt : (enum AVPixelFormat)f->format);
    if (unpack_init(&d->u, f->format, desc ? desc->comp[0].depth : 0, f->width, f->height, s->name,
                    s->err, sizeof(s->err)) < 0)
        return d->failed = 1, -1;
    *fmt = d->u.fmt;
    declared_colour(d, s);
    return 1;
}

/* The frame to hand out next: the first, kept by open, or the next decoded
 * one. 1, 0 at the end, -1 with s->err set. */
static int advance(FFmpegInput *const d, InputStream *const s) {
    if (d->pending) {
        d->pending = 0;
        return 1;
    }
    const int res = next_frame(d, s);
    if (res < 0) d->failed = 1;
    return res;
}

static int ffmpeg_read(void *const priv, InputStream *const s, uint8_t *const buf,
                       const size_t frame_bytes, const unsigned frame_idx) {
    FFmpegInput *const d = priv;
    const int res = advance(d, s);
    if (res <= 0) return res;
    if (frame_bytes != d->u.geo.frame_bytes) {
        stream_error(s, "%s: frame of %zu bytes asked for, %zu decoded", s->name, frame_bytes,
                     d->u.geo.frame_bytes);
        return -1;
    }
    if (unpack_frame(&d->u, d->cur, buf, frame_idx, s->name, s->err, sizeof(s->err)) < 0)
        return d->failed = 1, -1;
    return 1;
}

static const char *ffmpeg_decoded_on(void *const priv) {
    const FFmpegInput *const d = priv;
    return d->dec && d->dec->hw_device_ctx && !d->hw_fallback ? "NVDEC" : "the CPU";
}

/* The frames on the GPU: as NVDEC writes them, which the library reads in
 * place (NV12/P010/P016 chroma interleaved, samples above 8 bits in the
 * high bits of their word). */
static int ffmpeg_device_frames(void *const priv, DeviceFrames *const df) {
    const FFmpegInput *const d = priv;
    const FrameUnpack *const u = &d->u;
    if (d->frame->format != AV_PIX_FMT_CUDA || u->chroma_swap) return 0;
    if (u->down && (u->bytes != 2 || u->down != 16 - u->fmt.bitdepth)) return 0;
    df->chroma_interleaved = u->semi;
    df->msb_aligned = u->down > 0;
    return 1;
}

static int ffmpeg_read_device(void *const priv, InputStream *const s, PsnrHvsPicture *const pic,
                              void **const hold, const unsigned frame_idx) {
    FFmpegInput *const d = priv;
    const FrameUnpack *const u = &d->u;
    d->device_out = 1;
    const int res = advance(d, s);
    if (res <= 0) return res;
    const AVFrame *const f = d->frame;
    const AVHWFramesContext *const hw =
        f->hw_frames_ctx ? (const AVHWFramesContext *)(const void *)f->hw_frames_ctx->data : NULL;
    if (f->format != AV_PIX_FMT_CUDA || !hw || (int)hw->sw_format != u->pix_fmt ||
        f->width != u->fmt.width || f->height != u->fmt.height) {
        stream_error(s,
                     "frame %u of %s is %dx%d %s, its first frame %dx%d %s on the GPU: "
                     "psnrhvs scores one size and pixel format per input",
                     frame_idx, s->name, f->width, f->height,
                     av_get_pix_fmt_name(hw ? hw->sw_format : (enum AVPixelFormat)f->format),
                     u->fmt.width, u->fmt.height,
                     av_get_pix_fmt_name((enum AVPixelFormat)u->pix_fmt));
        d->failed = 1;
        return -1;
    }
    memset(pic, 0, sizeof(*pic));
    for (int p = 0; p < u->geo.num_planes; p++) {
        const int src = p && u->semi ? 1 : p;
        pic->data[p] = f->data[src] + (p == 2 && u->semi ? u->bytes : 0);
        pic->stride[p] = f->linesize[src];
    }
    /* A reference of its own: the decoder reuses d->frame for the next one. */
    if (!(*hold = av_frame_clone(f))) {
        stream_error(s, "out of memory");
        d->failed = 1;
        return -1;
    }
    return 1;
}

void ffmpeg_hold_free(void *const hold) {
    AVFrame *f = hold;
    av_frame_free(&f);
}

static long long ffmpeg_frames_left(void *const priv, const unsigned frames_read) {
    const FFmpegInput *const d = priv;
    const int64_t n = d->fc->streams[d->stream]->nb_frames;
    return n > (int64_t)frames_read ? n - (int64_t)frames_read : n > 0 ? 0 : -1;
}

const Decoder decoder_ffmpeg = {
    .name = "ffmpeg",
    .priv_data_size = sizeof(FFmpegInput),
    .open = ffmpeg_open,
    .read = ffmpeg_read,
    .close = ffmpeg_close,
    .samples_native = 1,
    .frames_left = ffmpeg_frames_left,
    .device_frames = ffmpeg_device_frames,
    .decoded_on = ffmpeg_decoded_on,
    .read_device = ffmpeg_read_device,
};
