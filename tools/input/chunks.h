/*
 * psnrhvs: FFmpeg builds only: a compressed input split at its keyframes and
 * decoded by several decoder sessions at once (input/chunks.c), behind the
 * FFmpeg demuxer (input/ffmpeg.c). The frames come out in the sequential
 * decode's order and are its frames, byte for byte.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_CHUNKS_H
#define PSNRHVS_TOOLS_INPUT_CHUNKS_H

#include "input/input.h"

struct AVFormatContext;
struct AVCodecContext;
struct AVFrame;

typedef struct Chunks Chunks;

/**
 * Decide how the video stream `stream` of fc is decoded, before any packet
 * is read; dec is the input's decoder, opened and unused. *out is NULL when
 * one session decodes it, as before (a pipe, a short file, one keyframe, a
 * codec not split, --decode-sessions 1). Otherwise the packets are
 * read on a thread of the decoder's own, dec decodes the first chunk and
 * belongs to it until chunks_close(); fc is only read there.
 * s->opt->timing (--timing) prints the plan on stderr.
 * @return 0, or -1 with s->err set.
 */
int chunks_open(Chunks **out, struct AVFormatContext *fc, int stream, struct AVCodecContext *dec,
                int seekable, InputStream *s);

/**
 * The next frame in presentation order into frame (a reference moved in).
 * @return 0, AVERROR_EOF at the end, another AVERROR with s->err set.
 */
int chunks_receive(Chunks *c, struct AVFrame *frame, InputStream *s);

/**
 * The input a decoder's opaque names: its chunk session's (*muted: the
 * session has not reached its first frame, where its messages are about
 * pictures the run before decodes), or opaque itself.
 */
void *chunks_input(void *opaque, int *muted);

/** Stop the threads and free everything; *c NULL is fine. */
void chunks_close(Chunks **c);

#endif /* PSNRHVS_TOOLS_INPUT_CHUNKS_H */
