/*
 * Pictures already on the GPU (settings.memory = PSNRHVS_MEMORY_DEVICE): the
 * CUDA backend reads the caller's device planes in place. Every raw golden
 * pair, the Netflix 10/12-bit clips and generated 1080p/2160p 8/10-bit
 * frames are uploaded into pitched device allocations (rows padded, each
 * plane its own allocation, as decoders and tensors have them) and scored
 * from there with frames in flight; the scores must have the bits of the
 * host path, which the golden pairs tie to libvmaf. A device frame with a
 * sample out of range is refused with its position. Exits 77 without a GPU.
 * usage: cuda_device_pictures <tests/data dir>
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "fixture.h"

static int failures, compared;
static char logged[2048];

static void logger(void *cookie, const char *msg) {
    (void)cookie;
    strncat(logged, msg, sizeof(logged) - strlen(logged) - 2);
    strcat(logged, "\n");
}

/* A clip's frames on the device: per frame, side and plane one pitched
 * allocation (pitch > row: the kernels must follow the stride). */
typedef struct DeviceClip {
    void *plane[2][3];
    PsnrHvsPicture *pics; ///< [frame][side]
} DeviceClip;

static int upload(const Fixture *fx, DeviceClip *dc, void ***all, int *nall) {
    dc->pics = calloc((size_t)fx->frames * 2, sizeof(*dc->pics));
    *all = calloc((size_t)fx->frames * 6, sizeof(void *));
    *nall = 0;
    if (!dc->pics || !*all) return -1;
    for (int f = 0; f < fx->frames; f++)
        for (int k = 0; k < 2; k++) {
            const PsnrHvsPicture host = k ? fixture_dist(fx, f) : fixture_ref(fx, f);
            PsnrHvsPicture *const d = &dc->pics[f * 2 + k];
            for (int p = 0; p < fx->layout.planes; p++) {
                const size_t row = (size_t)fx->layout.w[p] * fx->layout.bps;
                size_t pitch;
                void *ptr;
                if (cudaMallocPitch(&ptr, &pitch, row + 64, (size_t)fx->layout.h[p]) != cudaSuccess)
                    return -1;
                (*all)[(*nall)++] = ptr;
                if (cudaMemcpy2D(ptr, pitch, host.data[p], (size_t)host.stride[p], row,
                                 (size_t)fx->layout.h[p], cudaMemcpyHostToDevice) != cudaSuccess)
                    return -1;
                d->data[p] = ptr;
                d->stride[p] = (ptrdiff_t)pitch;
            }
        }
    return 0;
}

static int score(const Fixture *fx, const PsnrHvsPicture *pics, enum PsnrHvsMemory memory,
                 PsnrHvsScore *out) {
    PsnrHvsSettings s = fx->s;
    s.backend = PSNRHVS_BACKEND_CUDA;
    s.memory = memory;
    s.logger.callback = logger;
    PsnrHvsContext *c;
    int err = psnrhvs_open(&c, &s);
    if (err) return err;
    if (!pics) {
        err = fixture_score_queued(c, fx, out);
    } else {
        int sent = 0, got = 0;
        while (got < fx->frames && !err) {
            if (sent < fx->frames) {
                err = psnrhvs_send(c, &pics[sent * 2], &pics[sent * 2 + 1], (uint64_t)sent);
                if (!err) {
                    sent++;
                    continue;
                }
                if (err != PSNRHVS_ERR(EAGAIN)) break;
                err = 0;
            }
            err = psnrhvs_receive(c, &out[got++]);
        }
    }
    psnrhvs_close(&c);
    return err;
}

static void check_clip(const Fixture *fx) {
    DeviceClip dc;
    void **all;
    int nall;
    PsnrHvsScore *host = calloc((size_t)fx->frames, sizeof(*host));
    PsnrHvsScore *dev = calloc((size_t)fx->frames, sizeof(*dev));
    int bad = upload(fx, &dc, &all, &nall) || score(fx, NULL, PSNRHVS_MEMORY_HOST, host) ||
              score(fx, dc.pics, PSNRHVS_MEMORY_DEVICE, dev);
    for (int f = 0; !bad && f < fx->frames; f++) {
        if (!scores_same_bits(&host[f], &dev[f]) ||
            (fx->golden && fixture_check_golden(fx, f, &dev[f], fx->name))) {
            fprintf(stderr, "%s frame %d: host %a %a %a, device %a %a %a\n", fx->name, f,
                    host[f].raw[0], host[f].raw[1], host[f].raw[2], dev[f].raw[0], dev[f].raw[1],
                    dev[f].raw[2]);
            bad++;
        }
    }
    compared += fx->frames;
    failures += bad != 0;
    printf("%-40s %5dx%-5d %2d-bit %3d frames: device pictures %s\n", fx->name, fx->s.width,
           fx->s.height, fx->s.bitdepth, fx->frames,
           bad ? "DIFFERENT" : "identical to the host path");
    for (int i = 0; i < nall; i++) cudaFree(all[i]);
    free(all);
    free(dc.pics);
    free(host);
    free(dev);
}

