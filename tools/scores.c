/*
 * psnrhvs: reading score files back. A small pull parser per layout: nothing
 * but the psnr_hvs keys is kept, so a long title's file costs its frames only.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "scores.h"

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

typedef struct Parser {
    const char *p, *end;
    ScoreSet *s;
    char *err;
    size_t err_size;
    int failed;
} Parser;

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
static int
fail(Parser *const ps, const char *const fmt, ...) {
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

/* Bytes left to parse (never negative: GCC cannot tell otherwise). */
static size_t left(const Parser *const ps) {
    return ps->p < ps->end ? (size_t)(ps->end - ps->p) : 0;
}

static int key_of(const char *const name, const size_t len) {
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) {
        const char *const kn = output_key_name((enum OutputKey)k);
        if (strlen(kn) == len && !memcmp(kn, name, len)) return k;
    }
    return -1;
}

static ScoreFrame *new_frame(Parser *const ps, size_t *const cap, const unsigned num) {
    ScoreSet *const s = ps->s;
    if (s->num_frames == *cap) {
        const size_t n = *cap ? *cap * 2 : 256;
        ScoreFrame *const f = realloc(s->frames, n * sizeof(*f));
        if (!f) return fail(ps, "out of memory"), NULL;
        s->frames = f;
        *cap = n;
    }
    ScoreFrame *const f = &s->frames[s->num_frames++];
    f->num = num;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) f->v[k] = NAN, f->has[k] = 0;
    return f;
}

static void set_value(ScoreSet *const s, ScoreFrame *const f, const int k, const double v) {
    f->v[k] = v;
    f->has[k] = 1;
    s->has_key[k] = 1;
}

