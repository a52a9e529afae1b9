/*
 * psnrhvs: FFmpeg builds only: what input/ffmpeg.c and input/ffmpeg_unpack.c
 * share with the rest of the input library.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_FFMPEG_H
#define PSNRHVS_TOOLS_INPUT_FFMPEG_H

#include <stddef.h>

#include "input/input.h"

struct AVFrame;

/**
 * Route FFmpeg's log through psnrhvs (once per process). Nothing is printed:
 * the last error message goes into psnrhvs's one error line, and the errors
 * of an input that decoded to its end anyway (concealed damage) into one
 * warning when it is closed.
 */
void ffmpeg_log_init(void);

/** Copy FFmpeg's last error message (empty if none) into buf. */
void ffmpeg_last_error(char *buf, size_t size);

/**
 * How a decoded frame's pixel format maps to psnrhvs planes: planar as is,
 * semi-planar (NV12, NV21, P010, P016, ...) de-interleaved, samples stored in
 * the high bits of 16-bit words (P010: 10 bits over 6 zero bits; a GPU's P016
 * or YUV444P16 of 10- or 12-bit video) moved down by the bits below them,
 * which must be zero. Nothing is computed on a sample.
 */
typedef struct FrameUnpack {
    InputFormat fmt;   ///< what the frames hold
    PlaneGeometry geo; ///< their planes as psnrhvs lays them out (input.h)
    int pix_fmt;       ///< enum AVPixelFormat
    int semi;          ///< Cb and Cr interleaved in one plane
    int chroma_swap;   ///< Cr first (NV21)
    int down;          ///< bits each sample moves down (P010: 6)
    int bytes;         ///< bytes per stored sample, 1 or 2
} FrameUnpack;

/**
 * Set up u for frames of pix_fmt at width x height holding depth-bit
 * samples (the decoder's depth; above the format's own only never).
 * @return 0, or -1 with one line in err naming the format when psnrhvs
 *         cannot use it as it is.
 */
int unpack_init(FrameUnpack *u, int pix_fmt, int depth, int width, int height, const char *name,
                char *err, size_t err_size);

/**
 * Write frame f into buf (u->geo.frame_bytes), planes back to back, native
 * byte order. @return 0, or -1 with the reason in err (another size or
 * format than the first frame, a bit set below a moved sample).
 */
int unpack_frame(const FrameUnpack *u, const struct AVFrame *f, uint8_t *buf, unsigned idx,
                 const char *name, char *err, size_t err_size);

/** Free a decoded frame kept on the GPU (an AVFrame reference). */
void ffmpeg_hold_free(void *hold);

#endif /* PSNRHVS_TOOLS_INPUT_FFMPEG_H */
