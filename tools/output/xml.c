/*
 * psnrhvs: libvmaf's XML layout.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "output/output.h"

static const char *const raw_names[3] = {"raw_y", "raw_cb", "raw_cr"};

static int xml_write(FILE *const f, const OutputData *const d) {
    char buf[NUMFMT_SIZE];
    fprintf(f, "<VMAF version=\"%s\">\n", d->version);
    fprintf(f, "  <params qualityWidth=\"%d\" qualityHeight=\"%d\" />\n", d->width, d->height);
    fprintf(f, "  <fyi fps=\"%.2f\" />\n", d->fps);
    fprintf(f, "  <frames>\n");
    for (size_t i = 0; i < d->num_frames; i++) {
        const OutputFrame *const fr = &d->frames[i];
        fprintf(f, "    <frame frameNum=\"%u\"", fr->frame_num);
        for (int k = 0; k < d->num_keys; k++)
            fprintf(f, " %s=\"%s\"", output_key_name(d->keys[k]),
                    numfmt(buf, output_value(&fr->score, d->keys[k]), d->precision, 0));
        if (d->raw)
            for (int p = 0; p < d->num_planes; p++)
                fprintf(f, " %s=\"%s\"", raw_names[p], rawfmt(buf, fr->score.raw[p]));
        fprintf(f, " />\n");
    }
    fprintf(f, "  </frames>\n");
    fprintf(f, "  <pooled_metrics>\n");
    for (int k = 0; k < d->num_keys; k++) {
        const PsnrHvsPool *const p = &d->pool[d->keys[k]];
        fprintf(f, "    <metric name=\"%s\"", output_key_name(d->keys[k]));
        fprintf(f, " min=\"%s\"", numfmt(buf, p->min, d->precision, 0));
        fprintf(f, " max=\"%s\"", numfmt(buf, p->max, d->precision, 0));
        fprintf(f, " mean=\"%s\"", numfmt(buf, p->mean, d->precision, 0));
        fprintf(f, " harmonic_mean=\"%s\"", numfmt(buf, p->harmonic_mean, d->precision, 0));
        fprintf(f, " />\n");
    }
    fprintf(f, "  </pooled_metrics>\n");
    fprintf(f, "  <aggregate_metrics />\n");
    fprintf(f, "</VMAF>\n");
    return ferror(f) ? -1 : 0;
}

const Muxer muxer_xml = {.name = "xml", .write = xml_write};
