/*
 * psnrhvs: what the score file readers share (tools/output/reader.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "output/reader.h"

int reader_fail(Parser *const ps, const char *const fmt, ...) {
    if (ps->failed) return -1;
    ps->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* one line whatever the file quoted: a line break shows as "\n" */
    visible(ps->err, ps->err_size, msg);
    return -1;
}

int reader_key_of(const char *const name, const size_t len) {
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) {
        const char *const kn = output_key_name((enum OutputKey)k);
        if (strlen(kn) == len && !memcmp(kn, name, len)) return k;
    }
    return -1;
}

ScoreFrame *reader_new_frame(Parser *const ps, size_t *const cap, const unsigned num) {
    ScoreSet *const s = ps->s;
    if (s->num_frames == *cap) {
        const size_t n = *cap ? *cap * 2 : 256;
        ScoreFrame *const f = realloc(s->frames, n * sizeof(*f));
        if (!f) return reader_fail(ps, "out of memory"), NULL;
        s->frames = f;
        *cap = n;
    }
    ScoreFrame *const f = &s->frames[s->num_frames++];
    f->num = num;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) f->v[k] = NAN, f->has[k] = 0;
    return f;
}

/* A whole number, as in frameNum="12" or "frameNum": 12. */
int reader_frame_num(const char *const text, const size_t len, unsigned *const out) {
    unsigned long long v = 0;
    if (!len || len > 10) return -1;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') return -1;
        v = v * 10 + (unsigned)(text[i] - '0');
    }
    if (v > 0xffffffffull) return -1;
    *out = (unsigned)v;
    return 0;
}

/* A number as the writers print it (%.6f, %.17g, inf, -inf, nan, -nan): all of the text. */
int reader_number(const char *const text, const size_t len, double *const out) {
    char buf[512];
    if (!len || len >= sizeof(buf)) return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    const double v = strtod(buf, &end);
    if (end != buf + len || (errno == ERANGE && isfinite(v) && v != 0)) return -1;
    *out = v;
    return 0;
}

/* One line at a time, without its \n (or \r\n): CSV and sub. */
int reader_next_line(Parser *const ps, const char **const line, size_t *const len) {
    if (ps->p >= ps->end) return 0;
    const char *const nl = memchr(ps->p, '\n', reader_left(ps));
    if (!nl) return reader_fail(ps, "the last line has no end (a file cut short?)");
    *line = ps->p;
    *len = (size_t)(nl - ps->p);
    if (*len && (*line)[*len - 1] == '\r') (*len)--;
    ps->p = nl + 1;
    return 1;
}
