/*
 * psnrhvs: pooling and the human summary (output files: outfile.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>

#include "output/output.h"

const char *output_key_name(const enum OutputKey k) {
    static const char *const names[OUTPUT_NUM_KEYS] = {
        "psnr_hvs_y",
        "psnr_hvs_cb",
        "psnr_hvs_cr",
        "psnr_hvs",
    };
    return names[k];
}

/* Key k's field of a score: pooled in place over an array of frames. */
static const double *key_field(const PsnrHvsScore *const s, const enum OutputKey k) {
    switch (k) {
    case OUTPUT_KEY_Y:
        return &s->psnr_hvs_y;
    case OUTPUT_KEY_CB:
        return &s->psnr_hvs_cb;
    case OUTPUT_KEY_CR:
        return &s->psnr_hvs_cr;
    default:
        return &s->psnr_hvs;
    }
}

double output_value(const PsnrHvsScore *const s, const enum OutputKey k) {
    return *key_field(s, k);
}

void output_pool(OutputData *const d) {
    d->num_keys = 0;
    d->keys[d->num_keys++] = OUTPUT_KEY_Y;
    if (d->num_planes == 3) {
        d->keys[d->num_keys++] = OUTPUT_KEY_CB;
        d->keys[d->num_keys++] = OUTPUT_KEY_CR;
    }
    d->keys[d->num_keys++] = OUTPUT_KEY_COMBINED;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
        psnrhvs_pool(d->num_frames ? key_field(&d->frames[0].score, (enum OutputKey)k) : NULL,
                     d->num_frames, sizeof(d->frames[0]), &d->pool[k]);
}

int output_summary(FILE *const f, const OutputData *const d) {
    char a[NUMFMT_SIZE], b[NUMFMT_SIZE], c[NUMFMT_SIZE], e[NUMFMT_SIZE];
    fprintf(f, "%zu frame%s, %dx%d%s%s\n", d->num_frames, d->num_frames == 1 ? "" : "s", d->width,
            d->height, d->engine ? ", " : "", d->engine ? d->engine : "");
    for (int i = 0; i < d->num_keys; i++) {
        const PsnrHvsPool *const p = &d->pool[d->keys[i]];
        fprintf(f, "%-12s mean %s  min %s  max %s  harmonic_mean %s\n", output_key_name(d->keys[i]),
                numfmt(a, p->mean, d->precision, 0), numfmt(b, p->min, d->precision, 0),
                numfmt(c, p->max, d->precision, 0), numfmt(e, p->harmonic_mean, d->precision, 0));
    }
    return ferror(f) ? -1 : 0;
}
