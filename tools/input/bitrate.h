/*
 * psnrhvs: the bitrate of a compressed input, for rate tables (psnrhvs
 * batch's summary, psnrhvs bdrate, the report's rate-distortion curves).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_BITRATE_H
#define PSNRHVS_TOOLS_INPUT_BITRATE_H

#include <stddef.h>

typedef struct InputBitrate {
    double kbps;        ///< kbit/s (1000 bits)
    double seconds;     ///< the duration the bits are spread over
    long long bytes;    ///< the video stream's packet bytes ("stream"), else 0
    long long packets;  ///< its packets (one per coded frame), else 0
    const char *source; ///< "stream" (bytes x 8 / seconds) or "container" (its own figure)
} InputBitrate;

/**
 * The bitrate of the video stream FFmpeg decodes from path (the stream
 * psnrhvs scores: av_find_best_stream), from its packets, read without
 * decoding: bytes x 8 / seconds, seconds = packets / the stream's average
 * frame rate (the CTC's frames / fps), else from the packets' timestamps,
 * else the stream's or container's duration ("stream"); an image sequence
 * (frames/%05d.png) at image2's frame rate, 25 unless the files say. Where no duration
 * is known, the container's bit_rate ("container": a figure for the whole
 * file, audio included).
 * @return 0 and *b; 1 when path is not compressed (raw or Y4M: no bitrate);
 *         -1 with one line in err (unreadable, no video stream, no FFmpeg
 *         in this build).
 */
int input_bitrate(const char *path, InputBitrate *b, char *err, size_t err_size);

#endif /* PSNRHVS_TOOLS_INPUT_BITRATE_H */
