/*
 * psnrhvs: target's encoder: which of FFmpeg's encoders, its quality
 * parameter (CRF, else QP, else the bitrate) and the range searched.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <math.h>
#include <string.h>

#include "input/ffmpeg.h"
#include "target/target_int.h"

/* Steps of a bitrate search: each setting 5 % below the one before. */
#define RATE_STEP 1.05

const char *av_error(const int ret, char *const buf, const size_t size) {
    av_strerror(ret, buf, size);
    return buf;
}

static enum AVPixelFormat pix_fmt_of(const PsnrHvsFormat *const f) {
    static const enum AVPixelFormat t[4][3] = {
        {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV420P10, AV_PIX_FMT_YUV420P12},
        {AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV422P10, AV_PIX_FMT_YUV422P12},
        {AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV444P10, AV_PIX_FMT_YUV444P12},
        {AV_PIX_FMT_GRAY8, AV_PIX_FMT_GRAY10, AV_PIX_FMT_GRAY12},
    };
    return t[f->layout][(f->bitdepth - 8) / 2];
}

static int takes_pix_fmt(const AVCodec *const c, const enum AVPixelFormat f) {
    if (!c->pix_fmts) return 1;
    for (const enum AVPixelFormat *p = c->pix_fmts; *p != AV_PIX_FMT_NONE; p++)
        if (*p == f) return 1;
    return 0;
}

/* The parameter's range from its AVOption; where that is open-ended (x264,
 * x265: -1 to FLT_MAX), the codec's quantiser scale. */
static void option_range(Encoder *const e, const AVOption *const o, const int bitdepth) {
    e->lo = o->min < 0 ? 0 : o->min;
    e->hi = o->max;
    if (e->hi > 255) {
        if (e->codec->id == AV_CODEC_ID_H264)
            e->hi = 51 + 6 * (bitdepth - 8);
        else if (e->codec->id == AV_CODEC_ID_HEVC)
            e->hi = 51;
        else
            e->hi = 63;
    }
    if (!strcmp(e->codec->name, "libsvtav1") && e->lo < 1) e->lo = 1; /* SVT-AV1: 1-63 */
}

static int quality_param(Encoder *const e, const TargetArgs *const a, const Source *const s) {
    const AVClass *const *const cls = &e->codec->priv_class;
    const AVOption *o = NULL;
    if (*cls && (o = av_opt_find((void *)cls, "crf", NULL, 0, AV_OPT_SEARCH_FAKE_OBJ)))
        e->kind = Q_CRF, e->param = "crf";
    else if (*cls && (o = av_opt_find((void *)cls, "qp", NULL, 0, AV_OPT_SEARCH_FAKE_OBJ)))
        e->kind = Q_QP, e->param = "qp";
    else
        e->kind = Q_BITRATE, e->param = "b";
    if (o)
        option_range(e, o, s->fmt.bitdepth);
    else
        e->lo = 50, e->hi = 50000; /* kbit/s */
    if (a->have_range) {
        if (a->range_lo < e->lo || a->range_hi > e->hi || (e->kind == Q_BITRATE && !a->range_lo)) {
            fprintf(stderr, "psnrhvs: target: --range %g-%g is outside %s's %s range %g-%g\n",
                    a->range_lo, a->range_hi, e->codec->name, e->param, e->lo, e->hi);
            return -1;
        }
        e->lo = a->range_lo, e->hi = a->range_hi;
    }
    if (e->kind == Q_BITRATE)
        e->n = (int)floor(log(e->hi / e->lo) / log(RATE_STEP) + 1e-9) + 1;
    else
        e->lo = ceil(e->lo), e->hi = floor(e->hi), e->n = (int)(e->hi - e->lo) + 1;
    if (e->n < 1 || e->n > TARGET_MAX_PROBES) {
        fprintf(stderr, "psnrhvs: target: %s %g-%g: no setting, or too many to search\n", e->param,
                e->lo, e->hi);
        return -1;
    }
    return 0;
}

double encoder_value(const Encoder *const e, const int i) {
    return e->kind == Q_BITRATE ? e->hi * pow(RATE_STEP, -i) : e->lo + i;
}

AVCodecContext *encoder_open(const Encoder *const e, const double v, char *const err,
                             const size_t size) {
    AVCodecContext *c = avcodec_alloc_context3(e->codec);
    AVDictionary *d = NULL;
    char buf[64];
    if (!c || av_dict_copy(&d, e->opts, 0) < 0) {
        snprintf(err, size, "out of memory");
        avcodec_free_context(&c);
        return NULL;
    }
    c->width = e->width, c->height = e->height, c->pix_fmt = e->pix_fmt;
    c->time_base = av_inv_q(e->fps), c->framerate = e->fps;
    c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER; /* extradata for the decoder and the muxer */
    if (e->kind == Q_BITRATE)
        c->bit_rate = llround(v * 1000);
    else
        snprintf(buf, sizeof(buf), "%.17g", v), av_dict_set(&d, e->param, buf, 0);
    if (!av_dict_get(d, "threads", NULL, 0)) av_dict_set(&d, "threads", "auto", 0); /* as ffmpeg */
    const int ret = avcodec_open2(c, e->codec, &d);
    const AVDictionaryEntry *const left = av_dict_get(d, "", NULL, AV_DICT_IGNORE_SUFFIX);
    if (ret < 0 || left) {
        char why[512];
        ffmpeg_last_error(why, sizeof(why));
        if (left)
            snprintf(err, size, "%s has no option '%s'", e->codec->name, left->key);
        else
            snprintf(err, size, "cannot open %s at %s %g with the options given: %s%s%s%s",
                     e->codec->name, e->param, v, av_error(ret, buf, sizeof(buf)),
                     why[0] ? " (" : "", why, why[0] ? ")" : "");
        avcodec_free_context(&c);
    }
    av_dict_free(&d);
    return c;
}

