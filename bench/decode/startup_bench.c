/*
 * startup_bench: where the start-up of a compressed input goes, step by step
 * as tools/input/ffmpeg.c opens one (libavformat and libavcodec directly):
 * the container, find_stream_info (which decodes frames on the CPU to probe),
 * the CUDA device (--hwaccel: cuInit and the primary context, the first
 * time in the process), the decoder, the first frame (NVDEC: its decoder
 * is created then). The files are opened one after the other, as the CLI
 * opens its inputs.
 *   startup_bench [--hwaccel] FILE...
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static enum AVPixelFormat cuda_format(AVCodecContext *const c, const enum AVPixelFormat *fmts) {
    for (const enum AVPixelFormat *p = fmts; *p != AV_PIX_FMT_NONE; p++)
        if (*p == AV_PIX_FMT_CUDA) return *p;
    return fmts[0];
}

static int open_one(const char *const path, const int hwaccel) {
    AVFormatContext *fc = NULL;
    AVCodecContext *dec = NULL;
    AVBufferRef *hw = NULL;
    AVPacket *pkt = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    const AVCodec *codec = NULL;
    int ret = -1;
    double t = now_ms(), t_open = 0, t_info = 0, t_dev = 0, t_dec = 0, t_first = 0;
    if (avformat_open_input(&fc, path, NULL, NULL) < 0) goto end;
    t_open = now_ms() - t, t = now_ms();
    if (avformat_find_stream_info(fc, NULL) < 0) goto end;
    t_info = now_ms() - t, t = now_ms();
    const int st = av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (st < 0 || !codec || !(dec = avcodec_alloc_context3(codec)) ||
        avcodec_parameters_to_context(dec, fc->streams[st]->codecpar) < 0)
        goto end;
    dec->pkt_timebase = fc->streams[st]->time_base;
    dec->thread_count = 0;
    dec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    if (hwaccel) {
        AVDictionary *o = NULL;
        av_dict_set(&o, "primary_ctx", "1", 0);
        const int r = av_hwdevice_ctx_create(&hw, AV_HWDEVICE_TYPE_CUDA, "0", o, 0);
        av_dict_free(&o);
        if (r < 0) {
            fprintf(stderr, "startup_bench: no CUDA device: %s\n", av_err2str(r));
            goto end;
        }
        dec->hw_device_ctx = av_buffer_ref(hw);
        dec->get_format = cuda_format;
        dec->thread_count = 1;
        t_dev = now_ms() - t, t = now_ms();
    }
    if (avcodec_open2(dec, codec, NULL) < 0) goto end;
    t_dec = now_ms() - t, t = now_ms();
    for (;;) {
        int r = avcodec_receive_frame(dec, frame);
        if (r >= 0) break;
        if (r != AVERROR(EAGAIN)) goto end;
        if ((r = av_read_frame(fc, pkt)) < 0) {
            avcodec_send_packet(dec, NULL);
            continue;
        }
        if (pkt->stream_index == st) avcodec_send_packet(dec, pkt);
        av_packet_unref(pkt);
    }
    t_first = now_ms() - t, t = now_ms();
    ret = 0;
end:
    if (ret) fprintf(stderr, "startup_bench: %s failed\n", path);
    av_frame_free(&frame);
    av_packet_free(&pkt);
    avcodec_free_context(&dec);
    av_buffer_unref(&hw);
    avformat_close_input(&fc);
    if (!ret)
        printf("%s: container %.1f ms, find_stream_info %.1f ms, CUDA device %.1f ms, decoder "
               "%.1f ms, first frame %.1f ms, closing %.1f ms (%s)\n",
               path, t_open, t_info, t_dev, t_dec, t_first, now_ms() - t, codec->name);
    return ret;
}

int main(int argc, char **argv) {
    int hwaccel = 0, i = 1;
    if (i < argc && !strcmp(argv[i], "--hwaccel")) hwaccel = 1, i++;
    if (i >= argc) {
        fprintf(stderr, "usage: startup_bench [--hwaccel] FILE...\n");
        return 2;
    }
    av_log_set_level(AV_LOG_ERROR);
    const double t0 = now_ms();
    int failed = 0;
    for (; i < argc; i++) failed |= open_one(argv[i], hwaccel) < 0;
    printf("all: %.1f ms\n", now_ms() - t0);
    return failed;
}
