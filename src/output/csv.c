/*
 * psnrhvs: libvmaf's CSV layout (per-frame rows, each ending with a comma): written and read back.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <string.h>

#include "output/layout.h"

static void csv_write(Out *const out, const Sheet *const s) {
    char buf[NUMFMT_SIZE];
    out_printf(out, "Frame,");
    for (int k = 0; k < s->num_keys; k++) out_printf(out, "%s,", psnrhvs_key_string(s->keys[k]));
    if (s->o->raw)
        for (int p = 0; p < s->o->num_planes; p++) out_printf(out, "%s,", raw_names[p]);
    out_printf(out, "\n");
    for (size_t i = 0; i < s->o->num_frames; i++) {
        const PsnrHvsFrameScore *const fr = &s->o->frames[i];
        out_printf(out, "%u,", fr->frame_num);
        for (int k = 0; k < s->num_keys; k++)
            out_printf(out, "%s,",
                       numfmt(buf, psnrhvs_key_value(&fr->score, s->keys[k]), s->o->precision, 0));
        if (s->o->raw)
            for (int p = 0; p < s->o->num_planes; p++)
                out_printf(out, "%s,", rawfmt(buf, fr->score.raw[p]));
        out_printf(out, "\n");
    }
}

/* libvmaf's: a header row, every row ending with ','. */

#define CSV_MAX_COLUMNS 256

static int parse_csv(Parser *const ps) {
    const char *line = NULL;
    size_t len = 0;
    if (reader_next_line(ps, &line, &len) <= 0)
        return ps->failed ? -1 : reader_fail(ps, "an empty CSV file");
    int col_key[CSV_MAX_COLUMNS], ncols = 0;
    for (size_t i = 0; i <= len;) {
        const char *const f = line + i;
        const char *const comma = memchr(f, ',', len - i);
        const size_t flen = comma ? (size_t)(comma - f) : len - i;
        if (!comma && !flen) break; /* libvmaf's trailing comma */
        if (ncols == CSV_MAX_COLUMNS) return reader_fail(ps, "too many CSV columns");
        col_key[ncols] = ncols == 0 ? -2 : reader_field_of(f, flen);
        ncols++;
        i += flen + 1;
    }
    if (!ncols || len < 5 || memcmp(line, "Frame", 5) || col_key[0] != -2)
        return reader_fail(ps, "not libvmaf's CSV: the header does not start with Frame");
    unsigned row = 1;
    while (reader_next_line(ps, &line, &len) > 0) {
        row++;
        if (!len) continue;
        double v[NUM_FIELDS];
        int have[NUM_FIELDS] = {0}, col = 0;
        unsigned num = 0;
        for (size_t i = 0; i <= len && col < ncols; col++) {
            const char *const f = line + i;
            const char *const comma = memchr(f, ',', len - i);
            const size_t flen = comma ? (size_t)(comma - f) : len - i;
            if (col == 0) {
                if (reader_frame_num(f, flen, &num) < 0)
                    return reader_fail(ps, "CSV row %u: bad frame number '%.*s'", row,
                                       (int)(flen > 20 ? 20 : flen), f);
            } else if (col_key[col] >= 0) {
                if (reader_number(f, flen, &v[col_key[col]]) < 0)
                    return reader_fail(ps, "CSV row %u: bad %s value '%.*s'", row,
                                       reader_field_name(col_key[col]),
                                       (int)(flen > 40 ? 40 : flen), f);
                have[col_key[col]] = 1;
            }
            i += flen + 1;
        }
        if (col < ncols) return reader_fail(ps, "CSV row %u: %d of %d columns", row, col, ncols);
        if (reader_add_frame(ps, num, v, have) < 0) return -1;
    }
    return ps->failed ? -1 : 0;
}

const Layout layout_csv = {.name = "csv", .write = csv_write, .parse = parse_csv};