AVCodecContext *decoder_open(const Encoder *const e, const AVCodecContext *const enc,
                             char *const err, const size_t size) {
    AVCodecContext *c = avcodec_alloc_context3(e->decoder);
    char buf[64];
    if (!c) return snprintf(err, size, "out of memory"), NULL;
    if (enc->extradata_size) {
        c->extradata = av_mallocz((size_t)enc->extradata_size + AV_INPUT_BUFFER_PADDING_SIZE);
        if (!c->extradata)
            return snprintf(err, size, "out of memory"), avcodec_free_context(&c), NULL;
        memcpy(c->extradata, enc->extradata, (size_t)enc->extradata_size);
        c->extradata_size = enc->extradata_size;
    }
    c->thread_count = 1; /* the samples decode side by side */
    const int ret = avcodec_open2(c, e->decoder, NULL);
    if (ret < 0) {
        snprintf(err, size, "cannot open the %s decoder: %s", e->decoder->name,
                 av_error(ret, buf, sizeof(buf)));
        avcodec_free_context(&c);
    }
    return c;
}

/* Encode the source's first frame and drain the encoder: SVT-AV1 (1.4)
 * hangs when closed before any frame. @return 0, or -1 with err set. */
static int one_frame(const Encoder *const e, const Source *const s, AVCodecContext *const c,
                     char *const err, const size_t size) {
    AVFrame *f = av_frame_alloc();
    AVPacket *pkt = av_packet_alloc();
    char buf[64];
    int r = f && pkt ? wrap_frame(s, e, s->sample[0].ref[0], 0, wrap_no_free, f) : -1;
    if (r == 0) r = avcodec_send_frame(c, f);
    if (r == 0) r = avcodec_send_frame(c, NULL);
    while (r == 0 && (r = avcodec_receive_packet(c, pkt)) == 0) av_packet_unref(pkt);
    av_frame_free(&f);
    av_packet_free(&pkt);
    if (r == AVERROR_EOF) return 0;
    snprintf(err, size, "%s cannot encode a frame of the source: %s", e->codec->name,
             av_error(r, buf, sizeof(buf)));
    return -1;
}

static int check_options(Encoder *const e, const TargetArgs *const a, const Source *const s) {
    if (a->encoder_options && av_dict_parse_string(&e->opts, a->encoder_options, "=", ":", 0) < 0) {
        fprintf(stderr, "psnrhvs: target: bad --encoder-options '%s' (key=value:key=value)\n",
                a->encoder_options);
        return -1;
    }
    if (av_dict_get(e->opts, e->param, NULL, 0) ||
        (e->kind == Q_BITRATE && av_dict_get(e->opts, "b:v", NULL, 0))) {
        fprintf(stderr,
                "psnrhvs: target: --encoder-options sets %s, which target searches: "
                "narrow it with --range\n",
                e->param);
        return -1;
    }
    /* Open it once: an option it does not have is an error before any probe. */
    char err[512];
    AVCodecContext *c = encoder_open(e, encoder_value(e, e->n / 2), err, sizeof(err));
    const int ret = c ? one_frame(e, s, c, err, sizeof(err)) : -1;
    if (ret < 0) fprintf(stderr, "psnrhvs: target: %s\n", err);
    avcodec_free_context(&c);
    return ret;
}

int encoder_setup(Encoder *const e, const TargetArgs *const a, const Source *const s) {
    memset(e, 0, sizeof(*e));
    e->codec = avcodec_find_encoder_by_name(a->encoder);
    if (!e->codec || e->codec->type != AVMEDIA_TYPE_VIDEO) {
        fprintf(stderr,
                "psnrhvs: target: this FFmpeg (libavcodec %s) has no video encoder "
                "'%s' (ffmpeg -encoders lists them)\n",
                av_version_info(), a->encoder);
        return -1;
    }
    e->decoder = avcodec_find_decoder(e->codec->id);
    if (!e->decoder) {
        fprintf(stderr, "psnrhvs: target: this FFmpeg has no decoder for %s's %s streams\n",
                e->codec->name, avcodec_get_name(e->codec->id));
        return -1;
    }
    e->pix_fmt = pix_fmt_of(&s->fmt);
    if (!takes_pix_fmt(e->codec, e->pix_fmt)) {
        fprintf(stderr, "psnrhvs: target: %s does not encode %s, the source's format\n",
                e->codec->name, av_get_pix_fmt_name(e->pix_fmt));
        return -1;
    }
    e->fps = (AVRational){s->fps_num, s->fps_den};
    e->width = s->fmt.width, e->height = s->fmt.height;
    if (quality_param(e, a, s) < 0 || check_options(e, a, s) < 0) {
        encoder_free(e);
        return -1;
    }
    return 0;
}

void encoder_free(Encoder *const e) {
    av_dict_free(&e->opts);
}
