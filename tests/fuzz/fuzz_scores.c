/*
 * Fuzz target: arbitrary bytes as a score file (libvmaf's XML, JSON, CSV, or
 * psnrhvs's sub) through the reader of psnrhvs report and batch (the library's),
 * then the pooled values of every key it found.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "read_scores.h"

const char fuzz_target_name[] = "scores";

#define broken fuzz_broken

void fuzz_target_run(const uint8_t *const data, const size_t size, FuzzOutcome *const r) {
    memset(r, 0, sizeof(*r));
    PsnrHvsScoreSet s;
    if (scores_parse(&s, (const char *)data, size, r->err, sizeof(r->err)) < 0) {
        if (!r->err[0]) broken("file rejected without a message", r);
        return;
    }
    r->opened = 1;
    r->frames = (int)(s.num_frames < 1000000 ? s.num_frames : 1000000);
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
        PsnrHvsPool p;
        if (psnrhvs_scores_pool_key(&s, (enum PsnrHvsKey)k, &p) < 0) continue; /* no memory */
        /* A pooled minimum above the maximum is a broken pooling. */
        if (p.min > p.max) broken("pooled min above max", r);
    }
    psnrhvs_scores_free(&s);
}
