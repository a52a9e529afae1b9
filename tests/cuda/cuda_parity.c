/*
 * CPU vs CUDA parity through the library: every raw golden pair, the Netflix
 * 10/12-bit clips and generated frames (1080p and 2160p at 8 and 10 bits,
 * other layouts, the exact-product threshold, luma only) are scored by both
 * backends; raw plane scores and dB values must have the same bits, and on
 * golden pairs also libvmaf's raw scores. The CUDA side keeps several frames
 * in flight. Exits 77 (skip) when no CUDA device can be opened.
 * usage: cuda_parity <tests/data dir> [device] [quick]
 * (quick: fixtures and small generated frames only, for compute-sanitizer)
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"

static int device;
static int failures, compared;

static char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
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

/* A clip held in memory: frames of ref and dist in file layout (chroma
 * planes rounded up, as files store them). */
typedef struct Clip {
    const char *name;
    PsnrHvsSettings s;
    int frames;
    size_t frame_bytes;
    size_t plane_off[3], stride[3];
    int rows[3]; ///< stored rows of each plane
    unsigned char *ref, *dist;
    float golden[64][3]; ///< libvmaf's raw scores when known
    int have_golden;
} Clip;

static void clip_layout(Clip *c) {
    const int bps = c->s.bitdepth > 8 ? 2 : 1;
    const int w = c->s.width, h = c->s.height;
    int cw = (w + 1) / 2, ch = (h + 1) / 2;
    if (c->s.layout == PSNRHVS_PIXEL_LAYOUT_I422) ch = h;
    if (c->s.layout == PSNRHVS_PIXEL_LAYOUT_I444) cw = w, ch = h;
    c->stride[0] = (size_t)w * bps;
    c->plane_off[0] = 0;
    c->frame_bytes = (size_t)w * h * bps;
    c->rows[0] = h;
    if (c->s.layout == PSNRHVS_PIXEL_LAYOUT_I400) return;
    for (int p = 1; p < 3; p++) {
        c->stride[p] = (size_t)cw * bps;
        c->rows[p] = ch;
        c->plane_off[p] = c->frame_bytes;
        c->frame_bytes += (size_t)cw * ch * bps;
    }
}

static PsnrHvsPicture picture(const Clip *c, const unsigned char *base, int frame) {
    PsnrHvsPicture pic;
    memset(&pic, 0, sizeof(pic));
    for (int p = 0; p < 3; p++) {
        pic.data[p] = base + (size_t)frame * c->frame_bytes + c->plane_off[p];
        pic.stride[p] = (ptrdiff_t)c->stride[p];
    }
    return pic;
}

static void quiet(void *cookie, const char *msg) {
    (void)cookie;
    (void)msg;
}

static int score_all(const Clip *c, enum PsnrHvsBackend backend, PsnrHvsScore *out) {
    PsnrHvsSettings s = c->s;
    s.backend = backend;
    s.device = device;
    s.threads = 0;
    PsnrHvsContext *ctx;
    int err = psnrhvs_open(&ctx, &s);
    if (err) {
        fprintf(stderr, "%s: open %s failed: %d\n", c->name,
                backend == PSNRHVS_BACKEND_CPU ? "cpu" : "cuda", err);
        return err;
    }
    int sent = 0, got = 0;
    while (got < c->frames) {
        while (sent < c->frames) {
            const PsnrHvsPicture r = picture(c, c->ref, sent), d = picture(c, c->dist, sent);
            err = psnrhvs_send(ctx, &r, &d, (uint64_t)sent);
            if (err == PSNRHVS_ERR(EAGAIN)) break;
            if (err) goto done;
            sent++;
        }
        PsnrHvsScore sc;
        if ((err = psnrhvs_receive(ctx, &sc))) goto done;
        if (sc.tag != (uint64_t)got) {
            fprintf(stderr, "%s: tag %llu out of order (expected %d)\n", c->name,
                    (unsigned long long)sc.tag, got);
            err = -1;
            goto done;
        }
        out[got++] = sc;
    }
done:
    psnrhvs_close(&ctx);
    return err;
}

