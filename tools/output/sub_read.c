/*
 * psnrhvs: reading the sub layout back into a ScoreSet (tools/scores.c picks the
 * layout; tools/output/sub.c writes it).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "output/reader.h"

/* "{N}{N+1}frame: N|psnr_hvs_y: 31.2|...|" */
int parse_sub(Parser *const ps) {
    size_t cap = 0;
    const char *line = NULL;
    size_t len = 0;
    unsigned lineno = 0;
    while (reader_next_line(ps, &line, &len) > 0) {
        lineno++;
        if (!len) continue;
        const char *const end = line + len;
        const char *p = line;
        unsigned num = 0;
        for (int i = 0; i < 2; i++) {
            const char *const close =
                p < end && *p == '{' ? memchr(p, '}', (size_t)(end - p)) : NULL;
            if (!close || reader_frame_num(p + 1, (size_t)(close - p - 1), &num) < 0)
                return reader_fail(ps, "sub line %u: expected {N}{N+1}", lineno);
            p = close + 1;
        }
        double v[OUTPUT_NUM_KEYS];
        int have[OUTPUT_NUM_KEYS] = {0}, have_num = 0;
        while (p < end) {
            const char *const bar = memchr(p, '|', (size_t)(end - p));
            if (!bar) return reader_fail(ps, "sub line %u: an entry without its '|'", lineno);
            const char *const colon = memchr(p, ':', (size_t)(bar - p));
            if (!colon || colon + 1 >= bar || colon[1] != ' ')
                return reader_fail(ps, "sub line %u: expected 'name: value|'", lineno);
            const char *const val = colon + 2;
            const size_t vlen = (size_t)(bar - val);
            const int k = reader_key_of(p, (size_t)(colon - p));
            if ((size_t)(colon - p) == 5 && !memcmp(p, "frame", 5)) {
                if (reader_frame_num(val, vlen, &num) < 0)
                    return reader_fail(ps, "sub line %u: bad frame number", lineno);
                have_num = 1;
            } else if (k >= 0) {
                if (reader_number(val, vlen, &v[k]) < 0)
                    return reader_fail(ps, "sub line %u: bad %s value", lineno, output_key_name(k));
                have[k] = 1;
            }
            p = bar + 1;
        }
        if (!have_num) return reader_fail(ps, "sub line %u: no frame number", lineno);
        ScoreFrame *const f = reader_new_frame(ps, &cap, num);
        if (!f) return -1;
        for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
            if (have[k]) reader_set_value(ps->s, f, k, v[k]);
    }
    return ps->failed ? -1 : 0;
}