/* A whole number, as in frameNum="12" or "frameNum": 12. */
static int parse_frame_num(const char *const text, const size_t len, unsigned *const out) {
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
static int parse_number(const char *const text, const size_t len, double *const out) {
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

/* ---- JSON: a strict pull parser, depth-limited ---- */

#define JSON_MAX_DEPTH 64

static void json_ws(Parser *const ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int json_expect(Parser *const ps, const char c) {
    json_ws(ps);
    if (ps->p >= ps->end) return fail(ps, "JSON ends early: expected '%c'", c);
    if (*ps->p != c) return fail(ps, "bad JSON: expected '%c', found '%c'", c, *ps->p);
    ps->p++;
    return 0;
}

/* A string; its first out_size - 1 bytes (escapes decoded, \u as '?') go to out. */
static int json_string(Parser *const ps, char *const out, const size_t out_size,
                       size_t *const len) {
    if (json_expect(ps, '"') < 0) return -1;
    size_t n = 0;
    while (ps->p < ps->end && *ps->p != '"') {
        char c = *ps->p++;
        if ((unsigned char)c < 0x20) return fail(ps, "bad JSON: a control byte in a string");
        if (c == '\\') {
            if (ps->p >= ps->end) break;
            const char e = *ps->p++;
            switch (e) {
            case '"':
            case '\\':
            case '/':
                c = e;
                break;
            case 'b':
                c = '\b';
                break;
            case 'f':
                c = '\f';
                break;
            case 'n':
                c = '\n';
                break;
            case 'r':
                c = '\r';
                break;
            case 't':
                c = '\t';
                break;
            case 'u':
                for (int i = 0; i < 4; i++, ps->p++)
                    if (ps->p >= ps->end || !*ps->p || !strchr("0123456789abcdefABCDEF", *ps->p))
                        return fail(ps, "bad JSON: a bad \\u escape");
                c = '?';
                break;
            default:
                return fail(ps, "bad JSON: a bad escape '\\%c'", e);
            }
        }
        if (out && n + 1 < out_size) out[n] = c;
        n++;
    }
    if (ps->p >= ps->end) return fail(ps, "JSON ends early, in a string");
    ps->p++;
    if (out) out[n < out_size ? n : out_size - 1] = '\0';
    if (len) *len = n;
    return 0;
}

/* JSON's number grammar, then strtod. */
static int json_number(Parser *const ps, double *const out) {
    const char *const start = ps->p, *q = ps->p;
    if (q < ps->end && *q == '-') q++;
    if (q < ps->end && *q == '0')
        q++;
    else if (q < ps->end && *q >= '1' && *q <= '9')
        while (q < ps->end && *q >= '0' && *q <= '9') q++;
    else
        return fail(ps, "bad JSON: expected a value");
    if (q < ps->end && *q == '.') {
        q++;
        if (q >= ps->end || *q < '0' || *q > '9') return fail(ps, "bad JSON number");
        while (q < ps->end && *q >= '0' && *q <= '9') q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < ps->end && (*q == '+' || *q == '-')) q++;
        if (q >= ps->end || *q < '0' || *q > '9') return fail(ps, "bad JSON number");
        while (q < ps->end && *q >= '0' && *q <= '9') q++;
    }
    ps->p = q;
    double v;
    if (parse_number(start, (size_t)(q - start), &v) < 0)
        return fail(ps, "bad JSON number '%.*s'", (int)(q - start > 40 ? 40 : q - start), start);
    if (out) *out = v;
    return 0;
}

static int json_literal(Parser *const ps, const char *const word) {
    const size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
        return fail(ps, "bad JSON: expected a value");
    ps->p += n;
    return 0;
}

/* Numbers and null (as +inf, counted); anything else is an error. */
static int json_score(Parser *const ps, double *const out) {
    json_ws(ps);
    if (ps->p < ps->end && *ps->p == 'n') {
        if (json_literal(ps, "null") < 0) return -1;
        *out = INFINITY;
        ps->s->nulls++;
        return 0;
    }
    return json_number(ps, out);
}

static int json_skip(Parser *const ps, const int depth) {
    if (depth > JSON_MAX_DEPTH) return fail(ps, "JSON nested too deeply");
    json_ws(ps);
    if (ps->p >= ps->end) return fail(ps, "JSON ends early: expected a value");
    const char c = *ps->p;
    if (c == '"') return json_string(ps, NULL, 0, NULL);
    if (c == 't') return json_literal(ps, "true");
    if (c == 'f') return json_literal(ps, "false");
    if (c == 'n') return json_literal(ps, "null");
    if (c == '[' || c == '{') {
        const char close = c == '[' ? ']' : '}';
        ps->p++;
        json_ws(ps);
        if (ps->p < ps->end && *ps->p == close) return ps->p++, 0;
        for (;;) {
            if (c == '{') {
                if (json_string(ps, NULL, 0, NULL) < 0 || json_expect(ps, ':') < 0) return -1;
            }
            if (json_skip(ps, depth + 1) < 0) return -1;
            json_ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            return json_expect(ps, close);
        }
    }
    return json_number(ps, NULL);
}

/*
 * Members of an object, one at a time: 1 with the key in key (truncated to
 * key_size), 0 after the closing brace. *first starts at 1.
 */
static int json_member(Parser *const ps, int *const first, char *const key, const size_t key_size,
                       size_t *const key_len) {
    json_ws(ps);
    if (ps->p >= ps->end) return fail(ps, "JSON ends early, in an object");
    if (*ps->p == '}') {
        ps->p++;
        return 0;
    }
    if (!*first) {
        if (*ps->p != ',') return fail(ps, "bad JSON: expected ',' or '}'");
        ps->p++;
        json_ws(ps);
        if (ps->p < ps->end && *ps->p == '}') return fail(ps, "bad JSON: a ',' before '}'");
    }
    *first = 0;
    if (json_string(ps, key, key_size, key_len) < 0 || json_expect(ps, ':') < 0) return -1;
    return 1;
}

/* The same as json_member for arrays: 1 before each element, 0 after ']'. */
static int json_element(Parser *const ps, int *const first) {
    json_ws(ps);
    if (ps->p >= ps->end) return fail(ps, "JSON ends early, in an array");
    if (*ps->p == ']') {
        ps->p++;
        return 0;
    }
    if (!*first) {
        if (*ps->p != ',') return fail(ps, "bad JSON: expected ',' or ']'");
        ps->p++;
        json_ws(ps);
        if (ps->p < ps->end && *ps->p == ']') return fail(ps, "bad JSON: a ',' before ']'");
    }
    *first = 0;
    return 1;
}

static int json_frame(Parser *const ps, size_t *const cap) {
    if (json_expect(ps, '{') < 0) return -1;
    double v[OUTPUT_NUM_KEYS];
    int have[OUTPUT_NUM_KEYS] = {0}, have_num = 0;
    unsigned num = 0;
    char key[64];
    size_t key_len;
    int first = 1, r;
    while ((r = json_member(ps, &first, key, sizeof(key), &key_len)) > 0) {
        if (!strcmp(key, "frameNum")) {
            json_ws(ps);
            const char *const start = ps->p;
            if (json_number(ps, NULL) < 0) return -1;
            if (parse_frame_num(start, (size_t)(ps->p - start), &num) < 0)
                return fail(ps, "bad frameNum '%.*s'", (int)(ps->p - start), start);
            have_num = 1;
        } else if (!strcmp(key, "metrics")) {
            if (json_expect(ps, '{') < 0) return -1;
            int mfirst = 1, mr;
            while ((mr = json_member(ps, &mfirst, key, sizeof(key), &key_len)) > 0) {
                const int k = key_len < sizeof(key) ? key_of(key, key_len) : -1;
                if (k < 0) {
                    if (json_skip(ps, 3) < 0) return -1;
                } else {
                    if (json_score(ps, &v[k]) < 0) return -1;
                    have[k] = 1;
                }
            }
            if (mr < 0) return -1;
        } else if (json_skip(ps, 2) < 0) {
            return -1;
        }
    }
    if (r < 0) return -1;
    if (!have_num) return fail(ps, "a frame without frameNum");
    ScoreFrame *const f = new_frame(ps, cap, num);
    if (!f) return -1;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
        if (have[k]) set_value(ps->s, f, k, v[k]);
    return 0;
}

static int json_pooled(Parser *const ps) {
    if (json_expect(ps, '{') < 0) return -1;
    char key[64];
    size_t key_len;
    int first = 1, r;
    while ((r = json_member(ps, &first, key, sizeof(key), &key_len)) > 0) {
        const int k = key_len < sizeof(key) ? key_of(key, key_len) : -1;
        if (k < 0) {
            if (json_skip(ps, 2) < 0) return -1;
            continue;
        }
        PsnrHvsPool *const pool = &ps->s->pool[k];
        *pool = (PsnrHvsPool){NAN, NAN, NAN, NAN};
        if (json_expect(ps, '{') < 0) return -1;
        int sfirst = 1, sr;
        while ((sr = json_member(ps, &sfirst, key, sizeof(key), &key_len)) > 0) {
            double *const dst = !strcmp(key, "min")             ? &pool->min
                                : !strcmp(key, "max")           ? &pool->max
                                : !strcmp(key, "mean")          ? &pool->mean
                                : !strcmp(key, "harmonic_mean") ? &pool->harmonic_mean
                                                                : NULL;
            double tmp;
            if (dst ? json_score(ps, &tmp) : json_skip(ps, 3)) return -1;
            if (dst) *dst = tmp;
        }
        if (sr < 0) return -1;
    }
    if (r < 0) return -1;
    ps->s->pooled_in_file = 1;
    return 0;
}

static int parse_json(Parser *const ps) {
    size_t cap = 0;
    int have_frames = 0;
    if (json_expect(ps, '{') < 0) return -1;
    char key[64];
    size_t key_len;
    int first = 1, r;
    while ((r = json_member(ps, &first, key, sizeof(key), &key_len)) > 0) {
        if (!strcmp(key, "frames")) {
            if (json_expect(ps, '[') < 0) return -1;
            int afirst = 1, ar;
            while ((ar = json_element(ps, &afirst)) > 0)
                if (json_frame(ps, &cap) < 0) return -1;
            if (ar < 0) return -1;
            have_frames = 1;
        } else if (!strcmp(key, "pooled_metrics")) {
            if (json_pooled(ps) < 0) return -1;
        } else if (json_skip(ps, 1) < 0) {
            return -1;
        }
    }
    if (r < 0) return -1;
    json_ws(ps);
    if (ps->p != ps->end) return fail(ps, "bad JSON: text after the closing brace");
    if (!have_frames) return fail(ps, "no \"frames\" in the JSON");
    return 0;
}

/* ---- XML: libvmaf's elements, attribute by attribute ---- */

static int is_space(const char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

typedef struct XmlAttr {
    const char *name, *value;
    size_t name_len, value_len;
} XmlAttr;

/* The next attribute of a tag: 1, or 0 at its end ('>' or "/>"). */
static int xml_attr(Parser *const ps, XmlAttr *const a) {
    while (ps->p < ps->end && is_space(*ps->p)) ps->p++;
    if (ps->p >= ps->end) return fail(ps, "XML ends early, in a tag");
    if (*ps->p == '>') return ps->p++, 0;
    if (*ps->p == '/' || *ps->p == '?') {
        if (ps->p + 1 < ps->end && ps->p[1] == '>') return ps->p += 2, 0;
        return fail(ps, "bad XML tag");
    }
    a->name = ps->p;
    while (ps->p < ps->end && !is_space(*ps->p) && *ps->p != '=' && *ps->p != '>' && *ps->p != '/')
        ps->p++;
    a->name_len = (size_t)(ps->p - a->name);
    while (ps->p < ps->end && is_space(*ps->p)) ps->p++;
    if (!a->name_len || ps->p >= ps->end || *ps->p != '=') return fail(ps, "bad XML attribute");
    ps->p++;
    while (ps->p < ps->end && is_space(*ps->p)) ps->p++;
    if (ps->p >= ps->end || (*ps->p != '"' && *ps->p != '\''))
        return fail(ps, "bad XML attribute value");
    const char q = *ps->p++;
    a->value = ps->p;
    while (ps->p < ps->end && *ps->p != q) ps->p++;
    if (ps->p >= ps->end) return fail(ps, "XML ends early, in an attribute");
    a->value_len = (size_t)(ps->p - a->value);
    ps->p++;
    return 1;
}

static int attr_is(const XmlAttr *const a, const char *const name) {
    return a->name_len == strlen(name) && !memcmp(a->name, name, a->name_len);
}

static int parse_xml(Parser *const ps) {
    size_t cap = 0;
    int root = 0, closed = 0, frames = 0;
    XmlAttr a;
    int r;
    while (ps->p < ps->end) {
        if (*ps->p != '<') {
            if (closed && !is_space(*ps->p)) return fail(ps, "bad XML: text after </VMAF>");
            ps->p++;
            continue;
        }
        if (++ps->p >= ps->end) return fail(ps, "XML ends early, in a tag");
        if (*ps->p == '!' || *ps->p == '?') {
            /* a comment or declaration: to its end */
            const char *const gt = memchr(ps->p, '>', left(ps));
            if (!gt) return fail(ps, "XML ends early, in a declaration");
            ps->p = gt + 1;
            continue;
        }
        const int closing = ps->p < ps->end && *ps->p == '/';
        if (closing) ps->p++;
        const char *const name = ps->p;
        while (ps->p < ps->end && !is_space(*ps->p) && *ps->p != '>' && *ps->p != '/') ps->p++;
        const size_t name_len = (size_t)(ps->p - name);
#define TAG_IS(s) (name_len == sizeof(s) - 1 && !memcmp(name, s, name_len))
        if (closing) {
            const char *const gt = memchr(ps->p, '>', left(ps));
            if (!gt) return fail(ps, "XML ends early, in a closing tag");
            ps->p = gt + 1;
            if (TAG_IS("VMAF")) closed = 1;
            continue;
        }
        if (closed) return fail(ps, "bad XML: an element after </VMAF>");
        if (!root) {
            if (!TAG_IS("VMAF")) return fail(ps, "not libvmaf's XML: the root is not <VMAF>");
            root = 1;
        }
        if (TAG_IS("frames")) frames = 1;
        if (TAG_IS("frame")) {
            double v[OUTPUT_NUM_KEYS];
            int have[OUTPUT_NUM_KEYS] = {0}, have_num = 0;
            unsigned num = 0;
            while ((r = xml_attr(ps, &a)) > 0) {
                if (attr_is(&a, "frameNum")) {
                    if (parse_frame_num(a.value, a.value_len, &num) < 0)
                        return fail(ps, "bad frameNum \"%.*s\"", (int)a.value_len, a.value);
                    have_num = 1;
                    continue;
                }
                const int k = key_of(a.name, a.name_len);
                if (k < 0) continue;
                if (parse_number(a.value, a.value_len, &v[k]) < 0)
                    return fail(ps, "bad %s value \"%.*s\"", output_key_name(k),
                                (int)(a.value_len > 40 ? 40 : a.value_len), a.value);
                have[k] = 1;
            }
            if (r < 0) return -1;
            if (!have_num) return fail(ps, "a frame without frameNum");
            ScoreFrame *const f = new_frame(ps, &cap, num);
            if (!f) return -1;
            for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
                if (have[k]) set_value(ps->s, f, k, v[k]);
        } else if (TAG_IS("metric")) {
            PsnrHvsPool pool = {NAN, NAN, NAN, NAN};
            int k = -1;
            while ((r = xml_attr(ps, &a)) > 0) {
                double *const dst = attr_is(&a, "min")             ? &pool.min
                                    : attr_is(&a, "max")           ? &pool.max
                                    : attr_is(&a, "mean")          ? &pool.mean
                                    : attr_is(&a, "harmonic_mean") ? &pool.harmonic_mean
                                                                   : NULL;
                if (attr_is(&a, "name")) k = key_of(a.value, a.value_len);
                if (dst && parse_number(a.value, a.value_len, dst) < 0)
                    return fail(ps, "bad pooled value \"%.*s\"",
                                (int)(a.value_len > 40 ? 40 : a.value_len), a.value);
            }
            if (r < 0) return -1;
            if (k >= 0) {
                ps->s->pool[k] = pool;
                ps->s->pooled_in_file = 1;
            }
        } else if (TAG_IS("params")) {
            while ((r = xml_attr(ps, &a)) > 0) {
                unsigned v;
                if (attr_is(&a, "qualityWidth") && !parse_frame_num(a.value, a.value_len, &v))
                    ps->s->width = (int)v;
                if (attr_is(&a, "qualityHeight") && !parse_frame_num(a.value, a.value_len, &v))
                    ps->s->height = (int)v;
            }
            if (r < 0) return -1;
        } else {
            while ((r = xml_attr(ps, &a)) > 0) continue;
            if (r < 0) return -1;
        }
#undef TAG_IS
    }
    if (!root) return fail(ps, "not libvmaf's XML: no <VMAF> element");
    if (!closed) return fail(ps, "XML ends early: no </VMAF>");
    if (!frames) return fail(ps, "no <frames> in the XML");
    return 0;
}

/* ---- CSV (libvmaf's: a header row, every row ending with ',') and sub ---- */

static int next_line(Parser *const ps, const char **const line, size_t *const len) {
    if (ps->p >= ps->end) return 0;
    const char *const nl = memchr(ps->p, '\n', left(ps));
    if (!nl) return fail(ps, "the last line has no end (a file cut short?)");
    *line = ps->p;
    *len = (size_t)(nl - ps->p);
    if (*len && (*line)[*len - 1] == '\r') (*len)--;
    ps->p = nl + 1;
    return 1;
}

#define CSV_MAX_COLUMNS 256

static int parse_csv(Parser *const ps) {
    size_t cap = 0;
    const char *line = NULL;
    size_t len = 0;
    if (next_line(ps, &line, &len) <= 0) return ps->failed ? -1 : fail(ps, "an empty CSV file");
    int col_key[CSV_MAX_COLUMNS], ncols = 0;
    for (size_t i = 0; i <= len;) {
        const char *const f = line + i;
        const char *const comma = memchr(f, ',', len - i);
        const size_t flen = comma ? (size_t)(comma - f) : len - i;
        if (!comma && !flen) break; /* libvmaf's trailing comma */
        if (ncols == CSV_MAX_COLUMNS) return fail(ps, "too many CSV columns");
        col_key[ncols] = ncols == 0 ? -2 : key_of(f, flen);
        ncols++;
        i += flen + 1;
    }
    if (!ncols || len < 5 || memcmp(line, "Frame", 5) || col_key[0] != -2)
        return fail(ps, "not libvmaf's CSV: the header does not start with Frame");
    unsigned row = 1;
    while (next_line(ps, &line, &len) > 0) {
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
                if (parse_frame_num(f, flen, &num) < 0)
                    return fail(ps, "CSV row %u: bad frame number '%.*s'", row,
                                (int)(flen > 20 ? 20 : flen), f);
            } else if (col_key[col] >= 0) {
                if (parse_number(f, flen, &v[col_key[col]]) < 0)
                    return fail(ps, "CSV row %u: bad %s value '%.*s'", row,
                                output_key_name(col_key[col]), (int)(flen > 40 ? 40 : flen), f);
                have[col_key[col]] = 1;
            }
            i += flen + 1;
        }
        if (col < ncols) return fail(ps, "CSV row %u: %d of %d columns", row, col, ncols);
        ScoreFrame *const f = new_frame(ps, &cap, num);
        if (!f) return -1;
        for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
            if (have[k]) set_value(ps->s, f, k, v[k]);
    }
    return ps->failed ? -1 : 0;
}

/* "{N}{N+1}frame: N|psnr_hvs_y: 31.2|...|" */
static int parse_sub(Parser *const ps) {
    size_t cap = 0;
    const char *line = NULL;
    size_t len = 0;
    unsigned lineno = 0;
    while (next_line(ps, &line, &len) > 0) {
        lineno++;
        if (!len) continue;
        const char *const end = line + len;
        const char *p = line;
        unsigned num = 0;
        for (int i = 0; i < 2; i++) {
            const char *const close =
                p < end && *p == '{' ? memchr(p, '}', (size_t)(end - p)) : NULL;
            if (!close || parse_frame_num(p + 1, (size_t)(close - p - 1), &num) < 0)
                return fail(ps, "sub line %u: expected {N}{N+1}", lineno);
            p = close + 1;
        }
        double v[OUTPUT_NUM_KEYS];
        int have[OUTPUT_NUM_KEYS] = {0}, have_num = 0;
        while (p < end) {
            const char *const bar = memchr(p, '|', (size_t)(end - p));
            if (!bar) return fail(ps, "sub line %u: an entry without its '|'", lineno);
            const char *const colon = memchr(p, ':', (size_t)(bar - p));
            if (!colon || colon + 1 >= bar || colon[1] != ' ')
                return fail(ps, "sub line %u: expected 'name: value|'", lineno);
            const char *const val = colon + 2;
            const size_t vlen = (size_t)(bar - val);
            const int k = key_of(p, (size_t)(colon - p));
            if ((size_t)(colon - p) == 5 && !memcmp(p, "frame", 5)) {
                if (parse_frame_num(val, vlen, &num) < 0)
                    return fail(ps, "sub line %u: bad frame number", lineno);
                have_num = 1;
            } else if (k >= 0) {
                if (parse_number(val, vlen, &v[k]) < 0)
                    return fail(ps, "sub line %u: bad %s value", lineno, output_key_name(k));
                have[k] = 1;
            }
            p = bar + 1;
        }
        if (!have_num) return fail(ps, "sub line %u: no frame number", lineno);
        ScoreFrame *const f = new_frame(ps, &cap, num);
        if (!f) return -1;
        for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
            if (have[k]) set_value(ps->s, f, k, v[k]);
    }
    return ps->failed ? -1 : 0;
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
    while (q < ps.end && is_space(*q)) q++;
    int res;
    if (q == ps.end) {
        res = fail(&ps, "an empty file");
    } else if (*q == '<') {
        s->format = SCORES_XML;
        res = parse_xml(&ps);
    } else if (*q == '{') {
        const char *r = q + 1;
        while (r < ps.end && is_space(*r)) r++;
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
        res = fail(&ps, "not a score file (libvmaf's XML, JSON, CSV or sub layout)");
    }
    if (!res && !s->num_frames) res = fail(&ps, "no frames");
    int any = 0;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) any |= s->has_key[k];
    if (!res && !any) res = fail(&ps, "no psnr_hvs scores (psnr_hvs, psnr_hvs_y, ...)");
    if (res) {
        scores_free(s);
        return -1;
    }
    s->num_planes = s->has_key[OUTPUT_KEY_CB] || s->has_key[OUTPUT_KEY_CR] ? 3 : 1;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
        if (s->has_key[k] && (!s->pooled_in_file || isnan(s->pool[k].mean)) &&
            scores_pool_key(s, (enum OutputKey)k, &s->pool[k]) < 0) {
            fail(&ps, "out of memory");
            scores_free(s);
            return -1;
        }
    return 0;
}

int scores_read(ScoreSet *const s, const char *const path, char *const err, const size_t err_size) {
    memset(s, 0, sizeof(*s));
    FILE *const f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            char *const nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                if (f != stdin) fclose(f);
                snprintf(err, err_size, "%s: out of memory", path);
                return -1;
            }
            buf = nb;
        }
        const size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    const int read_err = ferror(f);
    const int saved = errno;
    if (f != stdin) fclose(f);
    if (read_err) {
        free(buf);
        snprintf(err, err_size, "cannot read %s: %s", path, strerror(saved));
        return -1;
    }
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
            set_value(s, f, d->keys[k], output_value(&d->frames[i].score, d->keys[k]));
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