static int same(const void *a, const void *b, size_t n) {
    return !memcmp(a, b, n);
}

static void check_clip(const Clip *c) {
    PsnrHvsScore *cpu = calloc((size_t)c->frames, sizeof(*cpu));
    PsnrHvsScore *gpu = calloc((size_t)c->frames, sizeof(*gpu));
    int bad = 0;
    if (score_all(c, PSNRHVS_BACKEND_CPU, cpu) || score_all(c, PSNRHVS_BACKEND_CUDA, gpu)) {
        bad = 1;
    } else {
        for (int f = 0; f < c->frames; f++) {
            const PsnrHvsScore *a = &cpu[f], *b = &gpu[f];
            int ok = same(a->raw, b->raw, sizeof(a->raw)) &&
                     same(&a->psnr_hvs_y, &b->psnr_hvs_y, sizeof(double)) &&
                     same(&a->psnr_hvs_cb, &b->psnr_hvs_cb, sizeof(double)) &&
                     same(&a->psnr_hvs_cr, &b->psnr_hvs_cr, sizeof(double)) &&
                     same(&a->psnr_hvs, &b->psnr_hvs, sizeof(double));
            if (c->have_golden)
                ok = ok && same(a->raw, c->golden[f], sizeof(float) * a->num_planes);
            if (!ok) {
                bad++;
                fprintf(stderr, "%s frame %d differs: cpu %a %a %a cuda %a %a %a", c->name, f,
                        a->raw[0], a->raw[1], a->raw[2], b->raw[0], b->raw[1], b->raw[2]);
                if (c->have_golden)
                    fprintf(stderr, " libvmaf %a %a %a", c->golden[f][0], c->golden[f][1],
                            c->golden[f][2]);
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

static int load_golden(const char *json_path, const char *datadir, Clip *c) {
    char *json = slurp(json_path, NULL);
    if (!json) return -1;
    if (strncmp(json_value(json, "container"), "\"yuv\"", 5)) {
        free(json);
        return 1;
    }
    char ref_name[256], dist_name[256], path[1024];
    sscanf(json_value(json, "reference"), "\"%255[^\"]\"", ref_name);
    sscanf(json_value(json, "distorted"), "\"%255[^\"]\"", dist_name);
    memset(c, 0, sizeof(*c));
    psnrhvs_default_settings(&c->s);
    c->s.width = atoi(json_value(json, "width"));
    c->s.height = atoi(json_value(json, "height"));
    c->s.bitdepth = atoi(json_value(json, "bitdepth"));
    const int pf = atoi(json_value(json, "pixel_format") + 1);
    c->s.layout = pf == 420   ? PSNRHVS_PIXEL_LAYOUT_I420
                  : pf == 422 ? PSNRHVS_PIXEL_LAYOUT_I422
                  : pf == 444 ? PSNRHVS_PIXEL_LAYOUT_I444
                              : PSNRHVS_PIXEL_LAYOUT_I400;
    c->frames = atoi(json_value(json, "frames"));
    if (c->frames > 64) c->frames = 64;
    clip_layout(c);
    size_t n;
    snprintf(path, sizeof(path), "%s/%s", datadir, ref_name);
    c->ref = (unsigned char *)slurp(path, &n);
    snprintf(path, sizeof(path), "%s/%s", datadir, dist_name);
    c->dist = (unsigned char *)slurp(path, NULL);
    if (!c->ref || !c->dist || n < c->frame_bytes * c->frames) {
        fprintf(stderr, "%s: cannot read the pair\n", json_path);
        free(json);
        return -1;
    }
    const char *at = json_value(json, "per_frame");
    static const char *const keys[3] = {"raw_y", "raw_cb", "raw_cr"};
    c->have_golden = 1;
    for (int f = 0; f < c->frames; f++) {
        const char *next = strstr(at, "\"frame\":");
        if (!next) break;
        at = next + 1;
        for (int p = 0; p < 3; p++) {
            const char *v = json_value(at, keys[p]);
            c->golden[f][p] = v ? strtof(v + 1, NULL) : 0.0f;
            if (!v && p == 0) c->have_golden = 0;
        }
    }
    free(json);
    return 0;
}

static uint32_t rng(uint32_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/* Smooth gradients, hard edges and texture; the distorted copy adds sparse
 * noise (so that many blocks have zero terms and some are identical). */
static void generate(Clip *c, const char *name, int w, int h, int bitdepth,
                     enum PsnrHvsPixelLayout layout, int frames, uint32_t seed) {
    memset(c, 0, sizeof(*c));
    c->name = name;
    psnrhvs_default_settings(&c->s);
    c->s.width = w;
    c->s.height = h;
    c->s.bitdepth = bitdepth;
    c->s.layout = layout;
    c->frames = frames;
    clip_layout(c);
    c->ref = malloc(c->frame_bytes * frames);
    c->dist = malloc(c->frame_bytes * frames);
    const int max = (1 << bitdepth) - 1, bps = bitdepth > 8 ? 2 : 1;
    uint32_t x = seed;
    for (int f = 0; f < frames; f++) {
        for (int p = 0; p < (layout == PSNRHVS_PIXEL_LAYOUT_I400 ? 1 : 3); p++) {
            const int pw = (int)(c->stride[p] / bps);
            for (int y = 0; y < c->rows[p]; y++) {
                for (int i = 0; i < pw; i++) {
                    int v;
                    const int region = ((i / 97) + (y / 61) + f) % 4;
                    if (region == 0)
                        v = (i * 3 + y * 2 + f * 5) % (max + 1);
                    else if (region == 1)
                        v = ((i ^ y) * 7 + f) & max;
                    else if (region == 2)
                        v = (int)(rng(&x) & (uint32_t)max);
                    else
                        v = ((i / 16 + y / 16) & 1) ? max / 4 : max - max / 4;
                    int d = v;
                    const uint32_t r = rng(&x);
                    if ((r & 7) == 0) d += (int)((r >> 8) % 9) - 4;
                    if ((r & 0x3ff) == 1) d = max - d;
                    d = d < 0 ? 0 : d > max ? max : d;
                    const size_t at = (size_t)f * c->frame_bytes + c->plane_off[p] +
                                      (size_t)y * c->stride[p] + (size_t)i * bps;
                    if (bps == 1) {
                        c->ref[at] = (unsigned char)v;
                        c->dist[at] = (unsigned char)d;
                    } else {
                        const uint16_t rv = (uint16_t)v, dv = (uint16_t)d;
                        memcpy(c->ref + at, &rv, 2);
                        memcpy(c->dist + at, &dv, 2);
                    }
                }
            }
        }
    }
}

static void free_clip(Clip *c) {
    free(c->ref);
    free(c->dist);
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
    if (!psnrhvs_backend_available(PSNRHVS_BACKEND_CUDA)) {
        printf("SKIP: the CUDA backend is not built into this library\n");
        return 77;
    }
    {
        PsnrHvsSettings s;
        psnrhvs_default_settings(&s);
        s.width = 64, s.height = 64, s.backend = PSNRHVS_BACKEND_CUDA, s.device = device;
        s.logger.callback = quiet;
        PsnrHvsContext *ctx;
        const int err = psnrhvs_open(&ctx, &s);
        if (err) {
            char buf[512];
            psnrhvs_list_devices(PSNRHVS_BACKEND_CUDA, 0, buf, sizeof(buf));
            printf("SKIP: cannot open CUDA device %d (error %d): %s", device, err, buf);
            return 77;
        }
        psnrhvs_close(&ctx);
    }
    char buf[1024];
    psnrhvs_list_devices(PSNRHVS_BACKEND_CUDA, 1, buf, sizeof(buf));
    printf("%s", buf);

    char pattern[1024];
    snprintf(pattern, sizeof(pattern), "%s/golden/*.json", datadir);
    glob_t g;
    if (glob(pattern, 0, NULL, &g) || g.gl_pathc == 0) {
        fprintf(stderr, "no golden files under %s\n", pattern);
        return 1;
    }
    int goldens = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        Clip c;
        const int r = load_golden(g.gl_pathv[i], datadir, &c);
        if (r > 0) continue;
        if (r < 0) {
            failures++;
            continue;
        }
        const char *slash = strrchr(g.gl_pathv[i], '/');
        c.name = slash ? slash + 1 : g.gl_pathv[i];
        check_clip(&c);
        goldens++;
        free_clip(&c);
    }
    globfree(&g);

    /* The Netflix clips: no published scores, CPU vs CUDA only. */
    static const char *const netflix[2][3] = {
        {"src01 576x324 10-bit", "src01_hrc00_576x324.yuv420p10le.yuv",
         "src01_hrc01_576x324.yuv420p10le.yuv"},
        {"src01 576x324 12-bit", "src01_hrc00_576x324.yuv420p12le.yuv",
         "src01_hrc01_576x324.yuv420p12le.yuv"},
    };
    for (int i = 0; i < 2 && !quick; i++) {
        Clip c;
        memset(&c, 0, sizeof(c));
        c.name = netflix[i][0];
        psnrhvs_default_settings(&c.s);
        c.s.width = 576, c.s.height = 324, c.s.bitdepth = i ? 12 : 10;
        c.frames = 3;
        clip_layout(&c);
        char path[1024];
        size_t n = 0;
        snprintf(path, sizeof(path), "%s/netflix/%s", datadir, netflix[i][1]);
        c.ref = (unsigned char *)slurp(path, &n);
        snprintf(path, sizeof(path), "%s/netflix/%s", datadir, netflix[i][2]);
        c.dist = (unsigned char *)slurp(path, NULL);
        if (!c.ref || !c.dist || n < c.frame_bytes * 3) {
            fprintf(stderr, "cannot read %s\n", path);
            failures++;
        } else {
            check_clip(&c);
        }
        free_clip(&c);
    }

    Clip c;
    if (quick) goto small;
    generate(&c, "generated 1080p 8-bit 4:2:0", 1920, 1080, 8, PSNRHVS_PIXEL_LAYOUT_I420, 6, 1);
    check_clip(&c);
    free_clip(&c);
    generate(&c, "generated 1080p 10-bit 4:2:0", 1920, 1080, 10, PSNRHVS_PIXEL_LAYOUT_I420, 4, 2);
    check_clip(&c);
    free_clip(&c);
    generate(&c, "generated 2160p 8-bit 4:2:0", 3840, 2160, 8, PSNRHVS_PIXEL_LAYOUT_I420, 3, 3);
    check_clip(&c);
    free_clip(&c);
    generate(&c, "generated 2160p 10-bit 4:2:0", 3840, 2160, 10, PSNRHVS_PIXEL_LAYOUT_I420, 2, 4);
    check_clip(&c);
    free_clip(&c);
    generate(&c, "generated 1283x719 12-bit 4:4:4 exact", 1283, 719, 12, PSNRHVS_PIXEL_LAYOUT_I444,
             2, 5);
    c.s.mask_product = PSNRHVS_MASK_PRODUCT_EXACT;
    check_clip(&c);
    free_clip(&c);
small:
    generate(&c, "generated 641x363 8-bit 4:2:2 luma only", 641, 363, 8, PSNRHVS_PIXEL_LAYOUT_I422,
             3, 6);
    c.s.enable_chroma = 0;
    check_clip(&c);
    free_clip(&c);
    generate(&c, "generated 8x8 8-bit 4:0:0", 8, 8, 8, PSNRHVS_PIXEL_LAYOUT_I400, 3, 7);
    check_clip(&c);
    free_clip(&c);

    printf("%d golden pairs, %d frames compared, %d differing\n", goldens, compared, failures);
    if (goldens == 0) return 1;
    return failures ? 1 : 0;
}
