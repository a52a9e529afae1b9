/*
 * psnrhvs test helpers: golden fixtures, frame layout, generated frames,
 * comparisons of bits (see fixture.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

char *fixture_read_file(const char *const path, size_t *const size) {
    FILE *const f = fopen(path, "rb");
    if (!f) return NULL;
    long n = -1;
    if (!fseek(f, 0, SEEK_END)) n = ftell(f);
    char *buf = n >= 0 && !fseek(f, 0, SEEK_SET) ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) buf[n] = 0;
    fclose(f);
    if (size) *size = buf ? (size_t)n : 0;
    return buf;
}

void frame_layout(FrameLayout *const l, const int width, const int height, const int bitdepth,
                  const enum PsnrHvsPixelLayout layout) {
    memset(l, 0, sizeof(*l));
    l->bitdepth = bitdepth;
    l->bps = bitdepth > 8 ? 2 : 1;
    l->planes = layout == PSNRHVS_PIXEL_LAYOUT_I400 ? 1 : 3;
    for (int p = 0; p < l->planes; p++) {
        int w = width, h = height, sw = width, sh = height;
        if (p && layout != PSNRHVS_PIXEL_LAYOUT_I444) w = (width + 1) / 2, sw = width >> 1;
        if (p && layout == PSNRHVS_PIXEL_LAYOUT_I420) h = (height + 1) / 2, sh = height >> 1;
        l->w[p] = w, l->h[p] = h;
        l->scored_w[p] = sw, l->scored_h[p] = sh;
        l->stride[p] = (size_t)w * l->bps;
        l->offset[p] = l->frame_bytes;
        l->frame_bytes += l->stride[p] * h;
    }
}

PsnrHvsPicture frame_picture(const FrameLayout *const l, const void *const frames, const int f) {
    const unsigned char *const base = (const unsigned char *)frames + (size_t)f * l->frame_bytes;
    PsnrHvsPicture pic;
    for (int p = 0; p < 3; p++) {
        pic.data[p] = base + l->offset[p];
        pic.stride[p] = (ptrdiff_t)l->stride[p];
    }
    return pic;
}

static uint32_t xorshift32(uint32_t *const x) {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

void frame_generate(const FrameLayout *const l, const int f, uint32_t *const state,
                    unsigned char *const ref, unsigned char *const dist) {
    const int max = (1 << l->bitdepth) - 1, bps = l->bps;
    for (int p = 0; p < l->planes; p++) {
        for (int y = 0; y < l->h[p]; y++) {
            for (int i = 0; i < l->w[p]; i++) {
                int v;
                const int region = ((i / 97) + (y / 61) + f) % 4;
                if (region == 0)
                    v = (i * 3 + y * 2 + f * 5) % (max + 1);
                else if (region == 1)
                    v = ((i ^ y) * 7 + f) & max;
                else if (region == 2)
                    v = (int)(xorshift32(state) & (uint32_t)max);
                else
                    v = ((i / 16 + y / 16) & 1) ? max / 4 : max - max / 4;
                int d = v;
                const uint32_t r = xorshift32(state);
                if ((r & 7) == 0) d += (int)((r >> 8) % 9) - 4;
                if ((r & 0x3ff) == 1) d = max - d;
                d = d < 0 ? 0 : d > max ? max : d;
                const size_t at = l->offset[p] + (size_t)y * l->stride[p] + (size_t)i * bps;
                if (bps == 1) {
                    ref[at] = (unsigned char)v;
                    dist[at] = (unsigned char)d;
                } else {
                    const uint16_t rv = (uint16_t)v, dv = (uint16_t)d;
                    memcpy(ref + at, &rv, 2);
                    memcpy(dist + at, &dv, 2);
                }
            }
        }
    }
}

/* The text after "key": in [from, end), or NULL. */
static const char *json_value(const char *const from, const char *const end,
                              const char *const key) {
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(from, pat);
    if (!p || p >= end) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    return p;
}

static int json_string(const char *const v, char *const out, const size_t size) {
    if (!v || *v != '"') return -1;
    const char *const close = strchr(v + 1, '"');
    if (!close || (size_t)(close - v - 1) >= size) return -1;
    memcpy(out, v + 1, (size_t)(close - v - 1));
    out[close - v - 1] = 0;
    return 0;
}

static int json_int(const char *const v, int *const out) {
    char *end;
    if (!v) return -1;
    const long n = strtol(v, &end, 10);
    if (end == v || n < 0 || n > 1 << 20) return -1;
    *out = (int)n;
    return 0;
}

static int json_null(const char *const v) {
    return v && !strncmp(v, "null", 4);
}

