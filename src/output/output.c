/*
 * psnrhvs: score files: the list of layouts, numbers, pooling, the summary,
 * and what the readers share.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "file.h"
#include "output/layout.h"

static const Layout *const layouts[] = {&layout_xml, &layout_json, &layout_csv, &layout_sub};
#define NUM_LAYOUTS ((int)(sizeof(layouts) / sizeof(layouts[0])))

const char *const raw_names[3] = {"raw_y", "raw_cb", "raw_cr"};

const char *psnrhvs_key_string(const enum PsnrHvsKey k) {
    static const char *const names[PSNRHVS_NUM_KEYS] = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr",
                                                        "psnr_hvs"};
    return (unsigned)k < PSNRHVS_NUM_KEYS ? names[k] : NULL;
}

/* Key k's field of a score: pooled in place over an array of frames. */
static const double *key_field(const PsnrHvsScore *const s, const enum PsnrHvsKey k) {
    switch (k) {
    case PSNRHVS_KEY_Y:
        return &s->psnr_hvs_y;
    case PSNRHVS_KEY_CB:
        return &s->psnr_hvs_cb;
    case PSNRHVS_KEY_CR:
        return &s->psnr_hvs_cr;
    default:
        return &s->psnr_hvs;
    }
}

double psnrhvs_key_value(const PsnrHvsScore *const s, const enum PsnrHvsKey k) {
    return *key_field(s, k);
}

const char *psnrhvs_scores_format_string(const enum PsnrHvsScoreFormat f) {
    return (unsigned)f < (unsigned)NUM_LAYOUTS ? layouts[f]->name : NULL;
}

int psnrhvs_scores_format_from_string(const char *const name) {
    for (int i = 0; name && i < NUM_LAYOUTS; i++)
        if (!strcmp(name, layouts[i]->name)) return i;
    return PSNRHVS_ERR(EINVAL);
}

enum PsnrHvsScoreFormat psnrhvs_scores_format_for_path(const char *const path) {
    const char *const dot = path ? strrchr(path, '.') : NULL;
    const char *const slash = path ? strrchr(path, '/') : NULL;
    if (dot && (!slash || dot > slash))
        for (int i = 0; i < NUM_LAYOUTS; i++)
            if (!strcasecmp(dot + 1, layouts[i]->name)) return (enum PsnrHvsScoreFormat)i;
    return PSNRHVS_SCORES_XML;
}

/* ---- numbers ---- */

/*
 * libvmaf's count_leading_zeros_d(): how many times the fractional part of
 * |x| is multiplied by 10 before it reaches 1. It takes the integer part with
 * (int)x, undefined for NaN, infinities and |x| >= 2^31; x86-64 gives INT_MIN,
 * so the fraction is then at least 1 (or NaN) and it counts no zeros.
 */
static int vmaf_fraction_zeros(double x) {
    x = fabs(x);
    if (!(x < 2147483648.0)) return 0;
    const int int_part = (int)x;
    double fraction = x - int_part;
    int zeros = 0;
    /* The same double steps as libvmaf's loop, so the boundary cases agree. */
    while (fraction < 1.0 && fraction != 0) {
        fraction *= 10;
        zeros++;
    }
    return zeros;
}

const char *numfmt(char *const buf, const double v, const int precision, const int json) {
    if (json && !isfinite(v)) return "null"; /* libvmaf's JSON writer */
    if (precision == PSNRHVS_PRECISION_VMAF)
        snprintf(buf, NUMFMT_SIZE, vmaf_fraction_zeros(v) > 6 ? "%.16f" : "%.6f", v);
    else if (precision < 0)
        snprintf(buf, NUMFMT_SIZE, "%.17g", v);
    else
        snprintf(buf, NUMFMT_SIZE, "%.*f", precision, v);
    return buf;
}

const char *rawfmt(char *const buf, const float raw) {
    snprintf(buf, NUMFMT_SIZE, "%a", (double)raw);
    return buf;
}

/* ---- writing ---- */

static void out_flush(Out *const o) {
    if (o->len && !o->failed && o->write(o->cookie, o->buf, o->len)) o->failed = 1;
    o->len = 0;
}

void out_printf(Out *const o, const char *const fmt, ...) {
    if (o->failed) return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        o->failed = 1;
    } else if ((size_t)n >= sizeof(o->buf) - o->len) {
        /* It did not fit: flush, then again, or in a buffer of its own. */
        out_flush(o);
        char *const big = (size_t)n < sizeof(o->buf) ? o->buf : malloc((size_t)n + 1);
        if (!big) {
            o->failed = 1;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        if (big == o->buf) {
            o->len = (size_t)n;
        } else {
            if (!o->failed && o->write(o->cookie, big, (size_t)n)) o->failed = 1;
            free(big);
        }
    } else {
        o->len += (size_t)n;
    }
}

