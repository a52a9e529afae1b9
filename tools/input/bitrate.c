/*
 * psnrhvs: a compressed input's bitrate from its video packets (FFmpeg
 * builds; without FFmpeg an error that says so).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "input/bitrate.h"
#include "input/input.h"

#if HAVE_FFMPEG
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>

#include "input/ffmpeg.h"
#endif

/* 1 when the file is raw or Y4M, 0 when compressed, -1 unreadable. */
static int uncompressed(const char *const path, char *const err, const size_t err_size) {
    FILE *const f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    uint8_t head[16];
    const size_t n = fread(head, 1, sizeof(head), f);
    fclose(f);
    return sniff_compressed(head, n, path) ? 0 : 1;
}

int input_bitrate(const char *const path, InputBitrate *const b, char *const err,
                  const size_t err_size) {
    memset(b, 0, sizeof(*b));
    /* An image sequence (frames/%05d.png) is no file of its own: image2 reads it. */
    const int sequence = input_image_pattern(path) && access(path, F_OK);
    const int raw = sequence ? 0 : uncompressed(path, err, err_size);
    if (raw) return raw;
#if !HAVE_FFMPEG
    snprintf(err, err_size, "psnrhvs was built without FFmpeg: no bitrate for %s", path);
    return -1;
#else
    AVFormatContext *fc = NULL;
    ffmpeg_log_init(); /* FFmpeg's messages are not printed */
    AVPacket *pkt = av_packet_alloc();
    int ret = -1;
    int res =
        pkt ? avformat_open_input(&fc, path, sequence ? av_find_input_format("image2") : NULL, NULL)
            : AVERROR(ENOMEM);
    if (res < 0) {
        snprintf(err, err_size, "cannot open %s as a video file: %s", path, av_err2str(res));
        goto end;
    }
    if ((res = avformat_find_stream_info(fc, NULL)) < 0) {
        snprintf(err, err_size, "cannot read the streams of %s: %s", path, av_err2str(res));
        goto end;
    }
    const int si = av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (si < 0) {
        snprintf(err, err_size, "%s has no video stream", path);
        goto end;
    }
    const AVStream *const st = fc->streams[si];
    for (unsigned i = 0; i < fc->nb_streams; i++)
        if ((int)i != si) fc->streams[i]->discard = AVDISCARD_ALL;
    int64_t first = INT64_MAX, last = INT64_MIN;
    while ((res = av_read_frame(fc, pkt)) >= 0) {
        if (pkt->stream_index == si) {
            b->bytes += pkt->size;
            b->packets++;
            if (pkt->pts != AV_NOPTS_VALUE) {
                if (pkt->pts < first) first = pkt->pts;
                const int64_t end = pkt->pts + (pkt->duration > 0 ? pkt->duration : 0);
                if (end > last) last = end;
            }
        }
        av_packet_unref(pkt);
    }
    if (res != AVERROR_EOF) {
        snprintf(err, err_size, "cannot read %s: %s", path, av_err2str(res));
        goto end;
    }
    const AVRational fps = st->avg_frame_rate;
    b->source = "stream";
    if (b->packets && fps.num > 0 && fps.den > 0)
        b->seconds = (double)b->packets * fps.den / fps.num;
    else if (last > first && first != INT64_MAX)
        b->seconds = (double)(last - first) * st->time_base.num / st->time_base.den;
    else if (st->duration > 0 && st->duration != AV_NOPTS_VALUE)
        b->seconds = (double)st->duration * st->time_base.num / st->time_base.den;
    else if (fc->duration > 0)
        b->seconds = (double)fc->duration / AV_TIME_BASE;
    if (b->bytes && b->seconds > 0) {
        b->kbps = (double)b->bytes * 8.0 / b->seconds / 1000.0;
    } else if (fc->bit_rate > 0) {
        b->source = "container";
        b->kbps = (double)fc->bit_rate / 1000.0;
        b->seconds = fc->duration > 0 ? (double)fc->duration / AV_TIME_BASE : 0;
    } else {
        snprintf(err, err_size,
                 "%s: no bitrate: its video stream has %lld bytes and no duration or frame rate, "
                 "and the container states no bitrate",
                 path, b->bytes);
        goto end;
    }
    ret = 0;
end:
    av_packet_free(&pkt);
    avformat_close_input(&fc);
    return ret;
#endif
}