/* A raw score: f32 %a text. Only text that is exactly what "%a" prints for
 * its value is accepted, so bit equality is the old text equality. */
static int json_raw(const char *const v, float *const out) {
    char text[64], back[64], *end;
    if (json_string(v, text, sizeof(text))) return -1;
    const float f = strtof(text, &end);
    snprintf(back, sizeof(back), "%a", (double)f);
    if (*end || strcmp(text, back)) return -1;
    *out = f;
    return 0;
}

/* A dB value: a %.17g number, or "inf" (identical inputs). */
static int json_db(const char *const v, double *const out) {
    char *end;
    if (!v) return -1;
    if (!strncmp(v, "\"inf\"", 5)) {
        *out = INFINITY;
        return 0;
    }
    *out = strtod(v, &end);
    while (*end == ' ' || *end == '\n' || *end == '\r') end++;
    return end == v || (*end != ',' && *end != '}') ? -1 : 0;
}

/* One "per_frame" record, {... "frame": f, ...} in [rec, end). golden/ gives
 * raw_* and dB values ("inf" for +inf, null for an absent 4:0:0 chroma);
 * golden-exact/ and stress/ give dB values only, written as libvmaf's JSON
 * writes them: null for a value that is not finite, which for these pairs
 * (raw 0, identical planes) is +inf. */
static int parse_record(const char *const rec, const char *const end, const int f, const int planes,
                        GoldenFrame *const g) {
    static const char *const raw_keys[3] = {"raw_y", "raw_cb", "raw_cr"};
    static const char *const db_keys[4] = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"};
    int n;
    if (json_int(json_value(rec, end, "frame"), &n) || n != f) return -1;
    const char *raw[3], *db[4];
    int raws = 0;
    for (int p = 0; p < 3; p++) raws += (raw[p] = json_value(rec, end, raw_keys[p])) != NULL;
    for (int k = 0; k < 4; k++)
        if (!(db[k] = json_value(rec, end, db_keys[k]))) return -1;
    if (raws != 0 && raws != 3) return -1;
    memset(g, 0, sizeof(*g));
    g->planes = planes;
    g->has_raw = raws == 3;
    for (int p = 0; p < 3; p++) {
        if (!g->has_raw) break;
        if (p >= planes ? !json_null(raw[p]) : json_raw(raw[p], &g->raw[p])) return -1;
    }
    for (int k = 0; k < 4; k++) {
        if (planes == 1 && (k == 1 || k == 2)) {
            if (!json_null(db[k])) return -1;
            g->db[k] = NAN;
        } else if (!g->has_raw && json_null(db[k])) {
            g->db[k] = INFINITY;
        } else if (json_db(db[k], &g->db[k])) {
            return -1;
        }
    }
    return 0;
}

static enum PsnrHvsPixelLayout layout_of(const int pf) {
    return pf == 420   ? PSNRHVS_PIXEL_LAYOUT_I420
           : pf == 422 ? PSNRHVS_PIXEL_LAYOUT_I422
           : pf == 444 ? PSNRHVS_PIXEL_LAYOUT_I444
                       : PSNRHVS_PIXEL_LAYOUT_I400;
}

/* The per_frame records: each starts at the '{' before a "frame": key and
 * ends at the next '}' (records hold no nested objects). Returns how many
 * there are, or -1 for a malformed list. */
static int count_records(const char *const per_frame) {
    int n = 0;
    for (const char *p = per_frame; (p = strstr(p, "\"frame\":")); n++) {
        const char *const close = strchr(p, '}');
        if (!close) return -1;
        p = close;
    }
    return n;
}

