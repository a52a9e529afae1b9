/*
 * psnrhvs: a small strict JSON reader into a tree (recursive descent,
 * depth-limited; every failure one message with its byte offset).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_tree.h"

#define MAX_DEPTH 64

typedef struct Reader {
    const char *p, *start, *end;
    char *err;
    size_t err_size;
    int failed;
} Reader;

static int fail(Reader *const r, const char *const fmt, ...) {
    if (r->failed) return -1;
    r->failed = 1;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(r->err, r->err_size, "bad JSON at byte %zu: %s", (size_t)(r->p - r->start), why);
    return -1;
}

static void skip_ws(Reader *const r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int put_utf8(char *const out, const unsigned long c) {
    if (c < 0x80) return out[0] = (char)c, 1;
    if (c < 0x800) return out[0] = (char)(0xc0 | c >> 6), out[1] = (char)(0x80 | (c & 0x3f)), 2;
    if (c < 0x10000) {
        out[0] = (char)(0xe0 | c >> 12), out[1] = (char)(0x80 | (c >> 6 & 0x3f));
        return out[2] = (char)(0x80 | (c & 0x3f)), 3;
    }
    out[0] = (char)(0xf0 | c >> 18), out[1] = (char)(0x80 | (c >> 12 & 0x3f));
    out[2] = (char)(0x80 | (c >> 6 & 0x3f)), out[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

static int hex4(Reader *const r, unsigned long *const out) {
    if (r->end - r->p < 4) return fail(r, "a \\u escape cut short");
    *out = 0;
    for (int i = 0; i < 4; i++) {
        const char c = *r->p++;
        const int d = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
        if (d < 0) return fail(r, "a bad \\u escape");
        *out = *out << 4 | (unsigned long)d;
    }
    return 0;
}

/* A string after its opening quote; *out malloc'd. */
static int read_string(Reader *const r, char **const out) {
    const char *q = r->p;
    while (q < r->end && *q != '"') q += *q == '\\' && q + 1 < r->end ? 2 : 1;
    if (q >= r->end) return fail(r, "a string without its closing quote");
    /* escapes never grow the text; an escape running past q (caught below) adds at most 8 */
    char *const s = malloc((size_t)(q - r->p) + 9);
    if (!s) return fail(r, "out of memory");
    size_t n = 0;
    while (r->p < q) {
        const unsigned char c = (unsigned char)*r->p++;
        if (c < 0x20) return free(s), fail(r, "a control character in a string");
        if (c != '\\') {
            s[n++] = (char)c;
            continue;
        }
        const char e = *r->p++;
        const char *const simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            s[n++] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            continue;
        }
        unsigned long cp, lo;
        if (e != 'u' || hex4(r, &cp) < 0) return free(s), fail(r, "a bad escape in a string");
        if (cp >= 0xd800 && cp < 0xdc00) {
            if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
                return free(s), fail(r, "a lone surrogate in a string");
            r->p += 2;
            if (hex4(r, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
                return free(s), fail(r, "a lone surrogate in a string");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xdc00 && cp < 0xe000) {
            return free(s), fail(r, "a lone surrogate in a string");
        }
        n += (size_t)put_utf8(s + n, cp);
    }
    if (r->p != q) return free(s), fail(r, "a bad escape in a string");
    r->p++;
    s[n] = '\0';
    *out = s;
    return 0;
}

static int read_number(Reader *const r, double *const out) {
    const char *q = r->p;
    if (q < r->end && *q == '-') q++;
    if (q >= r->end || *q < '0' || *q > '9') return fail(r, "not a JSON value");
    if (*q == '0' && q + 1 < r->end && q[1] >= '0' && q[1] <= '9')
        return fail(r, "a number with a leading zero");
    while (q < r->end && ((*q >= '0' && *q <= '9') || (*q && strchr(".eE+-", *q)))) q++;
    char buf[64];
    if ((size_t)(q - r->p) >= sizeof(buf)) return fail(r, "a number too long");
    memcpy(buf, r->p, (size_t)(q - r->p));
    buf[q - r->p] = '\0';
    char *e;
    errno = 0;
    *out = strtod(buf, &e);
    /* strtod takes more than JSON ("1.", ".5", "1e"): the grammar's digits after . and e */
    const char *const dot = strchr(buf, '.'), *const exp = strpbrk(buf, "eE");
    if (*e || (dot && !(dot[1] >= '0' && dot[1] <= '9')) ||
        (exp && !(exp[exp[1] == '+' || exp[1] == '-' ? 2 : 1] >= '0' &&
                  exp[exp[1] == '+' || exp[1] == '-' ? 2 : 1] <= '9')) ||
        errno == ERANGE)
        return fail(r, "a bad number '%s'", buf);
    r->p = q;
    return 0;
}

static int read_value(Reader *r, JsonValue *v, int depth);

/* The items of an array or object after its bracket, up to close. */
static int read_items(Reader *const r, JsonValue *const v, const char close, const int depth) {
    size_t cap = 0;
    skip_ws(r);
    if (r->p < r->end && *r->p == close) return r->p++, 0;
    for (;;) {
        if (v->n == cap) {
            cap = cap ? cap * 2 : 4;
            JsonValue *const items = realloc(v->items, cap * sizeof(*items));
            if (items) v->items = items;
            char **const keys = v->type == JSON_OBJECT ? realloc(v->keys, cap * sizeof(*keys)) : 0;
            if (keys) v->keys = keys;
            if (!items || (v->type == JSON_OBJECT && !keys)) return fail(r, "out of memory");
        }
        skip_ws(r);
        if (v->type == JSON_OBJECT) {
            if (r->p >= r->end || *r->p != '"') return fail(r, "expected a key");
            r->p++;
            if (read_string(r, &v->keys[v->n]) < 0) return -1;
            skip_ws(r);
            if (r->p >= r->end || *r->p != ':') return free(v->keys[v->n]), fail(r, "expected ':'");
            r->p++;
        }
        if (read_value(r, &v->items[v->n], depth + 1) < 0) {
            json_free(&v->items[v->n]);
            if (v->type == JSON_OBJECT) free(v->keys[v->n]);
            return -1;
        }
        v->n++;
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) return r->p++, 0;
        return fail(r, "expected ',' or '%c'", close);
    }
}

