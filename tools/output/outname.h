/*
 * psnrhvs: where each rendition of a ladder (several -d) writes.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_OUTPUT_OUTNAME_H
#define PSNRHVS_TOOLS_OUTPUT_OUTNAME_H

#include <stddef.h>

/**
 * The output path of rendition idx (its input's path dist) from -o spec:
 * - a folder (an existing one, or spec ending in '/'): DIR/<base>.<ext>, base
 *   the file name of dist without its extension ("stdin" for "-");
 * - a pattern: "%s" is base, "%d" idx, "%%" a '%'.
 * @return 0, or -1 with a one-line reason in err (a plain file name, stdout,
 *         an unknown "%" sequence).
 */
int output_name(char *out, size_t size, const char *spec, const char *dist, int idx,
                const char *ext, char *err, size_t err_size);

#endif /* PSNRHVS_TOOLS_OUTPUT_OUTNAME_H */
