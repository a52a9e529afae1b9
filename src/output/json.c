/*
 * psnrhvs: libvmaf's JSON layout: written and read back.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <string.h>

#include "output/layout.h"

static void json_write(Out *const out, const Sheet *const s) {
    char buf[NUMFMT_SIZE];
    out_printf(out, "{\n");
    out_printf(out, "  \"version\": \"%s\",\n", s->o->version);
    if (isfinite(s->o->fps))
        out_printf(out, "  \"fps\": %.2f,\n", s->o->fps);
    else
        out_printf(out, "  \"fps\": null,\n"); /* as libvmaf */
    out_printf(out, "  \"frames\": [\n");
    for (size_t i = 0; i < s->o->num_frames; i++) {
        const PsnrHvsFrameScore *const fr = &s->o->frames[i];
        out_printf(out, "    {\n");
        out_printf(out, "      \"frameNum\": %u,\n", fr->frame_num);
        out_printf(out, "      \"metrics\": {\n");
        const int entries = s->num_keys + (s->o->raw ? s->o->num_planes : 0);
        for (int k = 0; k < s->num_keys; k++) {
            const double v = psnrhvs_key_value(&fr->score, s->keys[k]);
            const char *const sep = k + 1 < entries ? "," : "";
            /* libvmaf ends a null entry without a newline, so the nulls of an
             * identical frame share one line: the same bytes here. */
            out_printf(out, "        \"%s\": %s%s%s", psnrhvs_key_string(s->keys[k]),
                       numfmt(buf, v, s->o->precision, 1), sep, isfinite(v) ? "\n" : "");
        }
        /* Hex floats are not JSON numbers: strings, which strtod() parses. */
        if (s->o->raw)
            for (int p = 0; p < s->o->num_planes; p++)
                out_printf(out, "        \"%s\": \"%s\"%s\n", raw_names[p],
                           rawfmt(buf, fr->score.raw[p]), s->num_keys + p + 1 < entries ? "," : "");
        out_printf(out, "      }\n");
        out_printf(out, "    }%s\n", i + 1 < s->o->num_frames ? "," : "");
    }
    out_printf(out, "  ],\n");
    out_printf(out, "  \"pooled_metrics\": {\n");
    for (int k = 0; k < s->num_keys; k++) {
        const PsnrHvsPool *const p = &s->pool[s->keys[k]];
        out_printf(out, "    \"%s\": {\n", psnrhvs_key_string(s->keys[k]));
        out_printf(out, "      \"min\": %s,\n", numfmt(buf, p->min, s->o->precision, 1));
        out_printf(out, "      \"max\": %s,\n", numfmt(buf, p->max, s->o->precision, 1));
        out_printf(out, "      \"mean\": %s,\n", numfmt(buf, p->mean, s->o->precision, 1));
        out_printf(out, "      \"harmonic_mean\": %s\n",
                   numfmt(buf, p->harmonic_mean, s->o->precision, 1));
        out_printf(out, "    }%s\n", k + 1 < s->num_keys ? "," : "");
    }
    out_printf(out, "  },\n");
    out_printf(out, "  \"aggregate_metrics\": {\n");
    out_printf(out, "  }\n");
    out_printf(out, "}\n");
}

/* A strict pull parser, depth-limited. */

#define JSON_MAX_DEPTH 64

static void json_ws(Parser *const ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int json_expect(Parser *const ps, const char c) {
    json_ws(ps);
    if (ps->p >= ps->end) return reader_fail(ps, "JSON ends early: expected '%c'", c);
    if (*ps->p != c) return reader_fail(ps, "bad JSON: expected '%c', found '%c'", c, *ps->p);
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
        if ((unsigned char)c < 0x20) return reader_fail(ps, "bad JSON: a control byte in a string");
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
                        return reader_fail(ps, "bad JSON: a bad \\u escape");
                c = '?';
                break;
            default:
                return reader_fail(ps, "bad JSON: a bad escape '\\%c'", e);
            }
        }
        if (out && n + 1 < out_size) out[n] = c;
        n++;
    }
    if (ps->p >= ps->end) return reader_fail(ps, "JSON ends early, in a string");
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
        return reader_fail(ps, "bad JSON: expected a value");
    if (q < ps->end && *q == '.') {
        q++;
        if (q >= ps->end || *q < '0' || *q > '9') return reader_fail(ps, "bad JSON number");
        while (q < ps->end && *q >= '0' && *q <= '9') q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < ps->end && (*q == '+' || *q == '-')) q++;
        if (q >= ps->end || *q < '0' || *q > '9') return reader_fail(ps, "bad JSON number");
        while (q < ps->end && *q >= '0' && *q <= '9') q++;
    }
    ps->p = q;
    double v;
    if (reader_number(start, (size_t)(q - start), &v) < 0)
        return reader_fail(ps, "bad JSON number '%.*s'", (int)(q - start > 40 ? 40 : q - start),
                           start);
    if (out) *out = v;
    return 0;
}

