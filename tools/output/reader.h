/*
 * psnrhvs: private to the score file readers (tools/scores.c and
 * tools/output/{xml,json,csv,sub}_read.c): the parser's state and what the
 * layouts share. The readers are files of their own beside the writers so
 * that the psnrhvs_output library stays write-only, without ScoreSet or the
 * input library.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_OUTPUT_READER_H
#define PSNRHVS_TOOLS_OUTPUT_READER_H

#include <stddef.h>

#include "scores.h"

typedef struct Parser {
    const char *p, *end;
    ScoreSet *s;
    char *err;
    size_t err_size;
    int failed;
} Parser;

/* The first error only, as one line in ps->err. @return -1 */
#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
int reader_fail(Parser *ps, const char *fmt, ...);

/* Bytes left to parse (never negative: GCC cannot tell otherwise). */
static inline size_t reader_left(const Parser *const ps) {
    return ps->p < ps->end ? (size_t)(ps->end - ps->p) : 0;
}

static inline int reader_is_space(const char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static inline void reader_set_value(ScoreSet *const s, ScoreFrame *const f, const int k,
                                    const double v) {
    f->v[k] = v;
    f->has[k] = 1;
    s->has_key[k] = 1;
}

/* The OutputKey named by name[0..len), or -1. */
int reader_key_of(const char *name, size_t len);

/* A frame appended to ps->s, all keys absent; NULL (failed) without memory. */
ScoreFrame *reader_new_frame(Parser *ps, size_t *cap, unsigned num);

/* A whole number, as in frameNum="12" or "frameNum": 12. */
int reader_frame_num(const char *text, size_t len, unsigned *out);

/* A number as the writers print it (%.6f, %.17g, inf, -inf, nan, -nan): all of the text. */
int reader_number(const char *text, size_t len, double *out);

/* The next line without its end: 1, 0 at the end, -1 (failed) for a line cut short. */
int reader_next_line(Parser *ps, const char **line, size_t *len);

/* One layout each, from ps->p: 0, or -1 with the error in ps->err. */
int parse_json(Parser *ps);
int parse_xml(Parser *ps);
int parse_csv(Parser *ps);
int parse_sub(Parser *ps);

#endif /* PSNRHVS_TOOLS_OUTPUT_READER_H */
