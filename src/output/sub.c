/*
 * psnrhvs: libvmaf's subtitle layout (--sub): one MicroDVD line per frame,
 * "{N}{N+1}frame: N|key: value|...", no header and no pooled values: written and read back.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <string.h>

#include "output/layout.h"

static void sub_write(Out *const out, const Sheet *const s) {
    char buf[NUMFMT_SIZE];
    for (size_t i = 0; i < s->o->num_frames; i++) {
        const PsnrHvsFrameScore *const fr = &s->o->frames[i];
        out_printf(out, "{%u}{%u}frame: %u|", fr->frame_num, fr->frame_num + 1, fr->frame_num);
        for (int k = 0; k < s->num_keys; k++)
            out_printf(out, "%s: %s|", psnrhvs_key_string(s->keys[k]),
                       numfmt(buf, psnrhvs_key_value(&fr->score, s->keys[k]), s->o->precision, 0));
        if (s->o->raw)
            for (int p = 0; p < s->o->num_planes; p++)
                out_printf(out, "%s: %s|", raw_names[p], rawfmt(buf, fr->score.raw[p]));
        out_printf(out, "\n");
    }
}

/* "{N}{N+1}frame: N|psnr_hvs_y: 31.2|...|" */
static int parse_sub(Parser *const ps) {
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
        double v[NUM_FIELDS];
        int have[NUM_FIELDS] = {0}, have_num = 0;
        while (p < end) {
            const char *const bar = memchr(p, '|', (size_t)(end - p));
            if (!bar) return reader_fail(ps, "sub line %u: an entry without its '|'", lineno);
            const char *const colon = memchr(p, ':', (size_t)(bar - p));
            if (!colon || colon + 1 >= bar || colon[1] != ' ')
                return reader_fail(ps, "sub line %u: expected 'name: value|'", lineno);
            const char *const val = colon + 2;
            const size_t vlen = (size_t)(bar - val);
            const int k = reader_field_of(p, (size_t)(colon - p));
            if ((size_t)(colon - p) == 5 && !memcmp(p, "frame", 5)) {
                if (reader_frame_num(val, vlen, &num) < 0)
                    return reader_fail(ps, "sub line %u: bad frame number", lineno);
                have_num = 1;
            } else if (k >= 0) {
                if (reader_number(val, vlen, &v[k]) < 0)
                    return reader_fail(ps, "sub line %u: bad %s value", lineno,
                                       reader_field_name(k));
                have[k] = 1;
            }
            p = bar + 1;
        }
        if (!have_num) return reader_fail(ps, "sub line %u: no frame number", lineno);
        if (reader_add_frame(ps, num, v, have) < 0) return -1;
    }
    return ps->failed ? -1 : 0;
}

const Layout layout_sub = {.name = "sub", .write = sub_write, .parse = parse_sub};
