/*
 * Golden and parity test of a device backend: scores a raw .yuv golden pair
 * with frames in flight (send/receive) and compares every raw plane score
 * (%a) and dB value with libvmaf's, and every raw score with the CPU
 * backend's (memcmp), bit for bit.
 * usage: opencl_golden <golden.json> <data dir> <exact_helpers 0|1> [frames_in_flight]
 * Exits 77 (skip) when no OpenCL device is present. PSNRHVS_OPENCL_DEVICE
 * picks the device (default 0), for machines with several platforms.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
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

static int same_bits(const double a, const double b) {
    return memcmp(&a, &b, sizeof(a)) == 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s golden.json datadir exact_helpers [frames_in_flight]\n",
                argv[0]);
        return 2;
    }
    char *json = slurp(argv[1], NULL);
    if (!json || strncmp(json_value(json, "container"), "\"yuv\"", 5)) {
        fprintf(stderr, "cannot read a raw pair from %s\n", argv[1]);
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
    snprintf(path, sizeof(path), "%s/%s", argv[2], ref_name);
    char *ref = slurp(path, &ref_size);
    snprintf(path, sizeof(path), "%s/%s", argv[2], dist_name);
    char *dist = slurp(path, &dist_size);
    if (!ref || !dist || ref_size != frame_bytes * frames || dist_size != frame_bytes * frames) {
        fprintf(stderr, "bad fixture files for %s\n", argv[1]);
        return 1;
    }

    PsnrHvsContext *cpu, *dev;
    s.backend = PSNRHVS_BACKEND_CPU;
    if (psnrhvs_open(&cpu, &s)) return 1;
    s.backend = PSNRHVS_BACKEND_OPENCL;
    s.exact_helpers = atoi(argv[3]);
    s.frames_in_flight = argc > 4 ? atoi(argv[4]) : 0;
    if (getenv("PSNRHVS_OPENCL_DEVICE")) s.device = atoi(getenv("PSNRHVS_OPENCL_DEVICE"));
    const int err = psnrhvs_open(&dev, &s);
    if (err == PSNRHVS_ERR(ENODEV) && !getenv("PSNRHVS_OPENCL_DEVICE")) {
        printf("SKIP: no OpenCL device\n");
        return 77;
    }
    if (err) return 1;

    PsnrHvsScore *got = calloc((size_t)frames, sizeof(*got));
    PsnrHvsScore *want_cpu = calloc((size_t)frames, sizeof(*want_cpu));
    if (!got || !want_cpu) return 1;
    /* Keep the device queue full: send until EAGAIN, then receive one. */
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
            const int r = psnrhvs_send(dev, &pr, &pd, (uint64_t)sent);
            if (!r) {
                if (psnrhvs_score(cpu, &pr, &pd, &want_cpu[sent])) return 1;
                sent++;
                continue;
            }
            if (r != PSNRHVS_ERR(EAGAIN)) {
                fprintf(stderr, "send failed: %d\n", r);
                return 1;
            }
        }
        PsnrHvsScore sc;
        if (psnrhvs_receive(dev, &sc)) {
            fprintf(stderr, "receive failed\n");
            return 1;
        }
        if (sc.tag != (uint64_t)received) {
            fprintf(stderr, "frame %d came back with tag %llu\n", received,
                    (unsigned long long)sc.tag);
            return 1;
        }
        got[received++] = sc;
    }

    int failures = 0;
    const char *cursor = json_value(json, "per_frame");
    for (int f = 0; f < frames; f++) {
        const PsnrHvsScore *const sc = &got[f];
        cursor = strstr(cursor, "{\"frame\"");
        static const char *const raw_keys[3] = {"raw_y", "raw_cb", "raw_cr"};
        for (int p = 0; p < sc->num_planes; p++) {
            char want[64], have[64];
            sscanf(json_value(cursor, raw_keys[p]), "\"%63[^\"]\"", want);
            snprintf(have, sizeof(have), "%a", (double)sc->raw[p]);
            if (strcmp(want, have)) {
                printf("frame %d %s: got %s, want %s\n", f, raw_keys[p], have, want);
                failures++;
            }
            if (memcmp(&sc->raw[p], &want_cpu[f].raw[p], sizeof(float))) {
                printf("frame %d %s: opencl %a, cpu %a\n", f, raw_keys[p], (double)sc->raw[p],
                       (double)want_cpu[f].raw[p]);
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
                printf("frame %d %s: got %.17g (%a), want %.17g (%a)\n", f, db[k].key, db[k].got,
                       db[k].got, want, want);
                failures++;
            }
        }
        cursor++;
    }
    psnrhvs_close(&dev);
    psnrhvs_close(&cpu);
    printf("%s (opencl, exact_helpers=%d): %d frames, %d mismatches\n", argv[1], s.exact_helpers,
           frames, failures);
    free(got);
    free(want_cpu);
    free(json);
    free(ref);
    free(dist);
    return failures != 0;
}
