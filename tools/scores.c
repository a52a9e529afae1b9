/*
 * psnrhvs: reading score files back. A small pull parser per layout
 * (tools/output/{xml,json,csv,sub}_read.c, next to the writers): nothing but
 * the psnr_hvs keys is kept, so a long title's file costs its frames only.
 * Here: the layout told from the content, and what follows any of them.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/reader.h"
#include "scores.h"
#include "readfile.h"

const char *scores_format_name(const enum ScoreFormat f) {
    switch (f) {
    case SCORES_XML:
        return "xml";
    case SCORES_JSON:
        return "json";
    case SCORES_CSV:
        return "csv";
    case SCORES_SUB:
        return "sub";
    }
    return "?";
}

const char *shortest(char *const buf, const size_t size, const double v) {
    if (isnan(v)) return snprintf(buf, size, "nan"), buf;
    if (isinf(v)) return snprintf(buf, size, v > 0 ? "inf" : "-inf"), buf;
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

int scores_pool_key(const ScoreSet *const s, const enum OutputKey k, PsnrHvsPool *const out) {
    size_t n = 0;
    for (size_t i = 0; i < s->num_frames; i++) n += s->frames[i].has[k] != 0;
    if (n == s->num_frames) {
        psnrhvs_pool(n ? &s->frames[0].v[k] : NULL, n, sizeof(s->frames[0]), out);
        return 0;
    }
    /* Some frames lack the key: those that have it, gathered. */
    double *const v = malloc(n * sizeof(*v) + 1);
    if (!v) return -1;
    n = 0;
    for (size_t i = 0; i < s->num_frames; i++)
        if (s->frames[i].has[k]) v[n++] = s->frames[i].v[k];
    psnrhvs_pool(v, n, 0, out);
    free(v);
    return 0;
}

int scores_parse(ScoreSet *const s, const char *const buf, const size_t len, char *const err,
                 const size_t err_size) {
    memset(s, 0, sizeof(*s));
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) s->pool[k] = (PsnrHvsPool){NAN, NAN, NAN, NAN};
    Parser ps = {.p = buf, .end = buf + len, .s = s, .err = err, .err_size = err_size};
    const char *q = buf;
    if (len >= 3 && !memcmp(q, "\xef\xbb\xbf", 3)) q += 3, ps.p = q; /* a BOM */
    while (q < ps.end && reader_is_space(*q)) q++;
    int res;
    if (q == ps.end) {
        res = reader_fail(&ps, "an empty file");
    } else if (*q == '<') {
        s->format = SCORES_XML;
        res = parse_xml(&ps);
    } else if (*q == '{') {
        const char *r = q + 1;
        while (r < ps.end && reader_is_space(*r)) r++;
        if (r < ps.end && *r >= '0' && *r <= '9') {
            s->format = SCORES_SUB;
            res = parse_sub(&ps);
        } else {
            s->format = SCORES_JSON;
            res = parse_json(&ps);
        }
    } else if ((size_t)(ps.end - q) >= 6 && !memcmp(q, "Frame,", 6)) {
        s->format = SCORES_CSV;
        res = parse_csv(&ps);
    } else {
        res = reader_fail(&ps, "not a score file (libvmaf's XML, JSON, CSV or sub layout)");
    }
    if (!res && !s->num_frames) res = reader_fail(&ps, "no frames");
    int any = 0;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) any |= s->has_key[k];
    if (!res && !any) res = reader_fail(&ps, "no psnr_hvs scores (psnr_hvs, psnr_hvs_y, ...)");
    if (res) {
        scores_free(s);
        return -1;
    }
    s->num_planes = s->has_key[OUTPUT_KEY_CB] || s->has_key[OUTPUT_KEY_CR] ? 3 : 1;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
        if (s->has_key[k] && (!s->pooled_in_file || isnan(s->pool[k].mean)) &&
            scores_pool_key(s, (enum OutputKey)k, &s->pool[k]) < 0) {
            reader_fail(&ps, "out of memory");
            scores_free(s);
            return -1;
        }
    return 0;
}

int scores_read(ScoreSet *const s, const char *const path, char *const err, const size_t err_size) {
    memset(s, 0, sizeof(*s));
    char *buf;
    size_t len;
    if (cli_read_file(path, &buf, &len, err, err_size) < 0) return -1;
    char msg[400];
    const int res = scores_parse(s, buf, len, msg, sizeof(msg));
    free(buf);
    if (res < 0) snprintf(err, err_size, "%s: %s", path, msg);
    return res;
}

int scores_from_output(ScoreSet *const s, const OutputData *const d) {
    memset(s, 0, sizeof(*s));
    s->format = SCORES_XML;
    s->frames = malloc((d->num_frames ? d->num_frames : 1) * sizeof(*s->frames));
    if (!s->frames) return -1;
    s->num_frames = d->num_frames;
    for (size_t i = 0; i < d->num_frames; i++) {
        ScoreFrame *const f = &s->frames[i];
        f->num = d->frames[i].frame_num;
        for (int k = 0; k < OUTPUT_NUM_KEYS; k++) f->v[k] = NAN, f->has[k] = 0;
        for (int k = 0; k < d->num_keys; k++)
            reader_set_value(s, f, d->keys[k], output_value(&d->frames[i].score, d->keys[k]));
    }
    s->num_planes = d->num_planes;
    s->width = d->width;
    s->height = d->height;
    s->pooled_in_file = 1;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) s->pool[k] = d->pool[k];
    return 0;
}

void scores_free(ScoreSet *const s) {
    free(s->frames);
    s->frames = NULL;
    s->num_frames = 0;
}