/* The keys written, in libvmaf's order, and their pooled values. */
static void make_sheet(Sheet *const sh, const PsnrHvsOutput *const o) {
    sh->o = o;
    sh->num_keys = 0;
    sh->keys[sh->num_keys++] = PSNRHVS_KEY_Y;
    if (o->num_planes == 3) {
        sh->keys[sh->num_keys++] = PSNRHVS_KEY_CB;
        sh->keys[sh->num_keys++] = PSNRHVS_KEY_CR;
    }
    sh->keys[sh->num_keys++] = PSNRHVS_KEY_COMBINED;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++)
        psnrhvs_pool(o->num_frames ? key_field(&o->frames[0].score, (enum PsnrHvsKey)k) : NULL,
                     o->num_frames, sizeof(o->frames[0]), &sh->pool[k]);
}

static int run_writer(const PsnrHvsOutput *const o, const Layout *const l,
                      const PsnrHvsWriteCallback write, void *const cookie) {
    if (!o || !write || (o->num_planes != 1 && o->num_planes != 3) || !o->version ||
        (o->num_frames && !o->frames) ||
        (o->precision < 0 && o->precision != PSNRHVS_PRECISION_MAX &&
         o->precision != PSNRHVS_PRECISION_VMAF) ||
        o->precision > 64)
        return PSNRHVS_ERR(EINVAL);
    Out *const out = malloc(sizeof(*out));
    if (!out) return PSNRHVS_ERR(ENOMEM);
    out->write = write;
    out->cookie = cookie;
    out->failed = 0;
    out->len = 0;
    Sheet sh;
    make_sheet(&sh, o);
    if (l) {
        l->write(out, &sh);
    } else {
        char a[NUMFMT_SIZE], b[NUMFMT_SIZE], c[NUMFMT_SIZE], e[NUMFMT_SIZE];
        out_printf(out, "%zu frame%s, %dx%d%s%s\n", o->num_frames, o->num_frames == 1 ? "" : "s",
                   o->width, o->height, o->engine ? ", " : "", o->engine ? o->engine : "");
        for (int i = 0; i < sh.num_keys; i++) {
            const PsnrHvsPool *const p = &sh.pool[sh.keys[i]];
            out_printf(out, "%-12s mean %s  min %s  max %s  harmonic_mean %s\n",
                       psnrhvs_key_string(sh.keys[i]), numfmt(a, p->mean, o->precision, 0),
                       numfmt(b, p->min, o->precision, 0), numfmt(c, p->max, o->precision, 0),
                       numfmt(e, p->harmonic_mean, o->precision, 0));
        }
    }
    out_flush(out);
    const int failed = out->failed;
    free(out);
    return failed ? PSNRHVS_ERR(EIO) : 0;
}

int psnrhvs_output_write(const PsnrHvsOutput *const o, const enum PsnrHvsScoreFormat f,
                         const PsnrHvsWriteCallback write, void *const cookie) {
    if ((unsigned)f >= (unsigned)NUM_LAYOUTS) return PSNRHVS_ERR(EINVAL);
    return run_writer(o, layouts[f], write, cookie);
}

int psnrhvs_output_summary(const PsnrHvsOutput *const o, const PsnrHvsWriteCallback write,
                           void *const cookie) {
    return run_writer(o, NULL, write, cookie);
}

/* ---- reading ---- */

int reader_fail(Parser *const ps, const char *const fmt, ...) {
    if (ps->failed) return -1;
    ps->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* one line whatever the file quoted: a line break shows as "\n" */
    psh_visible(ps->err, sizeof(ps->err), msg);
    return -1;
}

const char *reader_field_name(const int k) {
    return k < FIELD_RAW ? psnrhvs_key_string((enum PsnrHvsKey)k) : raw_names[k - FIELD_RAW];
}

int reader_field_of(const char *const name, const size_t len) {
    for (int k = 0; k < NUM_FIELDS; k++) {
        const char *const kn = reader_field_name(k);
        if (strlen(kn) == len && !memcmp(kn, name, len)) return k;
    }
    return -1;
}

int reader_key_of(const char *const name, const size_t len) {
    const int k = reader_field_of(name, len);
    return k < FIELD_RAW ? k : -1;
}

int reader_add_frame(Parser *const ps, const unsigned num, const double *const v,
                     const int *const have) {
    PsnrHvsScoreSet *const s = ps->s;
    if (s->num_frames == ps->cap) {
        const size_t n = ps->cap ? ps->cap * 2 : 256;
        PsnrHvsScoreRow *const f = realloc(s->frames, n * sizeof(*f));
        if (!f) return ps->nomem = 1, reader_fail(ps, "out of memory");
        s->frames = f;
        ps->cap = n;
    }
    PsnrHvsScoreRow *const f = &s->frames[s->num_frames++];
    memset(f, 0, sizeof(*f));
    f->frame_num = num;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
        f->value[k] = have[k] ? v[k] : NAN;
        f->has[k] = have[k] != 0;
        s->has_key[k] |= have[k] != 0;
    }
    for (int p = 0; p < 3; p++) {
        f->raw[p] = have[FIELD_RAW + p] ? (float)v[FIELD_RAW + p] : NAN;
        f->has_raw[p] = have[FIELD_RAW + p] != 0;
    }
    return 0;
}

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

