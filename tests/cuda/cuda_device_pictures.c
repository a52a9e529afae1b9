/*
 * Pictures already on the GPU (settings.memory = PSNRHVS_MEMORY_DEVICE): the
 * CUDA backend reads the caller's device planes in place. Every raw golden
 * pair, the Netflix 10/12-bit clips and generated 1080p/2160p 8/10-bit
 * frames are uploaded into pitched device allocations (rows padded, each
 * plane its own allocation, as decoders and tensors have them) and scored
 * from there with frames in flight; the scores must have the bits of the
 * host path, which the golden pairs tie to libvmaf. Each clip is stored five
 * ways: planar, and as NVDEC writes frames (chroma interleaved, NV12-style;
 * samples in the high bits, P010-style; both; both with the reference left
 * in host memory, settings.reference_on_host). Ladders of P010-style
 * pictures have each pair's bits. A sample out of range is refused with its
 * position. Exits 77 without a GPU.
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

/* How the device planes store their samples: planar, or as NVDEC writes
 * them (settings.chroma_interleaved: NV12/NV16/NV24-style chroma;
 * msb_aligned: P010/P016-style samples in the high bits). */
typedef struct Storage {
    const char *name;
    int interleaved, msb;
    int ref_host; ///< the reference pictures stay in host memory (settings.reference_on_host)
} Storage;

static const Storage storages[] = {{"planar", 0, 0, 0},
                                   {"interleaved", 1, 0, 0},
                                   {"msb-aligned", 0, 1, 0},
                                   {"interleaved msb", 1, 1, 0},
                                   {"host ref + i/msb", 1, 1, 1}};
#define NUM_STORAGES (int)(sizeof(storages) / sizeof(storages[0]))

/* A clip's frames on the device: per frame, side and stored plane one pitched
 * allocation (pitch > row: the kernels must follow the stride). */
typedef struct DeviceClip {
    PsnrHvsPicture *pics; ///< [frame][side]
} DeviceClip;

/* Plane p of a host picture (planes p and p + 1 when interleaved) into
 * host rows of the stored format: step samples apart, moved up by shift. */
static void store_rows(const PsnrHvsPicture *host, const FrameLayout *l, int p, int step, int shift,
                       unsigned char *out, size_t row) {
    for (int y = 0; y < l->h[p]; y++)
        for (int x = 0; x < l->w[p]; x++)
            for (int k = 0; k < step; k++) {
                const unsigned char *in = (const unsigned char *)host->data[p + k] +
                                          (size_t)y * (size_t)host->stride[p + k];
                unsigned char *o = out + (size_t)y * row + ((size_t)x * step + k) * l->bps;
                if (l->bps == 1) {
                    *o = in[x];
                } else {
                    uint16_t v;
                    memcpy(&v, in + 2 * x, 2);
                    v = (uint16_t)(v << shift);
                    memcpy(o, &v, 2);
                }
            }
}

static int upload(const Fixture *fx, const Storage *st, DeviceClip *dc, void ***all, int *nall) {
    const FrameLayout *const l = &fx->layout;
    const int shift = st->msb && l->bitdepth > 8 ? 16 - l->bitdepth : 0;
    dc->pics = calloc((size_t)fx->frames * 2, sizeof(*dc->pics));
    *all = calloc((size_t)fx->frames * 6, sizeof(void *));
    *nall = 0;
    if (!dc->pics || !*all) return -1;
    for (int f = 0; f < fx->frames; f++)
        for (int k = 0; k < 2; k++) {
            const PsnrHvsPicture host = k ? fixture_dist(fx, f) : fixture_ref(fx, f);
            PsnrHvsPicture *const d = &dc->pics[f * 2 + k];
            if (!k && st->ref_host) {
                *d = host;
                continue;
            }
            for (int p = 0; p < l->planes; p++) {
                const int step = p && st->interleaved ? 2 : 1;
                const size_t row = (size_t)l->w[p] * (size_t)l->bps * (size_t)step;
                unsigned char *const rows = malloc(row * (size_t)l->h[p]);
                size_t pitch;
                void *ptr;
                if (!rows) return -1;
                store_rows(&host, l, p, step, shift, rows, row);
                const int ok =
                    cudaMallocPitch(&ptr, &pitch, row + 64, (size_t)l->h[p]) == cudaSuccess &&
                    cudaMemcpy2D(ptr, pitch, rows, row, row, (size_t)l->h[p],
                                 cudaMemcpyHostToDevice) == cudaSuccess;
                free(rows);
                if (!ok) return -1;
                (*all)[(*nall)++] = ptr;
                for (int q = p; q < p + step; q++) {
                    d->data[q] = (const unsigned char *)ptr + (size_t)(q - p) * (size_t)l->bps;
                    d->stride[q] = (ptrdiff_t)pitch;
                }
                p += step - 1;
            }
        }
    return 0;
}