static int json_literal(Parser *const ps, const char *const word) {
    const size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
        return reader_fail(ps, "bad JSON: expected a value");
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
    if (depth > JSON_MAX_DEPTH) return reader_fail(ps, "JSON nested too deeply");
    json_ws(ps);
    if (ps->p >= ps->end) return reader_fail(ps, "JSON ends early: expected a value");
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
    if (ps->p >= ps->end) return reader_fail(ps, "JSON ends early, in an object");
    if (*ps->p == '}') {
        ps->p++;
        return 0;
    }
    if (!*first) {
        if (*ps->p != ',') return reader_fail(ps, "bad JSON: expected ',' or '}'");
        ps->p++;
        json_ws(ps);
        if (ps->p < ps->end && *ps->p == '}') return reader_fail(ps, "bad JSON: a ',' before '}'");
    }
    *first = 0;
    if (json_string(ps, key, key_size, key_len) < 0 || json_expect(ps, ':') < 0) return -1;
    return 1;
}

/* The same as json_member for arrays: 1 before each element, 0 after ']'. */
static int json_element(Parser *const ps, int *const first) {
    json_ws(ps);
    if (ps->p >= ps->end) return reader_fail(ps, "JSON ends early, in an array");
    if (*ps->p == ']') {
        ps->p++;
        return 0;
    }
    if (!*first) {
        if (*ps->p != ',') return reader_fail(ps, "bad JSON: expected ',' or ']'");
        ps->p++;
        json_ws(ps);
        if (ps->p < ps->end && *ps->p == ']') return reader_fail(ps, "bad JSON: a ',' before ']'");
    }
    *first = 0;
    return 1;
}

static int json_frame(Parser *const ps) {
    if (json_expect(ps, '{') < 0) return -1;
    double v[NUM_FIELDS];
    int have[NUM_FIELDS] = {0}, have_num = 0;
    unsigned num = 0;
    char key[64];
    size_t key_len;
    int first = 1, r;
    while ((r = json_member(ps, &first, key, sizeof(key), &key_len)) > 0) {
        if (!strcmp(key, "frameNum")) {
            json_ws(ps);
            const char *const start = ps->p;
            if (json_number(ps, NULL) < 0) return -1;
            if (reader_frame_num(start, (size_t)(ps->p - start), &num) < 0)
                return reader_fail(ps, "bad frameNum '%.*s'", (int)(ps->p - start), start);
            have_num = 1;
        } else if (!strcmp(key, "metrics")) {
            if (json_expect(ps, '{') < 0) return -1;
            int mfirst = 1, mr;
            while ((mr = json_member(ps, &mfirst, key, sizeof(key), &key_len)) > 0) {
                const int k = key_len < sizeof(key) ? reader_field_of(key, key_len) : -1;
                if (k < 0) {
                    if (json_skip(ps, 3) < 0) return -1;
                } else if (k >= FIELD_RAW) {
                    /* hex floats are not JSON numbers: the writers quote them */
                    char text[64];
                    size_t n;
                    if (json_string(ps, text, sizeof(text), &n) < 0) return -1;
                    if (n >= sizeof(text) || reader_number(text, n, &v[k]) < 0)
                        return reader_fail(ps, "bad %s value", reader_field_name(k));
                    have[k] = 1;
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
    if (!have_num) return reader_fail(ps, "a frame without frameNum");
    return reader_add_frame(ps, num, v, have);
}

static int json_pooled(Parser *const ps) {
    if (json_expect(ps, '{') < 0) return -1;
    char key[64];
    size_t key_len;
    int first = 1, r;
    while ((r = json_member(ps, &first, key, sizeof(key), &key_len)) > 0) {
        const int k = key_len < sizeof(key) ? reader_key_of(key, key_len) : -1;
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
                if (json_frame(ps) < 0) return -1;
            if (ar < 0) return -1;
            have_frames = 1;
        } else if (!strcmp(key, "pooled_metrics")) {
            if (json_pooled(ps) < 0) return -1;
        } else if (!strcmp(key, "version")) {
            json_ws(ps);
            if (ps->p < ps->end && *ps->p == '"') {
                if (json_string(ps, ps->s->version, sizeof(ps->s->version), NULL) < 0) return -1;
            } else if (json_skip(ps, 1) < 0) {
                return -1;
            }
        } else if (!strcmp(key, "fps")) {
            json_ws(ps);
            if (ps->p < ps->end && (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))) {
                if (json_number(ps, &ps->s->fps) < 0) return -1;
            } else if (json_skip(ps, 1) < 0) {
                return -1;
            }
        } else if (json_skip(ps, 1) < 0) {
            return -1;
        }
    }
    if (r < 0) return -1;
    json_ws(ps);
    if (ps->p != ps->end) return reader_fail(ps, "bad JSON: text after the closing brace");
    if (!have_frames) return reader_fail(ps, "no \"frames\" in the JSON");
    return 0;
}

const Layout layout_json = {.name = "json", .write = json_write, .parse = parse_json};
