/*
 * Fuzz target: the score writers (the library's src/output: XML, JSON, CSV, sub, the
 * summary, pooling and the number formatter) on fuzzed scores, NaN,
 * infinities, -0, subnormals and values a hair above an integer included:
 *
 *   byte 0   writer: byte % 5 (xml, json, csv, sub, summary)
 *   byte 1   precision: bits 0-1: 0 and 3 libvmaf's (%.6f / %.16f), 1 %.17g,
 *            2 "%.Nf" with N = (byte >> 2) % 33
 *   byte 2   bit 0: --raw; bit 1: luma only (two keys)
 *   then     one record of 49 bytes per frame (at most 64): a selector byte,
 *            4 x 8 bytes for the four values, 3 x 4 bytes raw f32 plane
 *            scores, 4 bytes frameNum. The selector's 2-bit fields say how
 *            each value is made from its 8 bytes: 0 and 3 the bits as they
 *            are, 1 a small integer plus 10^-k (k = 1..20), 2 a special value.
 *
 * Checked: the writer succeeds; JSON parses as JSON (a small validator) with
 * one frame object per frame and never a bare nan/inf; XML and sub have a
 * line per frame; CSV has a header and a row per frame, each ending with
 * ','; and every CSV number reads back within half a unit of its last digit,
 * with libvmaf's rule: 16 digits only for a fraction below 1e-6, 6 otherwise.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "psnrhvs.h"

#define HEADER_BYTES      3
#define RECORD_BYTES      49
#define MAX_OUTPUT_FRAMES 64

const char fuzz_target_name[] = "output";

static double make_value(const uint8_t *const b, const int how) {
    if (how == 1) {
        /* N + 10^-k: where libvmaf switches between %.6f and %.16f */
        const int n = (int)(int16_t)(b[0] | b[1] << 8);
        return (b[2] & 1 ? -1 : 1) * (fabs((double)n) + pow(10.0, -(1 + b[3] % 20)));
    }
    if (how == 2) {
        static const double special[] = {
            INFINITY,
            -INFINITY,
            NAN,
            -0.0,
            0.0,
            DBL_MIN,
            DBL_TRUE_MIN,
            DBL_MAX,
            -DBL_MAX,
            2147483648.0,
            2147483647.9999998,
            1e-7,
            1e-6,
            0.999999,
            43.0000000123,
            1e300,
        };
        return special[b[0] % (sizeof(special) / sizeof(special[0]))];
    }
    double v;
    memcpy(&v, b, sizeof(v));
    return v;
}

/* ---- a small JSON validator (RFC 8259 grammar, no semantics) ---- */

typedef struct Json {
    const char *p, *end;
    int depth;
} Json;

static void json_ws(Json *const j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
        j->p++;
}

static int json_lit(Json *const j, const char *const lit) {
    const size_t n = strlen(lit);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n)) return 0;
    j->p += n;
    return 1;
}

static int json_digits(Json *const j) {
    const char *const start = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    return j->p > start;
}

static int json_value(Json *j);

static int json_string(Json *const j) {
    if (j->p >= j->end || *j->p++ != '"') return 0;
    while (j->p < j->end && *j->p != '"') {
        if ((unsigned char)*j->p < 0x20) return 0;
        if (*j->p++ == '\\' && j->p < j->end) j->p++;
    }
    return j->p < j->end && *j->p++ == '"';
}

static int json_number(Json *const j) {
    if (j->p < j->end && *j->p == '-') j->p++;
    if (j->p < j->end && *j->p == '0')
        j->p++;
    else if (!json_digits(j))
        return 0;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!json_digits(j)) return 0;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (!json_digits(j)) return 0;
    }
    return 1;
}

static int json_members(Json *const j, const char close, const int keyed) {
    j->p++;
    json_ws(j);
    if (j->p < j->end && *j->p == close) return j->p++, 1;
    for (;;) {
        json_ws(j);
        if (keyed) {
            if (!json_string(j)) return 0;
            json_ws(j);
            if (j->p >= j->end || *j->p++ != ':') return 0;
        }
        if (!json_value(j)) return 0;
        json_ws(j);
        if (j->p >= j->end) return 0;
        if (*j->p == close) return j->p++, 1;
        if (*j->p++ != ',') return 0;
    }
}

