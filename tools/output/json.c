/*
 * psnrhvs: libvmaf's JSON layout.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>

#include "output/output.h"

static const char *const raw_names[3] = {"raw_y", "raw_cb", "raw_cr"};

static int json_write(FILE *const f, const OutputData *const d) {
    char buf[NUMFMT_SIZE];
    fprintf(f, "{\n");
    fprintf(f, "  \"version\": \"%s\",\n", d->version);
    if (isfinite(d->fps))
        fprintf(f, "  \"fps\": %.2f,\n", d->fps);
    else
        fprintf(f, "  \"fps\": null,\n"); /* as libvmaf */
    fprintf(f, "  \"frames\": [\n");
    for (size_t i = 0; i < d->num_frames; i++) {
        const OutputFrame *const fr = &d->frames[i];
        fprintf(f, "    {\n");
        fprintf(f, "      \"frameNum\": %u,\n", fr->frame_num);
        fprintf(f, "      \"metrics\": {\n");
        const int entries = d->num_keys + (d->raw ? d->num_planes : 0);
        for (int k = 0; k < d->num_keys; k++) {
            const double v = output_value(&fr->score, d->keys[k]);
            const char *const sep = k + 1 < entries ? "," : "";
            /* libvmaf ends a null entry without a newline, so the nulls of an
             * identical frame share one line: the same bytes here. */
            fprintf(f, "        \"%s\": %s%s%s", output_key_name(d->keys[k]),
                    numfmt(buf, v, d->precision, 1), sep, isfinite(v) ? "\n" : "");
        }
        /* Hex floats are not JSON numbers: strings, which strtod() parses. */
        if (d->raw)
            for (int p = 0; p < d->num_planes; p++)
                fprintf(f, "        \"%s\": \"%s\"%s\n", raw_names[p],
                        rawfmt(buf, fr->score.raw[p]), d->num_keys + p + 1 < entries ? "," : "");
        fprintf(f, "      }\n");
        fprintf(f, "    }%s\n", i + 1 < d->num_frames ? "," : "");
    }
    fprintf(f, "  ],\n");
    fprintf(f, "  \"pooled_metrics\": {\n");
    for (int k = 0; k < d->num_keys; k++) {
        const PsnrHvsPool *const p = &d->pool[d->keys[k]];
        fprintf(f, "    \"%s\": {\n", output_key_name(d->keys[k]));
        fprintf(f, "      \"min\": %s,\n", numfmt(buf, p->min, d->precision, 1));
        fprintf(f, "      \"max\": %s,\n", numfmt(buf, p->max, d->precision, 1));
        fprintf(f, "      \"mean\": %s,\n", numfmt(buf, p->mean, d->precision, 1));
        fprintf(f, "      \"harmonic_mean\": %s\n", numfmt(buf, p->harmonic_mean, d->precision, 1));
        fprintf(f, "    }%s\n", k + 1 < d->num_keys ? "," : "");
    }
    fprintf(f, "  },\n");
    fprintf(f, "  \"aggregate_metrics\": {\n");
    fprintf(f, "  }\n");
    fprintf(f, "}\n");
    return ferror(f) ? -1 : 0;
}

const Muxer muxer_json = {.name = "json", .write = json_write};
