/*
 * psnrhvs: pooling and the human summary (output files: outfile.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>

#include "output/output.h"

const char *psnrhvs_output_key_name(const enum OutputKey k) {
    static const char *const names[OUTPUT_NUM_KEYS] = {
        "psnr_hvs_y",
        "psnr_hvs_cb",
        "psnr_hvs_cr",
        "psnr_hvs",
    };
    return names[k];
}

double psnrhvs_output_value(const PsnrHvsScore *const s, const enum OutputKey k) {
    switch (k) {
    case OUTPUT_KEY_Y:
        return s->psnr_hvs_y;
    case OUTPUT_KEY_CB:
        return s->psnr_hvs_cb;
    case OUTPUT_KEY_CR:
        return s->psnr_hvs_cr;
    default:
        return s->psnr_hvs;
    }
}

void psnrhvs_output_pool(OutputData *const d) {
    d->num_keys = 0;
    d->keys[d->num_keys++] = OUTPUT_KEY_Y;
    if (d->num_planes == 3) {
        d->keys[d->num_keys++] = OUTPUT_KEY_CB;
        d->keys[d->num_keys++] = OUTPUT_KEY_CR;
    }
    d->keys[d->num_keys++] = OUTPUT_KEY_COMBINED;

    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) {
        OutputPool *const pool = &d->pool[k];
        if (!d->num_frames) {
            *pool = (OutputPool){NAN, NAN, NAN, NAN};
            continue;
        }
        /* libvmaf's order: plain double sums in frame order, no compensation. */
        double sum = 0.0, inv_sum = 0.0;
        pool->min = pool->max = psnrhvs_output_value(&d->frames[0].score, k);
        for (size_t i = 0; i < d->num_frames; i++) {
            const double v = psnrhvs_output_value(&d->frames[i].score, k);
            if (v < pool->min) pool->min = v;
            if (v > pool->max) pool->max = v;
            sum += v;
            inv_sum += 1.0 / (v + 1.0);
        }
        const double n = (double)d->num_frames;
        pool->mean = sum / n;
        pool->harmonic_mean = n / inv_sum - 1.0;
    }
}

int psnrhvs_output_summary(FILE *const f, const OutputData *const d) {
    char a[NUMFMT_SIZE], b[NUMFMT_SIZE], c[NUMFMT_SIZE], e[NUMFMT_SIZE];
    fprintf(f, "%zu frame%s, %dx%d%s%s\n", d->num_frames, d->num_frames == 1 ? "" : "s", d->width,
            d->height, d->engine ? ", " : "", d->engine ? d->engine : "");
    for (int i = 0; i < d->num_keys; i++) {
        const OutputPool *const p = &d->pool[d->keys[i]];
        fprintf(f, "%-12s mean %s  min %s  max %s  harmonic_mean %s\n",
                psnrhvs_output_key_name(d->keys[i]), psnrhvs_numfmt(a, p->mean, d->precision, 0),
                psnrhvs_numfmt(b, p->min, d->precision, 0),
                psnrhvs_numfmt(c, p->max, d->precision, 0),
                psnrhvs_numfmt(e, p->harmonic_mean, d->precision, 0));
    }
    return ferror(f) ? -1 : 0;
}