static int json_value(Json *const j) {
    json_ws(j);
    if (j->p >= j->end || ++j->depth > 16) return 0;
    int ok;
    switch (*j->p) {
    case '{':
        ok = json_members(j, '}', 1);
        break;
    case '[':
        ok = json_members(j, ']', 0);
        break;
    case '"':
        ok = json_string(j);
        break;
    case 't':
        ok = json_lit(j, "true");
        break;
    case 'f':
        ok = json_lit(j, "false");
        break;
    case 'n':
        ok = json_lit(j, "null");
        break;
    default:
        ok = json_number(j);
        break;
    }
    j->depth--;
    return ok;
}

static int json_valid(const char *const text, const size_t len) {
    Json j = {text, text + len, 0};
    if (!json_value(&j)) return 0;
    json_ws(&j);
    return j.p == j.end;
}

/* ---- checks of the text written ---- */

static size_t count(const char *const text, const char *const what) {
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

/* One CSV number against the value it was written from. */
static void check_number(const char *const cell, const double v, const int precision,
                         FuzzOutcome *const r) {
    snprintf(r->err, sizeof(r->err), "value %a written as '%s'", v, cell);
    if (!isfinite(v)) {
        const char *const want = isnan(v) ? (signbit(v) ? "-nan" : "nan") : v > 0 ? "inf" : "-inf";
        if (strcmp(cell, want)) fuzz_broken("a non-finite value written unlike printf", r);
        return;
    }
    char *end;
    const double back = strtod(cell, &end);
    if (*end || end == cell) fuzz_broken("a number that does not read back", r);
    const char *const dot = strchr(cell, '.');
    if (precision < 0 && precision != PSNRHVS_PRECISION_VMAF) {
        if (back != v) fuzz_broken("%.17g does not round-trip", r);
        return;
    }
    const int digits = dot ? (int)strlen(dot + 1) : 0;
    if (precision >= 0 && digits != precision) fuzz_broken("not the digits asked for", r);
    if (precision == PSNRHVS_PRECISION_VMAF) {
        const double a = fabs(v);
        const double fraction = a < 2147483648.0 ? a - (double)(int)a : 0.0;
        if (digits != 6 && digits != 16) fuzz_broken("libvmaf's format is %.6f or %.16f", r);
        /* Its rule, seen from outside: a fraction under 1e-6 (the boundary
         * follows its loop's roundings, so a little slack either side). */
        if (digits == 16 && !(fraction > 0 && fraction < 1.0000001e-6))
            fuzz_broken("%.16f for a fraction of 1e-6 or more", r);
        if (digits == 6 && fraction > 0 && fraction < 0.9999999e-6)
            fuzz_broken("%.6f for a fraction under 1e-6", r);
    }
    const double half_unit = 0.5 * pow(10.0, -digits);
    if (fabs(back - v) > half_unit * (1 + 1e-9) + 4 * fabs(v) * DBL_EPSILON)
        fuzz_broken("a number further from its value than its last digit allows", r);
}

static const enum PsnrHvsKey keys_all[4] = {PSNRHVS_KEY_Y, PSNRHVS_KEY_CB, PSNRHVS_KEY_CR,
                                            PSNRHVS_KEY_COMBINED};
static const enum PsnrHvsKey keys_luma[2] = {PSNRHVS_KEY_Y, PSNRHVS_KEY_COMBINED};

static void check_csv(char *const text, const PsnrHvsOutput *const d, FuzzOutcome *const r) {
    const int num_keys = d->num_planes == 3 ? 4 : 2;
    const enum PsnrHvsKey *const keys = d->num_planes == 3 ? keys_all : keys_luma;
    const int cols = num_keys + (d->raw ? d->num_planes : 0);
    char *save = NULL;
    size_t rows = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[strlen(line) - 1] != ',') fuzz_broken("a CSV row not ending with ','", r);
        if (!rows++) continue; /* the header */
        if (rows - 2 >= d->num_frames) fuzz_broken("more CSV rows than frames", r);
        const PsnrHvsFrameScore *const fr = &d->frames[rows - 2];
        char *cell_save = NULL;
        char *cell = strtok_r(line, ",", &cell_save);
        if (!cell || strtoul(cell, NULL, 10) != fr->frame_num) fuzz_broken("a CSV frameNum", r);
        for (int c = 0; c < cols; c++) {
            if (!(cell = strtok_r(NULL, ",", &cell_save))) fuzz_broken("a CSV row too short", r);
            if (c < num_keys)
                check_number(cell, psnrhvs_key_value(&fr->score, keys[c]), d->precision, r);
            else {
                const double back = strtod(cell, NULL), raw = fr->score.raw[c - num_keys];
                if (!(back == raw || (isnan(back) && isnan(raw))))
                    fuzz_broken("a raw plane score that does not read back", r);
            }
        }
        if (strtok_r(NULL, ",", &cell_save)) fuzz_broken("a CSV row too long", r);
    }
    if (rows != d->num_frames + 1) fuzz_broken("not one CSV row per frame", r);
}

