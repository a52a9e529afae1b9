/*
 * psnrhvs: what the score file layouts (xml.c, json.c, csv.c, sub.c) share:
 * a buffered writer, the number formats and the readers' parser state.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_OUTPUT_LAYOUT_H
#define PSNRHVS_SRC_OUTPUT_LAYOUT_H

#include <stddef.h>

#include "psnrhvs.h"

/* ---- writing ---- */

typedef struct Parser Parser;

typedef struct Out {
    PsnrHvsWriteCallback write;
    void *cookie;
    int failed; /* a write failed: the rest is dropped */
    size_t len;
    char buf[1 << 16];
} Out;

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
void out_printf(Out *o, const char *fmt, ...);

/* What a layout writes: the output, its keys in order and their pooled values. */
typedef struct Sheet {
    const PsnrHvsOutput *o;
    int num_keys;
    enum PsnrHvsKey keys[PSNRHVS_NUM_KEYS];
    PsnrHvsPool pool[PSNRHVS_NUM_KEYS];
} Sheet;

typedef struct Layout {
    const char *name;
    void (*write)(Out *out, const Sheet *s);
    int (*parse)(Parser *ps);
} Layout;

extern const Layout layout_xml, layout_json, layout_csv, layout_sub;

extern const char *const raw_names[3];

/* Enough for "%.32f" of DBL_MAX (309 digits before the point). */
#define NUMFMT_SIZE 400

/* "%.*f", PSNRHVS_PRECISION_MAX or _VMAF; non-finite values are "null" when
 * json is set, else what printf writes ("inf", "-inf", "nan", "-nan"). */
const char *numfmt(char *buf, double v, int precision, int json);

/* C99 hex float of a raw f32 plane score widened to double. */
const char *rawfmt(char *buf, float raw);

/* ---- reading ---- */

/* The fields a reader keeps: the keys, then the raw plane scores. */
#define FIELD_RAW  PSNRHVS_NUM_KEYS
#define NUM_FIELDS (PSNRHVS_NUM_KEYS + 3)

struct Parser {
    const char *p, *end;
    PsnrHvsScoreSet *s;
    size_t cap;
    char err[512];
    int failed, nomem;
};

/* The first error only, one line in ps->err. @return -1 */
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

/* The field named name[0..len) (a key, or FIELD_RAW + plane), or -1. */
int reader_field_of(const char *name, size_t len);

/* The key named name[0..len), or -1. */
int reader_key_of(const char *name, size_t len);

/* A frame with fields v[] where have[] is set, appended to ps->s. @return 0 or -1 (failed). */
int reader_add_frame(Parser *ps, unsigned num, const double *v, const int *have);

/* A whole number, as in frameNum="12" or "frameNum": 12. */
int reader_frame_num(const char *text, size_t len, unsigned *out);

/* A number as the writers print it (%.6f, %.17g, %a, inf, -inf, nan, -nan): all of the text. */
int reader_number(const char *text, size_t len, double *out);

/* The next line without its end: 1, 0 at the end, -1 (failed) for a line cut short. */
int reader_next_line(Parser *ps, const char **line, size_t *len);

/* The name of field k, for messages. */
const char *reader_field_name(int k);

#endif /* PSNRHVS_SRC_OUTPUT_LAYOUT_H */