int psnrhvs_scores_pool_key(const PsnrHvsScoreSet *const s, const enum PsnrHvsKey k,
                            PsnrHvsPool *const out) {
    if ((unsigned)k >= PSNRHVS_NUM_KEYS) return PSNRHVS_ERR(EINVAL);
    size_t n = 0;
    for (size_t i = 0; i < s->num_frames; i++) n += s->frames[i].has[k] != 0;
    if (n == s->num_frames) {
        psnrhvs_pool(n ? &s->frames[0].value[k] : NULL, n, sizeof(s->frames[0]), out);
        return 0;
    }
    /* Some frames lack the key: those that have it, gathered. */
    double *const v = malloc(n * sizeof(*v) + 1);
    if (!v) return PSNRHVS_ERR(ENOMEM);
    n = 0;
    for (size_t i = 0; i < s->num_frames; i++)
        if (s->frames[i].has[k]) v[n++] = s->frames[i].value[k];
    psnrhvs_pool(v, n, 0, out);
    free(v);
    return 0;
}

void psnrhvs_scores_free(PsnrHvsScoreSet *const s) {
    if (!s) return;
    free(s->frames);
    s->frames = NULL;
    s->num_frames = 0;
}

/* The layout by its first bytes (past a BOM and white space). */
static int sniff(const char *q, const char *const end) {
    while (q < end && reader_is_space(*q)) q++;
    if (q == end) return -1;
    if (*q == '<') return PSNRHVS_SCORES_XML;
    if (*q == '{') {
        const char *r = q + 1;
        while (r < end && reader_is_space(*r)) r++;
        return r < end && *r >= '0' && *r <= '9' ? PSNRHVS_SCORES_SUB : PSNRHVS_SCORES_JSON;
    }
    if ((size_t)(end - q) >= 6 && !memcmp(q, "Frame,", 6)) return PSNRHVS_SCORES_CSV;
    return -2;
}

int psnrhvs_scores_parse(PsnrHvsScoreSet *const s, const char *const buf, const size_t len,
                         PsnrHvsFileStatus *const st) {
    if (!s) return PSNRHVS_ERR(EINVAL);
    memset(s, 0, sizeof(*s));
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) s->pool[k] = (PsnrHvsPool){NAN, NAN, NAN, NAN};
    s->fps = NAN;
    Parser *const ps = calloc(1, sizeof(*ps));
    if (!ps) {
        psh_status(st, PSNRHVS_FILE_ERROR_NOMEM, ENOMEM, "out of memory");
        return PSNRHVS_ERR(ENOMEM);
    }
    ps->p = buf ? buf : "";
    ps->end = ps->p + (buf ? len : 0);
    ps->s = s;
    if (len >= 3 && !memcmp(ps->p, "\xef\xbb\xbf", 3)) ps->p += 3; /* a BOM */
    const int layout = sniff(ps->p, ps->end);
    int res;
    if (layout == -1) {
        res = reader_fail(ps, "an empty file");
    } else if (layout < 0) {
        res = reader_fail(ps, "not a score file (libvmaf's XML, JSON, CSV or sub layout)");
    } else {
        s->format = (enum PsnrHvsScoreFormat)layout;
        res = layouts[layout]->parse(ps);
    }
    if (!res && !s->num_frames) res = reader_fail(ps, "no frames");
    int any = 0;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) any |= s->has_key[k];
    if (!res && !any) res = reader_fail(ps, "no psnr_hvs scores (psnr_hvs, psnr_hvs_y, ...)");
    s->num_planes = s->has_key[PSNRHVS_KEY_CB] || s->has_key[PSNRHVS_KEY_CR] ? 3 : 1;
    for (int k = 0; !res && k < PSNRHVS_NUM_KEYS; k++)
        if (s->has_key[k] && (!s->pooled_in_file || isnan(s->pool[k].mean)) &&
            psnrhvs_scores_pool_key(s, (enum PsnrHvsKey)k, &s->pool[k]) < 0)
            res = ps->nomem = 1, reader_fail(ps, "out of memory");
    if (res) {
        psh_status(st, ps->nomem ? PSNRHVS_FILE_ERROR_NOMEM : PSNRHVS_FILE_ERROR_MALFORMED,
                   ps->nomem ? ENOMEM : 0, "%s", ps->err);
        psnrhvs_scores_free(s);
    }
    const int nomem = ps->nomem;
    free(ps);
    return !res ? 0 : nomem ? PSNRHVS_ERR(ENOMEM) : PSNRHVS_ERR(EINVAL);
}