/* One luma sample above the maximum in a device picture: refused, located. */
static void check_range(void) {
    Fixture fx;
    fixture_generate(&fx, "range", 256, 128, 10, PSNRHVS_PIXEL_LAYOUT_I420, 2, 5);
    DeviceClip dc;
    void **all;
    int nall;
    if (upload(&fx, &dc, &all, &nall)) {
        failures++;
        return;
    }
    const uint16_t big = 1024;
    const PsnrHvsPicture *const bad = &dc.pics[1 * 2 + 1]; /* frame 1, distorted */
    cudaMemcpy((uint8_t *)(uintptr_t)bad->data[1] + 9 * bad->stride[1] + 2 * 33, &big, 2,
               cudaMemcpyHostToDevice);
    PsnrHvsScore sc[2];
    logged[0] = '\0';
    PsnrHvsSettings s = fx.s;
    s.backend = PSNRHVS_BACKEND_CUDA;
    s.memory = PSNRHVS_MEMORY_DEVICE;
    s.logger.callback = logger;
    PsnrHvsContext *c;
    int ok = !psnrhvs_open(&c, &s);
    if (ok) {
        ok = !psnrhvs_score(c, &dc.pics[0], &dc.pics[1], &sc[0]) &&
             psnrhvs_score(c, &dc.pics[2], &dc.pics[3], &sc[1]) == PSNRHVS_ERR(EINVAL) &&
             strstr(logged, "sample 1024 at x 33, y 9 of the distorted picture's Cb plane");
        psnrhvs_close(&c);
    }
    printf("device picture with a sample out of range: %s", ok ? "refused, located: " : "FAILED: ");
    printf("%s", logged[0] ? logged : "nothing logged\n");
    failures += !ok;
    for (int i = 0; i < nall; i++) cudaFree(all[i]);
    free(all);
    free(dc.pics);
    fixture_free(&fx);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *const datadir = argv[1];
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = s.height = 64, s.backend = PSNRHVS_BACKEND_CUDA, s.memory = PSNRHVS_MEMORY_DEVICE;
    s.logger.callback = logger;
    PsnrHvsContext *c;
    if (psnrhvs_open(&c, &s)) {
        printf("SKIP: no CUDA device to take device pictures: %s", logged);
        return 77;
    }
    psnrhvs_close(&c);

    char pattern[1024];
    snprintf(pattern, sizeof(pattern), "%s/golden/*.json", datadir);
    glob_t g;
    if (glob(pattern, 0, NULL, &g)) return 1;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        Fixture fx;
        const int r = fixture_load_golden(&fx, g.gl_pathv[i], datadir);
        if (r) {
            failures += r < 0;
            continue;
        }
        check_clip(&fx);
        fixture_free(&fx);
    }
    globfree(&g);
    for (int bits = 10; bits <= 12; bits += 2) {
        Fixture fx;
        memset(&fx, 0, sizeof(fx));
        snprintf(fx.name, sizeof(fx.name), "netflix src01 576x324 %d-bit", bits);
        psnrhvs_default_settings(&fx.s);
        fx.s.width = 576, fx.s.height = 324, fx.s.bitdepth = bits, fx.frames = 3;
        char ref[1024], dist[1024];
        snprintf(ref, sizeof(ref), "%s/netflix/src01_hrc00_576x324.yuv420p%dle.yuv", datadir, bits);
        snprintf(dist, sizeof(dist), "%s/netflix/src01_hrc01_576x324.yuv420p%dle.yuv", datadir,
                 bits);
        if (fixture_load_pair(&fx, ref, dist))
            failures++;
        else
            check_clip(&fx);
        fixture_free(&fx);
    }
    static const struct {
        int w, h, bits, frames;
    } gen[] = {{1920, 1080, 8, 5}, {1920, 1080, 10, 3}, {3840, 2160, 8, 3}, {3840, 2160, 10, 2}};
    for (size_t i = 0; i < sizeof(gen) / sizeof(gen[0]); i++) {
        Fixture fx;
        char name[64];
        snprintf(name, sizeof(name), "generated %dx%d %d-bit", gen[i].w, gen[i].h, gen[i].bits);
        fixture_generate(&fx, name, gen[i].w, gen[i].h, gen[i].bits, PSNRHVS_PIXEL_LAYOUT_I420,
                         gen[i].frames, (uint32_t)i + 11);
        check_clip(&fx);
        fixture_free(&fx);
    }
    check_range();
    printf("%d frames compared, %d failures\n", compared, failures);
    return failures != 0;
}
