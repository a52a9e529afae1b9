/*
 * psnrhvs: libvmaf's JSON layout.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "output/output.h"

static const char *const raw_names[3] = {"raw_y", "raw_cb", "raw_cr"};

static int json_write(FILE *const f, const OutputData *const d) {
    char buf[NUMFMT_SIZE];
    fprintf(f, "{\n");
    fprintf(f, "  \"version\": \"%s\",\n", d->version);
    fprintf(f, "  \"fps\": %.2f,\n", d->fps);
    fprintf(f, "  \"frames\": [\n");
    for (size_t i = 0; i < d->num_frames; i++) {
        const OutputFrame *const fr = &d->frames[i];
        fprintf(f, "    {\n");
        fprintf(f, "      \"frameNum\": %u,\n", fr->frame_num);
        fprintf(f, "      \"metrics\": {\n");
        for (int k = 0; k < d->num_keys; k++)
            fprintf(
                f, "%s        \"%s\": %s", k ? ",\n" : "", psnrhvs_output_key_name(d->keys[k]),
                psnrhvs_numfmt(buf, psnrhvs_output_value(&fr->score, d->keys[k]), d->precision, 1));
        /* Hex floats are not JSON numbers: strings, which strtod() parses. */
        if (d->raw)
            for (int p = 0; p < d->num_planes; p++)
                fprintf(f, ",\n        \"%s\": \"%s\"", raw_names[p],
                        psnrhvs_rawfmt(buf, fr->score.raw[p]));
        fprintf(f, "\n      }\n");
        fprintf(f, "    }%s\n", i + 1 < d->num_frames ? "," : "");
    }
    fprintf(f, "  ],\n");
    fprintf(f, "  \"pooled_metrics\": {\n");
    for (int k = 0; k < d->num_keys; k++) {
        const OutputPool *const p = &d->pool[d->keys[k]];
        fprintf(f, "    \"%s\": {\n", psnrhvs_output_key_name(d->keys[k]));
        fprintf(f, "      \"min\": %s,\n", psnrhvs_numfmt(buf, p->min, d->precision, 1));
        fprintf(f, "      \"max\": %s,\n", psnrhvs_numfmt(buf, p->max, d->precision, 1));
        fprintf(f, "      \"mean\": %s,\n", psnrhvs_numfmt(buf, p->mean, d->precision, 1));
        fprintf(f, "      \"harmonic_mean\": %s\n",
                psnrhvs_numfmt(buf, p->harmonic_mean, d->precision, 1));
        fprintf(f, "    }%s\n", k + 1 < d->num_keys ? "," : "");
    }
    fprintf(f, "  },\n");
    fprintf(f, "  \"aggregate_metrics\": {\n");
    fprintf(f, "  }\n");
    fprintf(f, "}\n");
    return ferror(f) ? -1 : 0;
}

const Muxer psnrhvs_muxer_json = {.name = "json", .write = json_write};
