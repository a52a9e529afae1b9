/*
 * psnrhvs: FFmpeg builds only: what input/ffmpeg.c shares with the rest of
 * the input library.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_FFMPEG_H
#define PSNRHVS_TOOLS_INPUT_FFMPEG_H

#include <stddef.h>

/**
 * Route FFmpeg's log through psnrhvs (once per process): while an input is
 * opened its errors are kept for the one error line; later ones are printed
 * as "psnrhvs: ffmpeg: ..." (damaged streams), unless quiet.
 */
void psnrhvs_ffmpeg_log_init(void);

/** Copy FFmpeg's last error message (empty if none) into buf. */
void psnrhvs_ffmpeg_last_error(char *buf, size_t size);

#endif /* PSNRHVS_TOOLS_INPUT_FFMPEG_H */
