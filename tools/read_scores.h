/*
 * psnrhvs: score files read back for `psnrhvs report` and `psnrhvs batch`
 * (the layouts are the library's: psnrhvs_scores_parse).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_READ_SCORES_H
#define PSNRHVS_TOOLS_READ_SCORES_H

#include <stddef.h>

#include "psnrhvs.h"

/** Read and parse a file ("-": stdin). @return 0, or -1 with one line in err. */
int scores_read(PsnrHvsScoreSet *s, const char *path, char *err, size_t err_size);

/** psnrhvs_scores_parse() with its message in err. @return 0 or -1. */
int scores_parse(PsnrHvsScoreSet *s, const char *buf, size_t len, char *err, size_t err_size);

/** The frames of a scoring run (the keys it writes), without a file. @return 0 or -1 (no memory).
 */
int scores_from_output(PsnrHvsScoreSet *s, const PsnrHvsOutput *o);

/**
 * The shortest "%.*g" that reads back as v (15 to 17 digits), "inf", "-inf"
 * or "nan": a value read from a file written back without inventing digits.
 */
const char *shortest(char *buf, size_t size, double v);

#endif /* PSNRHVS_TOOLS_READ_SCORES_H */
