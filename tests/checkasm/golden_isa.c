/*
 * The golden fixtures through one CPU path: `golden_isa <isa> <threads>
 * <frames_in_flight> <data dir> <golden.json>...` with isa scalar, c, avx2,
 * avx512 or auto. Frames go through psnrhvs_send/receive with up to
 * frames_in_flight queued; every raw plane score (%a) and dB value must equal
 * libvmaf's bit for bit. Exits 77 when the CPU or the build lacks the ISA.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
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

typedef struct Fixture {
    char *json, *ref, *dist;
    size_t frame_bytes;
    int pw[3], ph[3], bps;
} Fixture;

static int check_frame(const char *name, const char *cursor, const PsnrHvsScore *sc) {
    int failures = 0;
    static const char *const raw_keys[3] = {"raw_y", "raw_cb", "raw_cr"};
    for (int p = 0; p < sc->num_planes; p++) {
        char want[64], got[64];
        sscanf(json_value(cursor, raw_keys[p]), "\"%63[^\"]\"", want);
        snprintf(got, sizeof(got), "%a", (double)sc->raw[p]);
        if (strcmp(want, got)) {
            printf("%s frame %d %s: got %s, want %s\n", name, (int)sc->tag, raw_keys[p], got, want);
            failures++;
        }
    }
    const struct {
        const char *key;
        double got;
    } db[] = {{"psnr_hvs_y", sc->psnr_hvs_y},
              {"psnr_hvs_cb", sc->psnr_hvs_cb},
              {"psnr_hvs_cr", sc->psnr_hvs_cr},
              {"psnr_hvs", sc->psnr_hvs}};
    for (int k = 0; k < 4; k++) {
        if (sc->num_planes == 1 && (k == 1 || k == 2)) continue;
        const double want = json_number(json_value(cursor, db[k].key));
        if (!same_bits(want, db[k].got)) {
            printf("%s frame %d %s: got %.17g, want %.17g\n", name, (int)sc->tag, db[k].key,
                   db[k].got, want);
            failures++;
        }
    }
    return failures;
}

/* 0 pass, 1 fail, 77 skip */
static int run_fixture(const char *json_path, const char *datadir, const char *isa,
                       const int threads, const int in_flight) {
    char *json = slurp(json_path, NULL);
    if (!json) {
        fprintf(stderr, "cannot read %s\n", json_path);
        return 1;
    }
    if (strncmp(json_value(json, "container"), "\"yuv\"", 5)) {
        free(json);
        return 0; /* y4m fixtures: the same pictures as their yuv twins */
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
    s.threads = threads;
    s.frames_in_flight = in_flight;
    psnrhvs_set_cpu_flags_mask(~0u);
    if (!strcmp(isa, "scalar"))
        s.isa = PSNRHVS_ISA_SCALAR;
    else if (!strcmp(isa, "avx2"))
        s.isa = PSNRHVS_ISA_AVX2;
    else if (!strcmp(isa, "avx512"))
        s.isa = PSNRHVS_ISA_AVX512;
    else if (!strcmp(isa, "c"))
        psnrhvs_set_cpu_flags_mask(0); /* auto over no SIMD flag: the C kernels */
    const int frames = atoi(json_value(json, "frames"));

    const int bps = s.bitdepth > 8 ? 2 : 1;
    int pw[3] = {s.width, 0, 0}, ph[3] = {s.height, 0, 0};
    if (s.layout != PSNRHVS_PIXEL_LAYOUT_I400) {
        pw[1] = pw[2] = s.layout == PSNRHVS_PIXEL_LAYOUT_I444 ? s.width : (s.width + 1) / 2;
        ph[1] = ph[2] = s.layout == PSNRHVS_PIXEL_LAYOUT_I420 ? (s.height + 1) / 2 : s.height;
    }
    const size_t frame_bytes =
        ((size_t)pw[0] * ph[0] + (size_t)pw[1] * ph[1] + (size_t)pw[2] * ph[2]) * bps;
    size_t ref_size, dist_size;
    snprintf(path, sizeof(path), "%s/%s", datadir, ref_name);
    char *ref = slurp(path, &ref_size);
    snprintf(path, sizeof(path), "%s/%s", datadir, dist_name);
    char *dist = slurp(path, &dist_size);
    if (!ref || !dist || ref_size != frame_bytes * frames || dist_size != frame_bytes * frames) {
        fprintf(stderr, "bad fixture files for %s\n", json_path);
        return 1;
    }

    PsnrHvsContext *c;
    const int err = psnrhvs_open(&c, &s);
    if (err == PSNRHVS_ERR(ENOSYS)) {
        printf("%s: isa %s unavailable here, skipped\n", json_path, isa);
        free(json), free(ref), free(dist);
        return 77;
    }
    if (err) return 1;
    int failures = 0;
    if (strcmp(isa, "auto") && strcmp(psnrhvs_isa_name(c), isa)) {
        printf("%s: asked for isa %s, the context runs %s\n", json_path, isa, psnrhvs_isa_name(c));
        failures++;
    }
    /* Per-frame JSON records, in frame order. */
    const char **records = calloc((size_t)frames, sizeof(*records));
    const char *cursor = json_value(json, "per_frame");
    for (int f = 0; f < frames; f++) {
        cursor = strstr(cursor, "{\"frame\"");
        records[f] = cursor++;
    }
    int sent = 0, received = 0;
    while (received < frames) {
        if (sent < frames) {
            PsnrHvsPicture pr, pd;
            size_t off = frame_bytes * sent;
            for (int p = 0; p < 3; p++) {
                pr.data[p] = ref + off;
                pd.data[p] = dist + off;
                pr.stride[p] = pd.stride[p] = (ptrdiff_t)pw[p] * bps;
                off += (size_t)pw[p] * ph[p] * bps;
            }
            const int e = psnrhvs_send(c, &pr, &pd, (uint64_t)sent);
            if (!e) {
                sent++;
                continue;
            }
            if (e != PSNRHVS_ERR(EAGAIN)) {
                printf("%s: send failed (%d)\n", json_path, e);
                return 1;
            }
        }
        PsnrHvsScore sc;
        if (psnrhvs_receive(c, &sc)) {
            printf("%s: receive failed\n", json_path);
            return 1;
        }
        if ((int)sc.tag != received) {
            printf("%s: frame %d came back as %d\n", json_path, received, (int)sc.tag);
            failures++;
        }
        failures += check_frame(json_path, records[received], &sc);
        received++;
    }
    psnrhvs_close(&c);
    printf("%s: isa %s, %d threads, %d in flight: %d frames, %d mismatches\n", json_path, isa,
           threads, in_flight, frames, failures);
    free(records);
    free(json);
    free(ref);
    free(dist);
    return failures != 0;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s isa threads frames_in_flight datadir golden.json...\n", argv[0]);
        return 1;
    }
    int status = 0, skipped = 0, run = 0;
    for (int i = 5; i < argc; i++) {
        const int r = run_fixture(argv[i], argv[4], argv[1], atoi(argv[2]), atoi(argv[3]));
        if (r == 77)
            skipped++;
        else
            run++, status |= r;
    }
    if (!run && skipped) return 77;
    return status;
}
