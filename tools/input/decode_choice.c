/*
 * psnrhvs: FFmpeg builds only: where a compressed input is decoded when
 * --hwaccel is auto (the default): on NVDEC where that makes the run
 * faster, on the CPU otherwise, decided before the first packet is read
 * from what the container says and what the machine has.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>

#include "psnrhvs.h"
#include "input/decode_choice.h"

/*
 * NVDEC's start (FFmpeg's CUDA device, the first frame out) is a fixed cost
 * a run repays with the CPU time it saves: decoding on the cores, and the
 * frames' upload, since NVDEC's are scored where they are. Measured whole
 * runs (bench/RESULTS.md) put the break-even of a 4K 8-bit HEVC pair near
 * 48 frames on 16 cores; the samples it takes grow with the cores (each
 * core decodes its share). 10-bit HEVC cost the CPU so much more, to its
 * first frame too, that NVDEC won a 4K pair of 24 frames by 1.5x: a deep
 * sample counts as several.
 * H.264's CPU decoder outran one NVDEC session at every length measured,
 * so it stays on the CPU, as do codecs NVDEC lacks.
 */
#define BREAK_EVEN_SAMPLES_PER_CORE (48.0 * 3840 * 2160 / 16)
#define DEEP_SAMPLE_COST            8.0

static int nvdec_outruns_cpu(const enum AVCodecID id) {
    return id == AV_CODEC_ID_HEVC || id == AV_CODEC_ID_AV1 || id == AV_CODEC_ID_VP9;
}

long long decode_frames_estimate(const AVFormatContext *const fc, const int stream) {
    const AVStream *const st = fc->streams[stream];
    if (st->nb_frames > 0) return st->nb_frames;
    if (st->avg_frame_rate.num <= 0 || st->avg_frame_rate.den <= 0) return -1;
    const double secs = st->duration != AV_NOPTS_VALUE   ? st->duration * av_q2d(st->time_base)
                        : fc->duration != AV_NOPTS_VALUE ? fc->duration / (double)AV_TIME_BASE
                                                         : -1;
    return secs > 0 ? (long long)(secs * av_q2d(st->avg_frame_rate) + 0.5) : -1;
}

int decode_on_nvdec(const AVFormatContext *const fc, const int stream,
                    const InputOptions *const opt, char *const why, const size_t size) {
    const AVCodecParameters *const par = fc->streams[stream]->codecpar;
    const char *const codec = avcodec_get_name(par->codec_id);
    if (opt->hwaccel != INPUT_HWACCEL_AUTO) {
        snprintf(why, size, "--hwaccel %s", opt->hwaccel ? "cuda" : "none");
        return opt->hwaccel == INPUT_HWACCEL_CUDA;
    }
    if (!opt->gpu_scorer) {
        snprintf(why, size, "its frames would be copied to host memory for the scorer");
        return 0;
    }
    if (!nvdec_outruns_cpu(par->codec_id)) {
        snprintf(why, size, "%s decodes as fast on the CPU", codec);
        return 0;
    }
    /* 4:2:2 and gray streams NVDEC turns down: the CPU would then decode
     * them with one thread (an NVDEC decoder has no frame threads). */
    const AVPixFmtDescriptor *const desc = av_pix_fmt_desc_get((enum AVPixelFormat)par->format);
    if (!desc || desc->nb_components < 3 || desc->log2_chroma_w != desc->log2_chroma_h) {
        snprintf(why, size, "NVDEC may not decode its %s samples", desc ? desc->name : "unknown");
        return 0;
    }
    long long frames = decode_frames_estimate(fc, stream);
    if (opt->frames_wanted && (frames < 0 || frames > (long long)opt->frames_wanted))
        frames = opt->frames_wanted;
    if (frames < 0) {
        snprintf(why, size, "its length is unknown");
        return 0;
    }
    const int deep = desc->comp[0].depth > 8;
    const double samples =
        (double)frames * par->width * par->height * (deep ? DEEP_SAMPLE_COST : 1.0);
    const double bar = BREAK_EVEN_SAMPLES_PER_CORE * psnrhvs_cpu_count();
    if (samples < bar) {
        snprintf(why, size, "%lld frames of %dx%d are decoded sooner on %d CPU cores", frames,
                 par->width, par->height, psnrhvs_cpu_count());
        return 0;
    }
    if (!opt->gpu_scorer()) {
        snprintf(why, size, "no cuda backend scores its frames");
        return 0;
    }
    snprintf(why, size, "%lld frames of %dx%d %s", frames, par->width, par->height, codec);
    return 1;
}
