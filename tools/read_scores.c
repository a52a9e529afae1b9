/*
 * psnrhvs: score files read back (report, batch).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"
#include "read_scores.h"

const char *shortest(char *const buf, const size_t size, const double v) {
    if (isnan(v)) return snprintf(buf, size, "nan"), buf;
    if (isinf(v)) return snprintf(buf, size, v > 0 ? "inf" : "-inf"), buf;
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

int scores_parse(PsnrHvsScoreSet *const s, const char *const buf, const size_t len, char *const err,
                 const size_t err_size) {
    PsnrHvsFileStatus *const st = malloc(sizeof(*st));
    if (!st) return snprintf(err, err_size, "out of memory"), -1;
    const int res = psnrhvs_scores_parse(s, buf, len, st);
    if (res < 0) snprintf(err, err_size, "%.511s", st->message);
    free(st);
    return res < 0 ? -1 : 0;
}

int scores_read(PsnrHvsScoreSet *const s, const char *const path, char *const err,
                const size_t err_size) {
    memset(s, 0, sizeof(*s));
    char *buf;
    size_t len;
    if (cli_read_file(path, &buf, &len, err, err_size) < 0) return -1;
    char msg[600];
    const int res = scores_parse(s, buf, len, msg, sizeof(msg));
    free(buf);
    if (res < 0) snprintf(err, err_size, "%s: %s", path, msg);
    return res;
}

int scores_from_output(PsnrHvsScoreSet *const s, const PsnrHvsOutput *const o) {
    memset(s, 0, sizeof(*s));
    s->frames = malloc((o->num_frames ? o->num_frames : 1) * sizeof(*s->frames));
    if (!s->frames) return -1;
    s->num_frames = o->num_frames;
    s->num_planes = o->num_planes;
    s->width = o->width;
    s->height = o->height;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++)
        s->has_key[k] = o->num_planes == 3 || k == PSNRHVS_KEY_Y || k == PSNRHVS_KEY_COMBINED;
    for (size_t i = 0; i < o->num_frames; i++) {
        PsnrHvsScoreRow *const f = &s->frames[i];
        memset(f, 0, sizeof(*f));
        f->frame_num = o->frames[i].frame_num;
        for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
            f->has[k] = (unsigned char)s->has_key[k];
            f->value[k] = f->has[k] ? psnrhvs_key_value(&o->frames[i].score, k) : NAN;
        }
        for (int p = 0; p < 3; p++) {
            f->has_raw[p] = p < o->num_planes;
            f->raw[p] = f->has_raw[p] ? o->frames[i].score.raw[p] : NAN;
        }
    }
    s->pooled_in_file = 1;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
        s->pool[k] = (PsnrHvsPool){NAN, NAN, NAN, NAN};
        if (s->has_key[k] && psnrhvs_scores_pool_key(s, k, &s->pool[k]) < 0) {
            psnrhvs_scores_free(s);
            return -1;
        }
    }
    return 0;
}
