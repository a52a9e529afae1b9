/*
 * psnrhvs: the format scored (size, layout, depth) from the inputs' own
 * descriptions (Y4M headers, decoded streams) and the command line's flags.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_SCORE_AGREE_FORMAT_H
#define PSNRHVS_TOOLS_SCORE_AGREE_FORMAT_H

#include "cli_parse.h"
#include "input/input.h"

/**
 * The format scored (out) and the formats read (rf, df): they differ only
 * where --scale (the distorted, to the reference size) or --common_bitdepth
 * (the lower depth, shifted up) asks.
 * @return 0, 1 (input error, reported) or 2 (usage error, reported)
 */
int format_resolve(const CLISettings *cli, Input *ref, Input *dist, InputFormat *out,
                   InputFormat *rf_out, InputFormat *df_out);

/** psnr_hvs has no block in a plane under 8x8. @return 0 or -1 (reported). */
int format_check_planes(const InputFormat *fmt, int enable_chroma);

int format_same(const InputFormat *a, const InputFormat *b);

#endif /* PSNRHVS_TOOLS_SCORE_AGREE_FORMAT_H */
