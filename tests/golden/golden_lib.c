/*
 * Golden test through the library API: scores a raw .yuv pair and compares
 * every per-frame raw plane score (%a) and dB value with libvmaf's, bit for bit.
 * usage: golden_lib <golden.json> <data dir> [scalar|auto] [threads]
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"

static char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) buf[n] = 0;
    fclose(f);
    if (size) *size = (size_t)n;
    return buf;
}

/* The value text after "key": in s (first occurrence after from). */
static const char *json_value(const char *from, const char *key) {
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(from, pat);
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    return p;
}

static double json_number(const char *v) {
    if (!strncmp(v, "\"inf\"", 5)) return INFINITY;
    return strtod(v, NULL);
}

static int same_bits(double a, double b) {
    return memcmp(&a, &b, sizeof(a)) == 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s golden.json datadir [isa] [threads]\n", argv[0]);
        return 2;
    }
    char *json = slurp(argv[1], NULL);
    if (!json) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    if (strncmp(json_value(json, "container"), "\"yuv\"", 5)) {
        fprintf(stderr, "not a raw pair\n");
        return 1;
    }
    char ref_name[256], dist_name[256], path[1024];
    sscanf(json_value(json, "reference"), "\"%255[^\"]\"", ref_name);
    sscanf(json_value(json, "distorted"), "\"%255[^\"]\"", dist_name);

    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = atoi(json_value(json, "width"));
    s.height = atoi(json_value(json, "height"));
    s.bitdepth = atoi(json_value(json, "bitdepth"));
    const int pf = atoi(json_value(json, "pixel_format") + 1);
    s.layout = pf == 420   ? PSNRHVS_PIXEL_LAYOUT_I420
               : pf == 422 ? PSNRHVS_PIXEL_LAYOUT_I422
               : pf == 444 ? PSNRHVS_PIXEL_LAYOUT_I444
                           : PSNRHVS_PIXEL_LAYOUT_I400;
    if (argc > 3 && !strcmp(argv[3], "scalar")) s.isa = PSNRHVS_ISA_SCALAR;
    if (argc > 4) s.threads = atoi(argv[4]);
    const int frames = atoi(json_value(json, "frames"));

    /* Stored plane sizes: chroma rounded up, as FFmpeg writes files. */
    const int bps = s.bitdepth > 8 ? 2 : 1;
    int pw[3] = {s.width, 0, 0}, ph[3] = {s.height, 0, 0};
    if (s.layout != PSNRHVS_PIXEL_LAYOUT_I400) {
        pw[1] = pw[2] = s.layout == PSNRHVS_PIXEL_LAYOUT_I444 ? s.width : (s.width + 1) / 2;
        ph[1] = ph[2] = s.layout == PSNRHVS_PIXEL_LAYOUT_I420 ? (s.height + 1) / 2 : s.height;
    }
    const size_t frame_bytes =
        ((size_t)pw[0] * ph[0] + (size_t)pw[1] * ph[1] + (size_t)pw[2] * ph[2]) * bps;
    size_t ref_size, dist_size;
    snprintf(path, sizeof(path), "%s/%s", argv[2], ref_name);
    char *ref = slurp(path, &ref_size);
    snprintf(path, sizeof(path), "%s/%s", argv[2], dist_name);
    char *dist = slurp(path, &dist_size);
    if (!ref || !dist || ref_size != frame_bytes * frames || dist_size != frame_bytes * frames) {
        fprintf(stderr, "bad fixture files for %s\n", argv[1]);
        return 1;
    }

    PsnrHvsContext *c;
    if (psnrhvs_open(&c, &s)) return 1;
    int failures = 0;
    const char *cursor = json_value(json, "per_frame");
    for (int f = 0; f < frames; f++) {
        PsnrHvsPicture pr, pd;
        size_t off = frame_bytes * f;
        for (int p = 0; p < 3; p++) {
            pr.data[p] = ref + off;
            pd.data[p] = dist + off;
            pr.stride[p] = pd.stride[p] = (ptrdiff_t)pw[p] * bps;
            off += (size_t)pw[p] * ph[p] * bps;
        }
        PsnrHvsScore sc;
        if (psnrhvs_score(c, &pr, &pd, &sc)) return 1;
        cursor = strstr(cursor, "{\"frame\"");
        static const char *const raw_keys[3] = {"raw_y", "raw_cb", "raw_cr"};
        for (int p = 0; p < sc.num_planes; p++) {
            char want[64], got[64];
            sscanf(json_value(cursor, raw_keys[p]), "\"%63[^\"]\"", want);
            snprintf(got, sizeof(got), "%a", (double)sc.raw[p]);
            if (strcmp(want, got)) {
                printf("frame %d %s: got %s, want %s\n", f, raw_keys[p], got, want);
                failures++;
            }
        }
        const struct {
            const char *key;
            double got;
        } db[] = {{"psnr_hvs_y", sc.psnr_hvs_y},
                  {"psnr_hvs_cb", sc.psnr_hvs_cb},
                  {"psnr_hvs_cr", sc.psnr_hvs_cr},
                  {"psnr_hvs", sc.psnr_hvs}};
        for (int k = 0; k < 4; k++) {
            if (sc.num_planes == 1 && (k == 1 || k == 2)) continue;
            const double want = json_number(json_value(cursor, db[k].key));
            if (!same_bits(want, db[k].got)) {
                printf("frame %d %s: got %.17g (%a), want %.17g (%a)\n", f, db[k].key, db[k].got,
                       db[k].got, want, want);
                failures++;
            }
        }
        cursor++;
    }
    psnrhvs_close(&c);
    printf("%s: %d frames, %d mismatches\n", argv[1], frames, failures);
    free(json);
    free(ref);
    free(dist);
    return failures != 0;
}
