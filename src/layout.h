/*
 * psnrhvs: the pixel layouts (layout.c), the one home of their names, their
 * plane sizes and the 8x8 rule, for the file API (format.c) and the
 * scorers' frame geometry (frame.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_LAYOUT_H
#define PSNRHVS_SRC_LAYOUT_H

#include <stddef.h>

#include "psnrhvs.h"

/* Whose words a refusal is in: the front-ends' (the file API's, naming the
 * CLI's flags, which Python renames) or the settings' (psnrhvs_open's log). */
enum PshWords {
    PSH_WORDS_FLAGS,
    PSH_WORDS_SETTINGS,
};

/**
 * The 8x8 rule: psnr_hvs needs a block in every plane it scores, luma and,
 * with enable_chroma, chroma (libvmaf would give NaN). g is fmt's geometry.
 * @return 0, or -1 with the reason in msg.
 */
int psh_check_planes(const PsnrHvsFormat *fmt, const PsnrHvsGeometry *g, int enable_chroma,
                     enum PshWords words, char *msg, size_t size);

#endif /* PSNRHVS_SRC_LAYOUT_H */
