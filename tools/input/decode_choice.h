/*
 * psnrhvs: FFmpeg builds only: NVDEC or the CPU for a compressed input
 * (--hwaccel), and its length as the container tells it.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_DECODE_CHOICE_H
#define PSNRHVS_TOOLS_INPUT_DECODE_CHOICE_H

#include <stddef.h>

#include "input/input.h"

struct AVFormatContext;

/** Frames of the stream, from the container's count or its duration; -1 unknown. */
long long decode_frames_estimate(const struct AVFormatContext *fc, int stream);

/**
 * Whether the video stream `stream` is decoded on NVDEC: --hwaccel cuda
 * always, none never, auto where that makes the run faster; why (for
 * --timing) says what decided.
 */
int decode_on_nvdec(const struct AVFormatContext *fc, int stream, const InputOptions *opt,
                    char *why, size_t size);

#endif /* PSNRHVS_TOOLS_INPUT_DECODE_CHOICE_H */
