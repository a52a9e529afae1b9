/*
 * psnrhvs: libvmaf's CSV layout (per-frame rows, each ending with a comma).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "output/output.h"

static const char *const raw_names[3] = {"raw_y", "raw_cb", "raw_cr"};

static int csv_write(FILE *const f, const OutputData *const d) {
    char buf[NUMFMT_SIZE];
    fprintf(f, "Frame,");
    for (int k = 0; k < d->num_keys; k++) fprintf(f, "%s,", output_key_name(d->keys[k]));
    if (d->raw)
        for (int p = 0; p < d->num_planes; p++) fprintf(f, "%s,", raw_names[p]);
    fprintf(f, "\n");
    for (size_t i = 0; i < d->num_frames; i++) {
        const OutputFrame *const fr = &d->frames[i];
        fprintf(f, "%u,", fr->frame_num);
        for (int k = 0; k < d->num_keys; k++)
            fprintf(f, "%s,", numfmt(buf, output_value(&fr->score, d->keys[k]), d->precision, 0));
        if (d->raw)
            for (int p = 0; p < d->num_planes; p++)
                fprintf(f, "%s,", rawfmt(buf, fr->score.raw[p]));
        fprintf(f, "\n");
    }
    return ferror(f) ? -1 : 0;
}

const Muxer muxer_csv = {.name = "csv", .write = csv_write};