static int to_file(void *const f, const char *const data, const size_t size) {
    return fwrite(data, 1, size, f) != size;
}

void fuzz_target_run(const uint8_t *const data, const size_t size, FuzzOutcome *const r) {
    memset(r, 0, sizeof(*r));
    if (size < HEADER_BYTES) {
        snprintf(r->err, sizeof(r->err), "input shorter than the %d-byte header", HEADER_BYTES);
        return;
    }
    const int m = data[0] % 5; /* an enum PsnrHvsScoreFormat, or 4: the summary */
    static const int modes[4] = {PSNRHVS_PRECISION_VMAF, PSNRHVS_PRECISION_MAX, 0,
                                 PSNRHVS_PRECISION_VMAF};
    const int precision = (data[1] & 3) == 2 ? (data[1] >> 2) % 33 : modes[data[1] & 3];
    size_t n = (size - HEADER_BYTES) / RECORD_BYTES;
    if (n > MAX_OUTPUT_FRAMES) n = MAX_OUTPUT_FRAMES;
    r->opened = 1;
    if (!n) return; /* the CLI writes nothing without frames */

    PsnrHvsFrameScore frames[MAX_OUTPUT_FRAMES];
    const int luma_only = (data[2] >> 1) & 1;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *const rec = data + HEADER_BYTES + i * RECORD_BYTES;
        PsnrHvsScore *const s = &frames[i].score;
        memset(s, 0, sizeof(*s));
        double v[4];
        for (int k = 0; k < 4; k++) v[k] = make_value(rec + 1 + 8 * k, (rec[0] >> (2 * k)) & 3);
        s->num_planes = luma_only ? 1 : 3;
        s->psnr_hvs_y = v[0];
        s->psnr_hvs_cb = v[1];
        s->psnr_hvs_cr = v[2];
        s->psnr_hvs = luma_only ? v[0] : v[3];
        memcpy(s->raw, rec + 33, sizeof(s->raw));
        uint32_t num;
        memcpy(&num, rec + 45, sizeof(num));
        frames[i].frame_num = num;
    }
    PsnrHvsOutput d = {
        .version = "psnrhvs-fuzz",
        .width = 16,
        .height = 16,
        .fps = make_value(data, 2), /* inf and NaN too: JSON must say null */
        .num_planes = luma_only ? 1 : 3,
        .frames = frames,
        .num_frames = n,
        .precision = precision,
        .raw = data[2] & 1,
    };
    char *text = NULL;
    size_t len = 0;
    FILE *const f = open_memstream(&text, &len);
    if (!f) return;
    const int res = m < 4 ? psnrhvs_output_write(&d, (enum PsnrHvsScoreFormat)m, to_file, f)
                          : psnrhvs_output_summary(&d, to_file, f);
    if (fclose(f) || res < 0) fuzz_broken("a writer failed on a memory stream", r);
    r->frames = (int)n;
    if (strlen(text) != len) fuzz_broken("a NUL byte in the output", r);

    if (m == PSNRHVS_SCORES_JSON) {
        if (!json_valid(text, len)) fuzz_broken("JSON that does not parse", r);
        if (count(text, "\"frameNum\": ") != n) fuzz_broken("not one JSON frame per frame", r);
        /* (raw plane scores are strings: "inf" is fine there) */
        if (!d.raw && (strstr(text, "nan") || strstr(text, "inf")))
            fuzz_broken("a non-finite JSON value other than null", r);
    } else if (m == PSNRHVS_SCORES_XML) {
        if (count(text, "    <frame frameNum=\"") != n)
            fuzz_broken("not one XML frame per frame", r);
        if (strncmp(text, "<VMAF version=", 14) || len < 8 || strcmp(text + len - 8, "</VMAF>\n"))
            fuzz_broken("XML without its root element", r);
        if (count(text, "\"") % 2) fuzz_broken("XML with an unbalanced quote", r);
    } else if (m == PSNRHVS_SCORES_SUB) {
        if (count(text, "\n") != n || count(text, "}frame: ") != n)
            fuzz_broken("not one subtitle line per frame", r);
    } else if (m == PSNRHVS_SCORES_CSV) {
        check_csv(text, &d, r);
    } else if (count(text, "\n") != (size_t)(d.num_planes == 3 ? 5 : 3)) {
        fuzz_broken("not one summary line per key", r);
    }
    r->err[0] = '\0';
    free(text);
}