static int read_value(Reader *const r, JsonValue *const v, const int depth) {
    memset(v, 0, sizeof(*v));
    if (depth > MAX_DEPTH) return fail(r, "nested deeper than %d", MAX_DEPTH);
    skip_ws(r);
    if (r->p >= r->end) return fail(r, "the text ends where a value should be");
    static const struct {
        const char *word;
        JsonType type;
    } words[] = {{"null", JSON_NULL}, {"false", JSON_FALSE}, {"true", JSON_TRUE}};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        const size_t n = strlen(words[i].word);
        if ((size_t)(r->end - r->p) >= n && !memcmp(r->p, words[i].word, n))
            return r->p += n, v->type = words[i].type, 0;
    }
    switch (*r->p) {
    case '"':
        r->p++;
        v->type = JSON_STRING;
        return read_string(r, &v->string);
    case '[':
    case '{':
        v->type = *r->p == '[' ? JSON_ARRAY : JSON_OBJECT;
        return read_items(r, v, *r->p++ == '[' ? ']' : '}', depth);
    default:
        v->type = JSON_NUMBER;
        return read_number(r, &v->number);
    }
}

int json_parse(JsonValue *const v, const char *const buf, const size_t len, char *const err,
               const size_t err_size) {
    Reader r = {buf, buf, buf + len, err, err_size, 0};
    if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) r.p += 3;
    if (read_value(&r, v, 0) == 0) {
        skip_ws(&r);
        if (r.p == r.end) return 0;
        fail(&r, "text after the value");
    }
    json_free(v);
    return -1;
}

const JsonValue *json_get(const JsonValue *const obj, const char *const key) {
    if (!obj || obj->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key)) return &obj->items[i];
    return NULL;
}

void json_free(JsonValue *const v) {
    for (size_t i = 0; i < v->n; i++) {
        json_free(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    memset(v, 0, sizeof(*v));
}