int fixture_load_golden(Fixture *const fx, const char *const json_path, const char *const datadir) {
    memset(fx, 0, sizeof(*fx));
    /* The name keeps the JSON's folder: golden/x.json and golden-exact/x.json
     * are different fixtures. */
    const char *name = strrchr(json_path, '/');
    if (name) {
        const char *p = name;
        while (p > json_path && p[-1] != '/') p--;
        name = p;
    }
    snprintf(fx->name, sizeof(fx->name), "%s", name ? name : json_path);
    char *const json = fixture_read_file(json_path, NULL);
    if (!json) {
        fprintf(stderr, "cannot read %s\n", json_path);
        return -1;
    }
    /* Header keys come before the records, whose keys differ but could
     * share a prefix with a pattern. */
    const char *const per_frame = strstr(json, "\"per_frame\":");
    const char *const head_end = per_frame ? per_frame : json + strlen(json);
    char container[16], pf[8], ref_name[256], dist_name[256], feature[64] = "";
    int ret = -1;
    if (json_string(json_value(json, head_end, "container"), container, sizeof(container)))
        goto bad;
    if (strcmp(container, "yuv")) {
        ret = strcmp(container, "y4m") ? -1 : 1;
        if (ret < 0) goto bad;
        goto done;
    }
    psnrhvs_default_settings(&fx->s);
    const char *const frames_key = json_value(json, head_end, "frames");
    const char *const feature_key = json_value(json, head_end, "feature");
    const int records = per_frame ? count_records(per_frame) : -1;
    if (json_string(json_value(json, head_end, "reference"), ref_name, sizeof(ref_name)) ||
        json_string(json_value(json, head_end, "distorted"), dist_name, sizeof(dist_name)) ||
        json_string(json_value(json, head_end, "pixel_format"), pf, sizeof(pf)) ||
        json_int(json_value(json, head_end, "width"), &fx->s.width) ||
        json_int(json_value(json, head_end, "height"), &fx->s.height) ||
        json_int(json_value(json, head_end, "bitdepth"), &fx->s.bitdepth) || records < 1 ||
        (frames_key && (json_int(frames_key, &fx->frames) || fx->frames != records)) ||
        (feature_key && json_string(feature_key, feature, sizeof(feature))) ||
        (strcmp(pf, "400") && strcmp(pf, "420") && strcmp(pf, "422") && strcmp(pf, "444")))
        goto bad;
    fx->frames = records;
    /* The only variant golden data exists for; any other is an error, not
     * libvmaf's default. */
    if (!strcmp(feature, "psnr_hvs=mask_product=exact"))
        fx->s.mask_product = PSNRHVS_MASK_PRODUCT_EXACT;
    else if (feature_key)
        goto bad;
    fx->s.layout = layout_of(atoi(pf));
    const int planes = fx->s.layout == PSNRHVS_PIXEL_LAYOUT_I400 ? 1 : 3;
    fx->golden = calloc((size_t)fx->frames + 1, sizeof(*fx->golden));
    if (!fx->golden) goto bad;
    const char *rec = per_frame;
    for (int f = 0; f < fx->frames; f++) {
        const char *const key = strstr(rec, "\"frame\":");
        const char *open = key;
        while (open && open > per_frame && *open != '{') open--;
        const char *const end = key ? strchr(key, '}') : NULL;
        if (!end || *open != '{' || parse_record(open, end, f, planes, &fx->golden[f])) {
            fprintf(stderr, "%s: bad per_frame record %d\n", json_path, f);
            goto bad;
        }
        rec = end;
    }
    char dir[1024], ref_path[2048], dist_path[2048];
    if (datadir) {
        snprintf(dir, sizeof(dir), "%s", datadir);
    } else {
        /* The folder above the JSON's (relative paths included). */
        snprintf(dir, sizeof(dir), "%s", json_path);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        else
            snprintf(dir, sizeof(dir), "%s", strrchr(json_path, '/') ? "." : "..");
    }
    snprintf(ref_path, sizeof(ref_path), "%s/%s", dir, ref_name);
    snprintf(dist_path, sizeof(dist_path), "%s/%s", dir, dist_name);
    if (fixture_load_pair(fx, ref_path, dist_path)) goto bad;
    ret = 0;
    goto done;
bad:
    fprintf(stderr, "bad golden fixture %s\n", json_path);
    fixture_free(fx);
done:
    free(json);
    return ret;
}

int fixture_load_pair(Fixture *const fx, const char *const ref_path, const char *const dist_path) {
    frame_layout(&fx->layout, fx->s.width, fx->s.height, fx->s.bitdepth, fx->s.layout);
    const size_t want = fx->layout.frame_bytes * (size_t)fx->frames;
    size_t ref_size, dist_size;
    fx->ref = (unsigned char *)fixture_read_file(ref_path, &ref_size);
    fx->dist = (unsigned char *)fixture_read_file(dist_path, &dist_size);
    if (!fx->ref || !fx->dist || ref_size != want || dist_size != want) {
        fprintf(stderr, "%s: %s and %s must hold %d frames of %zu bytes\n", fx->name, ref_path,
                dist_path, fx->frames, fx->layout.frame_bytes);
        return -1;
    }
    return 0;
}

