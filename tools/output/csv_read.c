/*
 * psnrhvs: reading libvmaf's CSV back into a ScoreSet (tools/scores.c picks the
 * layout; tools/output/csv.c writes it).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "output/reader.h"

/* libvmaf's: a header row, every row ending with ','. */

#define CSV_MAX_COLUMNS 256

int parse_csv(Parser *const ps) {
    size_t cap = 0;
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
        col_key[ncols] = ncols == 0 ? -2 : reader_key_of(f, flen);
        ncols++;
        i += flen + 1;
    }
    if (!ncols || len < 5 || memcmp(line, "Frame", 5) || col_key[0] != -2)
        return reader_fail(ps, "not libvmaf's CSV: the header does not start with Frame");
    unsigned row = 1;
    while (reader_next_line(ps, &line, &len) > 0) {
        row++;
        if (!len) continue;
        double v[OUTPUT_NUM_KEYS];
        int have[OUTPUT_NUM_KEYS] = {0}, col = 0;
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
                                       output_key_name(col_key[col]), (int)(flen > 40 ? 40 : flen),
                                       f);
                have[col_key[col]] = 1;
            }
            i += flen + 1;
        }
        if (col < ncols) return reader_fail(ps, "CSV row %u: %d of %d columns", row, col, ncols);
        ScoreFrame *const f = reader_new_frame(ps, &cap, num);
        if (!f) return -1;
        for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
            if (have[k]) reader_set_value(ps->s, f, k, v[k]);
    }
    return ps->failed ? -1 : 0;
}
