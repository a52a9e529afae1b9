/*
 * psnrhvs: libvmaf's subtitle layout (--sub): one MicroDVD line per frame,
 * "{N}{N+1}frame: N|key: value|...", no header and no pooled values.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "output/output.h"

static const char *const raw_names[3] = {"raw_y", "raw_cb", "raw_cr"};

static int sub_write(FILE *const f, const OutputData *const d) {
    char buf[NUMFMT_SIZE];
    for (size_t i = 0; i < d->num_frames; i++) {
        const OutputFrame *const fr = &d->frames[i];
        fprintf(f, "{%u}{%u}frame: %u|", fr->frame_num, fr->frame_num + 1, fr->frame_num);
        for (int k = 0; k < d->num_keys; k++)
            fprintf(f, "%s: %s|", output_key_name(d->keys[k]),
                    numfmt(buf, output_value(&fr->score, d->keys[k]), d->precision, 0));
        if (d->raw)
            for (int p = 0; p < d->num_planes; p++)
                fprintf(f, "%s: %s|", raw_names[p], rawfmt(buf, fr->score.raw[p]));
        fprintf(f, "\n");
    }
    return ferror(f) ? -1 : 0;
}

const Muxer muxer_sub = {.name = "sub", .write = sub_write};