void fixture_generate(Fixture *const fx, const char *const name, const int width, const int height,
                      const int bitdepth, const enum PsnrHvsPixelLayout layout, const int frames,
                      const uint32_t seed) {
    memset(fx, 0, sizeof(*fx));
    snprintf(fx->name, sizeof(fx->name), "%s", name);
    psnrhvs_default_settings(&fx->s);
    fx->s.width = width;
    fx->s.height = height;
    fx->s.bitdepth = bitdepth;
    fx->s.layout = layout;
    fx->frames = frames;
    frame_layout(&fx->layout, width, height, bitdepth, layout);
    const size_t fb = fx->layout.frame_bytes;
    fx->ref = malloc(fb * frames);
    fx->dist = malloc(fb * frames);
    if (!fx->ref || !fx->dist) {
        fprintf(stderr, "%s: out of memory\n", name);
        abort();
    }
    uint32_t state = seed;
    for (int f = 0; f < frames; f++)
        frame_generate(&fx->layout, f, &state, fx->ref + f * fb, fx->dist + f * fb);
}

void fixture_free(Fixture *const fx) {
    free(fx->ref);
    free(fx->dist);
    free(fx->golden);
    fx->ref = fx->dist = NULL;
    fx->golden = NULL;
}

int fixture_score_queued(PsnrHvsContext *const c, const Fixture *const fx,
                         PsnrHvsScore *const out) {
    int sent = 0, got = 0, err;
    while (got < fx->frames) {
        while (sent < fx->frames) {
            const PsnrHvsPicture r = fixture_ref(fx, sent), d = fixture_dist(fx, sent);
            err = psnrhvs_send(c, &r, &d, (uint64_t)sent);
            if (err == PSNRHVS_ERR(EAGAIN)) break;
            if (err) {
                fprintf(stderr, "%s: send of frame %d failed (%d)\n", fx->name, sent, err);
                return err;
            }
            sent++;
        }
        PsnrHvsScore sc;
        if ((err = psnrhvs_receive(c, &sc))) {
            fprintf(stderr, "%s: receive of frame %d failed (%d)\n", fx->name, got, err);
            return err;
        }
        if (sc.tag != (uint64_t)got) {
            fprintf(stderr, "%s: frame %d came back with tag %llu\n", fx->name, got,
                    (unsigned long long)sc.tag);
            return -1;
        }
        out[got++] = sc;
    }
    return 0;
}

int fixture_check_golden(const Fixture *const fx, const int f, const PsnrHvsScore *const sc,
                         const char *const what) {
    static const char *const raw_keys[3] = {"raw_y", "raw_cb", "raw_cr"};
    static const char *const db_keys[4] = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"};
    const GoldenFrame *const g = &fx->golden[f];
    char label[256];
    int failures = 0;
    if (sc->num_planes != g->planes) {
        printf("%s frame %d: %d planes scored, libvmaf scored %d\n", what, f, sc->num_planes,
               g->planes);
        failures++;
    }
    for (int p = 0; g->has_raw && p < sc->num_planes && p < 3; p++) {
        snprintf(label, sizeof(label), "%s frame %d %s", what, f, raw_keys[p]);
        failures += check_bits_f32(label, sc->raw[p], g->raw[p]);
    }
    const double db[4] = {sc->psnr_hvs_y, sc->psnr_hvs_cb, sc->psnr_hvs_cr, sc->psnr_hvs};
    for (int k = 0; k < 4; k++) {
        if (sc->num_planes == 1 && (k == 1 || k == 2)) continue;
        snprintf(label, sizeof(label), "%s frame %d %s", what, f, db_keys[k]);
        failures += check_bits_f64(label, db[k], g->db[k]);
    }
    return failures;
}

int same_bits_f32(const float a, const float b) {
    return !memcmp(&a, &b, sizeof(a));
}

int same_bits_f64(const double a, const double b) {
    return !memcmp(&a, &b, sizeof(a));
}

int check_bits_f32(const char *const what, const float got, const float want) {
    if (same_bits_f32(got, want)) return 0;
    printf("%s: got %a, want %a\n", what, (double)got, (double)want);
    return 1;
}

int check_bits_f64(const char *const what, const double got, const double want) {
    if (same_bits_f64(got, want)) return 0;
    printf("%s: got %.17g (%a), want %.17g (%a)\n", what, got, got, want, want);
    return 1;
}

int scores_same_bits(const PsnrHvsScore *const a, const PsnrHvsScore *const b) {
    return !memcmp(a->raw, b->raw, sizeof(a->raw)) && same_bits_f64(a->psnr_hvs_y, b->psnr_hvs_y) &&
           same_bits_f64(a->psnr_hvs_cb, b->psnr_hvs_cb) &&
           same_bits_f64(a->psnr_hvs_cr, b->psnr_hvs_cr) && same_bits_f64(a->psnr_hvs, b->psnr_hvs);
}