static void storage_settings(PsnrHvsSettings *s, const Fixture *fx, const Storage *st) {
    s->chroma_interleaved = st->interleaved && fx->layout.planes == 3;
    s->msb_aligned = st->msb && fx->layout.bitdepth > 8;
    s->reference_on_host = st->ref_host;
}

static int score(const Fixture *fx, const Storage *st, const PsnrHvsPicture *pics,
                 enum PsnrHvsMemory memory, PsnrHvsScore *out) {
    PsnrHvsSettings s = fx->s;
    s.backend = PSNRHVS_BACKEND_CUDA;
    s.memory = memory;
    if (pics) storage_settings(&s, fx, st);
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

static void check_clip(const Fixture *fx, const Storage *st) {
    DeviceClip dc = {0};
    void **all = NULL;
    int nall = 0;
    PsnrHvsScore *host = calloc((size_t)fx->frames, sizeof(*host));
    PsnrHvsScore *dev = calloc((size_t)fx->frames, sizeof(*dev));
    int bad = upload(fx, st, &dc, &all, &nall) || score(fx, st, NULL, PSNRHVS_MEMORY_HOST, host) ||
              score(fx, st, dc.pics, PSNRHVS_MEMORY_DEVICE, dev);
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
    printf("%-40s %5dx%-5d %2d-bit %3d frames: %-15s device pictures %s\n", fx->name, fx->s.width,
           fx->s.height, fx->s.bitdepth, fx->frames, st->name,
           bad ? "DIFFERENT" : "identical to the host path");
    for (int i = 0; i < nall; i++) cudaFree(all[i]);
    free(all);
    free(dc.pics);
    free(host);
    free(dev);
}

/* A sample out of range in a device picture: refused, located. Planar: a
 * Cb sample above the 10-bit maximum; P010-style (interleaved, msb-aligned):
 * a Cr sample with a bit set below its 10 high bits. in_ref (a host
 * reference): a luma sample of the reference above the maximum instead. */
static void check_range(const Storage *st, int in_ref, const char *want) {
    Fixture fx;
    fixture_generate(&fx, "range", 256, 128, 10, PSNRHVS_PIXEL_LAYOUT_I420, 2, 5);
    DeviceClip dc = {0};
    void **all = NULL;
    int nall = 0;
    if (upload(&fx, st, &dc, &all, &nall)) {
        failures++;
        return;
    }
    const uint16_t big = st->msb ? (uint16_t)((7u << 6) | 1u) : 1024;
    const int plane = st->msb ? 2 : 1;
    const PsnrHvsPicture *const bad = &dc.pics[1 * 2 + !in_ref]; /* frame 1 */
    const size_t step = st->interleaved ? 2 : 1;
    if (in_ref)
        memcpy((uint8_t *)(uintptr_t)bad->data[0] + 50 * bad->stride[0] + 2 * 40, &(uint16_t){1024},
               2);
    else
        cudaMemcpy((uint8_t *)(uintptr_t)bad->data[plane] + 9 * bad->stride[plane] + 2 * step * 33,
                   &big, 2, cudaMemcpyHostToDevice);
    PsnrHvsScore sc[2];
    logged[0] = '\0';
    PsnrHvsSettings s = fx.s;
    s.backend = PSNRHVS_BACKEND_CUDA;
    s.memory = PSNRHVS_MEMORY_DEVICE;
    storage_settings(&s, &fx, st);
    s.logger.callback = logger;
    PsnrHvsContext *c;
    int ok = !psnrhvs_open(&c, &s);
    if (ok) {
        ok = !psnrhvs_score(c, &dc.pics[0], &dc.pics[1], &sc[0]) &&
             psnrhvs_score(c, &dc.pics[2], &dc.pics[3], &sc[1]) == PSNRHVS_ERR(EINVAL) &&
             strstr(logged, want);
        psnrhvs_close(&c);
    }
    printf("%s: a sample out of range in the %s: %s", st->name,
           in_ref ? "host reference" : "device picture", ok ? "refused, located: " : "FAILED: ");
    printf("%s", logged[0] ? logged : "nothing logged\n");
    failures += !ok;
    for (int i = 0; i < nall; i++) cudaFree(all[i]);
    free(all);
    free(dc.pics);
    fixture_free(&fx);
}

/* A ladder of P010-style device pictures (the distorted, the next frame's
 * distorted, the distorted again): each rendition has the bits of its pair
 * scored alone from host memory. */
static void check_ladder(const Storage *st) {
    Fixture fx;
    fixture_generate(&fx, "ladder", 1920, 1080, 10, PSNRHVS_PIXEL_LAYOUT_I420, 3, 17);
    DeviceClip dc = {0};
    void **all = NULL;
    int nall = 0;
    int bad = upload(&fx, st, &dc, &all, &nall) != 0;
    PsnrHvsSettings s = fx.s;
    s.backend = PSNRHVS_BACKEND_CUDA;
    s.logger.callback = logger;
    PsnrHvsContext *host = NULL, *lad = NULL;
    bad = bad || psnrhvs_open(&host, &s);
    s.memory = PSNRHVS_MEMORY_DEVICE;
    s.renditions = 3;
    storage_settings(&s, &fx, st);
    bad = bad || psnrhvs_open(&lad, &s);
    for (int f = 0; !bad && f < fx.frames; f++) {
        const int next = (f + 1) % fx.frames;
        const PsnrHvsPicture dist[3] = {dc.pics[f * 2 + 1], dc.pics[next * 2 + 1],
                                        dc.pics[f * 2 + 1]};
        const PsnrHvsPicture hr = fixture_ref(&fx, f), hd = fixture_dist(&fx, f),
                             hn = fixture_dist(&fx, next);
        PsnrHvsScore got[3], want[2];
        bad = psnrhvs_send_ladder(lad, &dc.pics[f * 2], dist, (uint64_t)f) ||
              psnrhvs_receive_ladder(lad, got) || psnrhvs_score(host, &hr, &hd, &want[0]) ||
              psnrhvs_score(host, &hr, &hn, &want[1]);
        for (int r = 0; !bad && r < 3; r++) {
            want[r & 1].tag = got[r].tag;
            bad = !scores_same_bits(&got[r], &want[r & 1]);
            if (bad)
                fprintf(stderr, "ladder frame %d rendition %d: %a %a %a, alone %a %a %a\n", f, r,
                        got[r].raw[0], got[r].raw[1], got[r].raw[2], want[r & 1].raw[0],
                        want[r & 1].raw[1], want[r & 1].raw[2]);
        }
    }
    psnrhvs_close(&lad);
    psnrhvs_close(&host);
    printf("ladder of 3 %s device pictures, 1920x1080 10-bit: %s\n", st->name,
           bad ? "DIFFERENT or FAILED" : "each rendition identical to its pair alone");
    failures += bad;
    compared += fx.frames * 3;
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
        for (int k = 0; k < NUM_STORAGES; k++) check_clip(&fx, &storages[k]);
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
            for (int k = 0; k < NUM_STORAGES; k++) check_clip(&fx, &storages[k]);
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
        for (int k = 0; k < NUM_STORAGES; k++) check_clip(&fx, &storages[k]);
        fixture_free(&fx);
    }
    check_range(&storages[0], 0, "sample 1024 at x 33, y 9 of the distorted picture's Cb plane");
    check_range(&storages[3], 0,
                "sample 0x01c1 at x 33, y 9 of the distorted picture's Cr plane has bits set "
                "below its 10 high bits");
    check_range(&storages[4], 0,
                "sample 0x01c1 at x 33, y 9 of the distorted picture's Cr plane has bits set "
                "below its 10 high bits");
    check_range(&storages[4], 1,
                "sample 1024 at x 40, y 50 of the reference picture's Y plane is above 1023");
    check_ladder(&storages[3]);
    check_ladder(&storages[4]);
    printf("%d frames compared, %d failures\n", compared, failures);
    return failures != 0;
}
