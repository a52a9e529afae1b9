/*
 * psnrhvs: the explicit conversions of an input: a bit-depth shift
 * (--common_bitdepth) and a scale to another size (--scale, libswscale).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_CONVERT_H
#define PSNRHVS_TOOLS_INPUT_CONVERT_H

#include <stddef.h>

#include "input/input.h"

/** --scale algorithms: libswscale's names (ffmpeg's -sws_flags); codes are index + 1. */
int scale_algo(const char *name);

/** The name of a --scale code (bicubic for PSNRHVS_SCALE_DEFAULT). */
const char *scale_algo_name(int algo);

/** "bicubic, bilinear, ..." for messages. */
const char *scale_algo_list(void);

/** 1 when --scale works in this build (libswscale linked). */
int scale_available(void);

#define PSNRHVS_SCALE_DEFAULT 1 /* bicubic, as in common practice (and ffmpeg's scale filter) */

typedef struct Converter Converter;

/**
 * Convert pictures of format in to format out (same layout; out's depth at
 * least in's; another size needs algo). @return 0 or -1 with the reason in err.
 */
int converter_open(Converter **c, const InputFormat *in, const InputFormat *out, int algo,
                   char *err, size_t err_size);

/** Write the converted src into the planes of dst (as input_frame_alloc lays them out). */
int converter_run(Converter *c, const PsnrHvsPicture *src, const PsnrHvsPicture *dst);

void converter_close(Converter **c);

#endif /* PSNRHVS_TOOLS_INPUT_CONVERT_H */
