/*
 * CPU vs CUDA parity through the library: every raw golden pair (libvmaf's
 * golden/, the mask_product=exact variant's golden-exact/, and the stress
 * pairs' stress/golden/ and stress/golden-exact/), the Netflix 10/12-bit clips
 * and generated frames (1080p and 2160p at 8 and 10 bits, other layouts, the
 * exact-product threshold, luma only) are scored by both backends; raw plane
 * scores and dB values must have the same bits, and on golden pairs the CPU's
 * must also equal the golden values. The CUDA side keeps several frames in
 * flight. Exits 77 (skip) when no CUDA device can be opened.
 * usage: cuda_parity <tests/data dir> [device] [quick]
 * (quick: fixtures and small generated frames only, for compute-sanitizer)
 * Built with PARITY_HIP defined, the same test runs the HIP backend
 * (tests/hip, hip_parity).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#ifdef PARITY_HIP
#define DEV_BACKEND PSNRHVS_BACKEND_HIP
#define DEV_NAME    "hip"
#else
#define DEV_BACKEND PSNRHVS_BACKEND_CUDA
#define DEV_NAME    "cuda"
#endif

static int device;
static int failures, compared;

static void quiet(void *cookie, const char *msg) {
    (void)cookie;
    (void)msg;
}

static int score_all(const Fixture *c, enum PsnrHvsBackend backend, PsnrHvsScore *out) {
    PsnrHvsSettings s = c->s;
    s.backend = backend;
    s.device = device;
    s.threads = 0;
    PsnrHvsContext *ctx;
    int err = psnrhvs_open(&ctx, &s);
    if (err) {
        fprintf(stderr, "%s: open %s failed: %d\n", c->name,
                backend == PSNRHVS_BACKEND_CPU ? "cpu" : DEV_NAME, err);
        return err;
    }
    err = fixture_score_queued(ctx, c, out);
    psnrhvs_close(&ctx);
    return err;
}

static void check_clip(const Fixture *c) {
    PsnrHvsScore *cpu = calloc((size_t)c->frames, sizeof(*cpu));
    PsnrHvsScore *gpu = calloc((size_t)c->frames, sizeof(*gpu));
    int bad = 0;
    if (score_all(c, PSNRHVS_BACKEND_CPU, cpu) || score_all(c, DEV_BACKEND, gpu)) {
        bad = 1;
    } else {
        for (int f = 0; f < c->frames; f++) {
            const PsnrHvsScore *a = &cpu[f], *b = &gpu[f];
            int ok = scores_same_bits(a, b);
            if (c->golden && fixture_check_golden(c, f, a, c->name)) ok = 0;
            if (!ok) {
                bad++;
                fprintf(stderr, "%s frame %d differs: cpu %a %a %a " DEV_NAME " %a %a %a", c->name,
                        f, a->raw[0], a->raw[1], a->raw[2], b->raw[0], b->raw[1], b->raw[2]);
                if (c->golden)
                    fprintf(stderr, " libvmaf %a %a %a", c->golden[f].raw[0], c->golden[f].raw[1],
                            c->golden[f].raw[2]);
                fprintf(stderr, "\n");
            }
        }
    }
    compared += c->frames;
    failures += bad;
    printf("%-40s %5dx%-5d %2d-bit %d planes %3d frames: %s\n", c->name, c->s.width, c->s.height,
           c->s.bitdepth, cpu[0].num_planes ? cpu[0].num_planes : 0, c->frames,
           bad ? "DIFFERENT" : "identical");
    free(cpu);
    free(gpu);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s <tests/data dir> [device]\n", argv[0]);
        return 2;
    }
    const char *datadir = argv[1];
    if (argc > 2) device = atoi(argv[2]);
    const int quick = argc > 3 && !strcmp(argv[3], "quick");

    /* Skip cleanly where the backend is not built or finds no device. */
    if (!psnrhvs_backend_available(DEV_BACKEND)) {
        printf("SKIP: the " DEV_NAME " backend is not built into this library\n");
        return 77;
    }
    {
        PsnrHvsSettings s;
        psnrhvs_default_settings(&s);
        s.width = 64, s.height = 64, s.backend = DEV_BACKEND, s.device = device;
        s.logger.callback = quiet;
        PsnrHvsContext *ctx;
        const int err = psnrhvs_open(&ctx, &s);
        if (err) {
            char buf[512];
            psnrhvs_list_devices(DEV_BACKEND, 0, buf, sizeof(buf));
            printf("SKIP: cannot open " DEV_NAME " device %d (error %d): %s", device, err, buf);
            return 77;
        }
        psnrhvs_close(&ctx);
    }
    char buf[1024];
    psnrhvs_list_devices(DEV_BACKEND, 1, buf, sizeof(buf));
    printf("%s", buf);

    /* Every set must be there: a missing copy is a failure, not a pass. */
    static const char *const sets[] = {"golden", "golden-exact", "stress/golden",
                                       "stress/golden-exact"};
    int goldens = 0;
    for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
        char pattern[1024];
        snprintf(pattern, sizeof(pattern), "%s/%s/*.json", datadir, sets[k]);
        glob_t g;
        if (glob(pattern, 0, NULL, &g) || g.gl_pathc == 0) {
            fprintf(stderr, "no golden files under %s\n", pattern);
            failures++;
            continue;
        }
        for (size_t i = 0; i < g.gl_pathc; i++) {
            Fixture c;
            /* NULL: each JSON's pair lies in the folder above it */
            const int r = fixture_load_golden(&c, g.gl_pathv[i], NULL);
            if (r > 0) continue;
            if (r < 0) {
                failures++;
                continue;
            }
            check_clip(&c);
            goldens++;
            fixture_free(&c);
        }
        globfree(&g);
    }

    /* The Netflix clips: no published scores, CPU vs CUDA only. */
    static const char *const netflix[2][3] = {
        {"src01 576x324 10-bit", "src01_hrc00_576x324.yuv420p10le.yuv",
         "src01_hrc01_576x324.yuv420p10le.yuv"},
        {"src01 576x324 12-bit", "src01_hrc00_576x324.yuv420p12le.yuv",
         "src01_hrc01_576x324.yuv420p12le.yuv"},
    };
    for (int i = 0; i < 2 && !quick; i++) {
        Fixture c;
        memset(&c, 0, sizeof(c));
        snprintf(c.name, sizeof(c.name), "%s", netflix[i][0]);
        psnrhvs_default_settings(&c.s);
        c.s.width = 576, c.s.height = 324, c.s.bitdepth = i ? 12 : 10;
        c.frames = 3;
        char ref[1024], dist[1024];
        snprintf(ref, sizeof(ref), "%s/netflix/%s", datadir, netflix[i][1]);
        snprintf(dist, sizeof(dist), "%s/netflix/%s", datadir, netflix[i][2]);
        if (fixture_load_pair(&c, ref, dist))
            failures++;
        else
            check_clip(&c);
        fixture_free(&c);
    }

    /* Generated clips (seed = row + 1); quick runs the last two only. */
    static const struct {
        const char *name;
        int w, h, bitdepth;
        enum PsnrHvsPixelLayout layout;
        int frames, exact_product, luma_only, quick;
    } gen[] = {
        {"generated 1080p 8-bit 4:2:0", 1920, 1080, 8, PSNRHVS_PIXEL_LAYOUT_I420, 6, 0, 0, 0},
        {"generated 1080p 10-bit 4:2:0", 1920, 1080, 10, PSNRHVS_PIXEL_LAYOUT_I420, 4, 0, 0, 0},
        {"generated 2160p 8-bit 4:2:0", 3840, 2160, 8, PSNRHVS_PIXEL_LAYOUT_I420, 3, 0, 0, 0},
        {"generated 2160p 10-bit 4:2:0", 3840, 2160, 10, PSNRHVS_PIXEL_LAYOUT_I420, 2, 0, 0, 0},
        {"generated 1283x719 12-bit 4:4:4 exact", 1283, 719, 12, PSNRHVS_PIXEL_LAYOUT_I444, 2, 1, 0,
         0},
        {"generated 641x363 8-bit 4:2:2 luma only", 641, 363, 8, PSNRHVS_PIXEL_LAYOUT_I422, 3, 0, 1,
         1},
        {"generated 8x8 8-bit 4:0:0", 8, 8, 8, PSNRHVS_PIXEL_LAYOUT_I400, 3, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof(gen) / sizeof(gen[0]); i++) {
        if (quick && !gen[i].quick) continue;
        Fixture c;
        fixture_generate(&c, gen[i].name, gen[i].w, gen[i].h, gen[i].bitdepth, gen[i].layout,
                         gen[i].frames, (uint32_t)i + 1);
        if (gen[i].exact_product) c.s.mask_product = PSNRHVS_MASK_PRODUCT_EXACT;
        if (gen[i].luma_only) c.s.enable_chroma = 0;
        check_clip(&c);
        fixture_free(&c);
    }

    printf("%d golden pairs, %d frames compared, %d differing\n", goldens, compared, failures);
    if (goldens == 0) return 1;
    return failures ? 1 : 0;
}
