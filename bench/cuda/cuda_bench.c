/*
 * CUDA backend benchmark (run by bench/gpu.sh). For one geometry:
 *   resident  kernel time per frame with the frames already on the device
 *             (CUDA events; one stream, and 4 streams in flight), per stage
 *   pinned    throughput with uploads from pinned host memory, against the
 *             host-to-device bandwidth measured in the same run
 *   library   end-to-end fps through psnrhvs_send/receive from ordinary host
 *             memory, CUDA vs the CPU backend (threads as given)
 * Every result line starts with "RESULT". Frames are generated (8 distinct
 * pairs, so that repeated runs do not just hit the L2 cache).
 * usage: cuda_bench <w> <h> <bitdepth> [cpu threads] [cpu frames] [gpu frames]
 *        cuda_bench gen <w> <h> <bitdepth> <frames> <ref.yuv> <dist.yuv>
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "frame.h"
#include "cuda_hip/gpu_runtime.h"
#include "fixture.h"

#define NFRAMES  8
#define NSTREAMS 4

#define CK(call)                                                                                   \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Frame f of the set: textured reference, distorted copy with sparse noise
 * (tests/common's generator, as in tests/cuda/cuda_parity.c), 4:2:0 in file
 * layout; each frame has its own generator state. */
static void gen_frame(const FrameLayout *l, unsigned char *ref, unsigned char *dist, int f,
                      uint32_t seed) {
    uint32_t x = seed * 2654435761u + 1;
    frame_generate(l, f, &x, ref, dist);
}

/* Device time of work queued on st[0] and, with streams > 1, on st[1..]
 * forked from it at the start and joined back into it at the stop. */
typedef struct Timer {
    cudaStream_t st[NSTREAMS];
    cudaEvent_t start, stop, done[NSTREAMS];
    int streams;
} Timer;

static void timer_start(Timer *t, int streams) {
    t->streams = streams;
    CK(cudaEventRecord(t->start, t->st[0]));
    for (int i = 1; i < streams; i++) CK(cudaStreamWaitEvent(t->st[i], t->start, 0));
}

static float timer_stop_ms(Timer *t) {
    for (int i = 1; i < t->streams; i++) {
        CK(cudaEventRecord(t->done[i], t->st[i]));
        CK(cudaStreamWaitEvent(t->st[0], t->done[i], 0));
    }
    CK(cudaEventRecord(t->stop, t->st[0]));
    CK(cudaEventSynchronize(t->stop));
    float ms;
    CK(cudaEventElapsedTime(&ms, t->start, t->stop));
    return ms;
}

static int gen_files(int argc, char **argv) {
    if (argc < 8) return 2;
    const int w = atoi(argv[2]), h = atoi(argv[3]), bd = atoi(argv[4]), n = atoi(argv[5]);
    FrameLayout l;
    frame_layout(&l, w, h, bd, PSNRHVS_PIXEL_LAYOUT_I420);
    const size_t fb = l.frame_bytes;
    unsigned char *r = malloc(fb * NFRAMES), *d = malloc(fb * NFRAMES);
    FILE *fr = fopen(argv[6], "wb"), *fd = fopen(argv[7], "wb");
    if (!r || !d || !fr || !fd) return 1;
    for (int f = 0; f < NFRAMES; f++) gen_frame(&l, r + f * fb, d + f * fb, f, (uint32_t)f + 11);
    for (int f = 0; f < n; f++) {
        const size_t at = (size_t)(f % NFRAMES) * fb;
        if (fwrite(r + at, 1, fb, fr) != fb || fwrite(d + at, 1, fb, fd) != fb) return 1;
    }
    fclose(fr);
    fclose(fd);
    free(r);
    free(d);
    return 0;
}

/* devpics (CUDA only): the NFRAMES pairs already on the device, [f][side],
 * scored in place (settings.memory = PSNRHVS_MEMORY_DEVICE), stored as NVDEC
 * writes them when nvdec (NV12, or P010 above 8 bits); NULL: host. */
static double lib_fps(enum PsnrHvsBackend backend, int threads, const FrameLayout *l,
                      unsigned char *const ref[NFRAMES], unsigned char *const dist[NFRAMES],
                      const PsnrHvsPicture (*devpics)[2], int nvdec, int frames,
                      PsnrHvsScore *scores, char *isa, size_t isa_size) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    const int w = l->w[0], h = l->h[0], bd = l->bitdepth;
    s.width = w, s.height = h, s.bitdepth = bd, s.backend = backend, s.threads = threads;
    s.module_dir = PSNRHVS_BENCH_MODULE_DIR; /* the static core: the build tree's modules */
    if (devpics) s.memory = PSNRHVS_MEMORY_DEVICE;
    if (devpics && nvdec) s.chroma_interleaved = 1, s.msb_aligned = bd > 8;
    PsnrHvsContext *c;
    const double t_open = now();
    if (psnrhvs_open(&c, &s)) return -1;
    const char *in = psnrhvs_isa_name(c);
    snprintf(isa, isa_size, "%s", in ? in : "-");
    /* One untimed frame: first-use costs stay out of the number. */
    PsnrHvsPicture r = frame_picture(l, ref[0], 0), d = frame_picture(l, dist[0], 0);
    if (devpics) r = devpics[0][0], d = devpics[0][1];
    PsnrHvsScore sc;
    if (psnrhvs_score(c, &r, &d, &sc)) return -1;
    const double t0 = now();
    printf("RESULT %dx%d %d-bit library %s%s: open + first frame %.1f ms\n", w, h, bd,
           backend == PSNRHVS_BACKEND_CUDA ? "cuda" : "cpu",
           devpics ? (nvdec ? " (device pictures as NVDEC's)" : " (device pictures)") : "",
           (t0 - t_open) * 1e3);
    int sent = 0, got = 0;
    while (got < frames) {
        while (sent < frames) {
            r = frame_picture(l, ref[sent % NFRAMES], 0);
            d = frame_picture(l, dist[sent % NFRAMES], 0);
            if (devpics) r = devpics[sent % NFRAMES][0], d = devpics[sent % NFRAMES][1];
            const int err = psnrhvs_send(c, &r, &d, (uint64_t)sent);
            if (err == PSNRHVS_ERR(EAGAIN)) break;
            if (err) return -1;
            sent++;
        }
        if (psnrhvs_receive(c, &sc)) return -1;
        if (got < NFRAMES) scores[got] = sc;
        got++;
    }
    const double t = now() - t0;
    psnrhvs_close(&c);
    return frames / t;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "gen")) return gen_files(argc, argv);
    if (argc < 4) {
        fprintf(stderr, "usage: %s <w> <h> <bitdepth> [cpu threads] [cpu frames] [gpu frames]\n",
                argv[0]);
        return 2;
    }
    const int w = atoi(argv[1]), h = atoi(argv[2]), bd = atoi(argv[3]);
    const int cpu_threads = argc > 4 ? atoi(argv[4]) : 16;
    const int cpu_frames = argc > 5 ? atoi(argv[5]) : 16;
    const int gpu_frames = argc > 6 ? atoi(argv[6]) : 400;
    char tag[64];
    snprintf(tag, sizeof(tag), "%dx%d %d-bit 4:2:0", w, h, bd);

    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    CK(cudaSetDevice(0));
    printf("device: %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount);

    /* Frames in file layout (ordinary memory) and packed (pinned). */
    FrameLayout l;
    frame_layout(&l, w, h, bd, PSNRHVS_PIXEL_LAYOUT_I420);
    const size_t fb = l.frame_bytes;
    unsigned char *ref[NFRAMES], *dist[NFRAMES];
    for (int f = 0; f < NFRAMES; f++) {
        ref[f] = malloc(fb);
        dist[f] = malloc(fb);
        if (!ref[f] || !dist[f]) return 1;
        gen_frame(&l, ref[f], dist[f], f, (uint32_t)f + 11);
    }
    PsnrHvsSettings gset;
    psnrhvs_default_settings(&gset);
    gset.width = w, gset.height = h, gset.bitdepth = bd;
    PsnrHvsFrameGeometry geom;
    if (psh_frame_geometry(&geom, &gset)) return 1;
    PsnrHvsGpuJob plan;
    psh_cuda_plan(&plan, &geom);
    const size_t frame_bytes = plan.frame_bytes;
    unsigned char *pinned[NFRAMES], *dev_frame[NFRAMES];
    for (int f = 0; f < NFRAMES; f++) {
        CK(cudaMallocHost((void **)&pinned[f], frame_bytes));
        const PsnrHvsPicture r = frame_picture(&l, ref[f], 0), d = frame_picture(&l, dist[f], 0);
        psh_frame_pack(&geom, &r, &d, pinned[f], NULL);
        CK(cudaMalloc((void **)&dev_frame[f], frame_bytes));
        CK(cudaMemcpy(dev_frame[f], pinned[f], frame_bytes, cudaMemcpyHostToDevice));
    }
    void *ws[NSTREAMS];
    unsigned char *slot_frame[NSTREAMS];
    Timer t;
    cudaStream_t *const st = t.st;
    float *sums;
    CK(cudaMallocHost((void **)&sums, sizeof(float) * 3 * NSTREAMS));
    for (int i = 0; i < NSTREAMS; i++) {
        CK(cudaMalloc(&ws[i], plan.workspace_bytes));
        CK(cudaMalloc((void **)&slot_frame[i], frame_bytes));
        CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
        CK(cudaEventCreate(&t.done[i]));
    }
    CK(cudaEventCreate(&t.start));
    CK(cudaEventCreate(&t.stop));
    printf("workspace %.1f MB per frame in flight, packed frame pair %.2f MB, %lld blocks\n",
           plan.workspace_bytes / 1e6, frame_bytes / 1e6, plan.blocks);

    /* (a) resident: one stream, then NSTREAMS streams. */
    PsnrHvsGpuJob job[NSTREAMS][NFRAMES];
    for (int i = 0; i < NSTREAMS; i++)
        for (int f = 0; f < NFRAMES; f++) {
            job[i][f] = plan;
            psh_cuda_bind(&job[i][f], ws[i], dev_frame[f], 0);
        }
    const int iters = gpu_frames;
    float ref_sums[NFRAMES][3];
    for (int f = 0; f < NFRAMES; f++) { /* warm-up and reference sums */
        CK((cudaError_t)psh_cuda_enqueue_stages(&job[0][f], st[0], 0, PSNRHVS_GPU_STAGES - 1));
        CK(cudaMemcpyAsync(ref_sums[f], job[0][f].sum, sizeof(float) * 3, cudaMemcpyDeviceToHost,
                           st[0]));
        CK(cudaStreamSynchronize(st[0]));
    }
    timer_start(&t, 1);
    for (int i = 0; i < iters; i++)
        CK((cudaError_t)psh_cuda_enqueue_stages(&job[0][i % NFRAMES], st[0], 0,
                                                PSNRHVS_GPU_STAGES - 1));
    const double one_stream = timer_stop_ms(&t) / iters;
    printf("RESULT %s resident 1-stream: %.4f ms/frame\n", tag, one_stream);

    double stage_ms[PSNRHVS_GPU_STAGES];
    for (int s = 0; s < PSNRHVS_GPU_STAGES; s++) {
        const int n = iters / 4 > 8 ? iters / 4 : 8;
        timer_start(&t, 1);
        for (int i = 0; i < n; i++)
            CK((cudaError_t)psh_cuda_enqueue_stages(&job[0][i % NFRAMES], st[0], s, s));
        stage_ms[s] = timer_stop_ms(&t) / n;
    }
    printf("RESULT %s stages ms: terms %.4f supers %.4f maps %.4f walk %.4f\n", tag, stage_ms[0],
           stage_ms[1], stage_ms[2], stage_ms[3]);

    CK(cudaDeviceSynchronize());
    timer_start(&t, NSTREAMS);
    for (int i = 0; i < iters; i++) {
        const int k = i % NSTREAMS;
        CK((cudaError_t)psh_cuda_enqueue_stages(&job[k][i % NFRAMES], st[k], 0,
                                                PSNRHVS_GPU_STAGES - 1));
        CK(cudaMemcpyAsync(sums + 3 * k, job[k][i % NFRAMES].sum, sizeof(float) * 3,
                           cudaMemcpyDeviceToHost, st[k]));
    }
    const double resident = timer_stop_ms(&t) / iters;
    printf("RESULT %s resident %d-streams: %.4f ms/frame (%.0f fps)\n", tag, NSTREAMS, resident,
           1000.0 / resident);
    /* The last NSTREAMS frames' sums must match the warm-up's (determinism). */
    int stable = 1;
    for (int k = 0; k < NSTREAMS && k < iters; k++) {
        const int i = iters - NSTREAMS + k, f = i % NFRAMES, slot = i % NSTREAMS;
        if (i >= 0 && memcmp(sums + 3 * slot, ref_sums[f], sizeof(float) * 3)) stable = 0;
    }
    printf("RESULT %s sums stable across streams: %s\n", tag, stable ? "yes" : "NO");

    /* (b) pinned uploads: bandwidth alone, then upload + compute in flight. */
    CK(cudaDeviceSynchronize());
    timer_start(&t, 1);
    for (int i = 0; i < iters; i++)
        CK(cudaMemcpyAsync(slot_frame[i % NSTREAMS], pinned[i % NFRAMES], frame_bytes,
                           cudaMemcpyHostToDevice, st[0]));
    float ms = timer_stop_ms(&t);
    const double h2d_gbs = (double)frame_bytes * iters / (ms * 1e-3) / 1e9;
    const double h2d_fps = iters / (ms * 1e-3);
    PsnrHvsGpuJob sjob[NSTREAMS];
    for (int i = 0; i < NSTREAMS; i++) {
        sjob[i] = plan;
        psh_cuda_bind(&sjob[i], ws[i], slot_frame[i], 0);
    }
    CK(cudaDeviceSynchronize());
    timer_start(&t, NSTREAMS);
    for (int i = 0; i < iters; i++) {
        const int k = i % NSTREAMS;
        CK(cudaMemcpyAsync(slot_frame[k], pinned[i % NFRAMES], frame_bytes, cudaMemcpyHostToDevice,
                           st[k]));
        CK((cudaError_t)psh_cuda_enqueue_stages(&sjob[k], st[k], 0, PSNRHVS_GPU_STAGES - 1));
        CK(cudaMemcpyAsync(sums + 3 * k, sjob[k].sum, sizeof(float) * 3, cudaMemcpyDeviceToHost,
                           st[k]));
    }
    ms = timer_stop_ms(&t);
    const double pinned_fps = iters / (ms * 1e-3);
    printf("RESULT %s h2d bandwidth: %.2f GB/s (%.0f frame pairs/s, %.2f MB each)\n", tag, h2d_gbs,
           h2d_fps, frame_bytes / 1e6);
    printf("RESULT %s pinned upload+score: %.0f fps = %.1f%% of the h2d limit\n", tag, pinned_fps,
           100.0 * pinned_fps / h2d_fps);

    /* (c) the library, from ordinary memory: CUDA vs CPU. */
    PsnrHvsScore gs[NFRAMES], cs[NFRAMES];
    char gisa[32], cisa[32];
    const int lib_frames = iters / 2 > NFRAMES ? iters / 2 : NFRAMES;
    const double gfps = lib_fps(PSNRHVS_BACKEND_CUDA, 0, &l, ref, dist, NULL, 0, lib_frames, gs,
                                gisa, sizeof(gisa));
    const int cf = cpu_frames < NFRAMES ? NFRAMES : cpu_frames;
    const double cfps = lib_fps(PSNRHVS_BACKEND_CPU, cpu_threads, &l, ref, dist, NULL, 0, cf, cs,
                                cisa, sizeof(cisa));
    /* (d) the library with the frames resident on the device: no uploads. */
    PsnrHvsPicture devpics[NFRAMES][2];
    void *devmem[NFRAMES][2];
    for (int f = 0; f < NFRAMES; f++)
        for (int k = 0; k < 2; k++) {
            const PsnrHvsPicture hp = frame_picture(&l, k ? dist[f] : ref[f], 0);
            CK(cudaMalloc(&devmem[f][k], l.frame_bytes));
            CK(cudaMemcpy(devmem[f][k], k ? dist[f] : ref[f], l.frame_bytes,
                          cudaMemcpyHostToDevice));
            devpics[f][k] = hp;
            for (int p = 0; p < l.planes; p++)
                devpics[f][k].data[p] = (unsigned char *)devmem[f][k] + l.offset[p];
        }
    PsnrHvsScore ds[NFRAMES];
    const double dfps =
        lib_fps(PSNRHVS_BACKEND_CUDA, 0, &l, ref, dist, (const PsnrHvsPicture(*)[2])devpics, 0,
                iters, ds, gisa, sizeof(gisa));
    for (int f = 0; f < NFRAMES; f++)
        for (int k = 0; k < 2; k++) CK(cudaFree(devmem[f][k]));
    /* (e) the same as NVDEC stores frames: chroma interleaved (NV12), 16-bit
     * samples in the high bits (P010), scored where they are. 4:2:0 only. */
    PsnrHvsScore ns[NFRAMES];
    double nfps = 0;
    const int shift = l.bitdepth > 8 ? 16 - l.bitdepth : 0;
    for (int f = 0; f < NFRAMES && l.planes == 3; f++)
        for (int k = 0; k < 2; k++) {
            const PsnrHvsPicture hp = frame_picture(&l, k ? dist[f] : ref[f], 0);
            const size_t luma = (size_t)l.w[0] * l.bps * l.h[0];
            const size_t crow = (size_t)l.w[1] * 2 * l.bps;
            unsigned char *const nv = malloc(luma + crow * l.h[1]);
            if (!nv) return 1;
            for (int p = 0; p < 3; p++)
                for (int y = 0; y < l.h[p]; y++)
                    for (int x = 0; x < l.w[p]; x++) {
                        const unsigned char *in = (const unsigned char *)hp.data[p] +
                                                  (size_t)y * hp.stride[p] + (size_t)x * l.bps;
                        unsigned char *o =
                            p ? nv + luma + y * crow + ((size_t)x * 2 + p - 1) * l.bps
                              : nv + ((size_t)y * l.w[0] + x) * l.bps;
                        if (l.bps == 1) {
                            *o = *in;
                        } else {
                            uint16_t v;
                            memcpy(&v, in, 2);
                            v = (uint16_t)(v << shift);
                            memcpy(o, &v, 2);
                        }
                    }
            CK(cudaMalloc(&devmem[f][k], luma + crow * l.h[1]));
            CK(cudaMemcpy(devmem[f][k], nv, luma + crow * l.h[1], cudaMemcpyHostToDevice));
            free(nv);
            PsnrHvsPicture *const dp = &devpics[f][k];
            dp->data[0] = devmem[f][k];
            dp->stride[0] = (ptrdiff_t)l.w[0] * l.bps;
            dp->data[1] = (unsigned char *)devmem[f][k] + luma;
            dp->data[2] = (unsigned char *)devmem[f][k] + luma + l.bps;
            dp->stride[1] = dp->stride[2] = (ptrdiff_t)crow;
        }
    if (l.planes == 3) {
        nfps = lib_fps(PSNRHVS_BACKEND_CUDA, 0, &l, ref, dist, (const PsnrHvsPicture(*)[2])devpics,
                       1, iters, ns, gisa, sizeof(gisa));
        for (int f = 0; f < NFRAMES; f++)
            for (int k = 0; k < 2; k++) CK(cudaFree(devmem[f][k]));
    }
    int same = gfps > 0 && cfps > 0 && dfps > 0 && (l.planes != 3 || nfps > 0);
    for (int f = 0; f < NFRAMES && same; f++)
        if (memcmp(gs[f].raw, cs[f].raw, sizeof(gs[f].raw)) ||
            memcmp(ds[f].raw, cs[f].raw, sizeof(ds[f].raw)) ||
            (l.planes == 3 && memcmp(ns[f].raw, cs[f].raw, sizeof(ns[f].raw))))
            same = 0;
    printf("RESULT %s library cuda, device pictures (resident, no upload): %.1f fps (%d frames), "
           "%.2fx the pinned upload path\n",
           tag, dfps, iters, dfps / pinned_fps);
    if (l.planes == 3)
        printf("RESULT %s library cuda, device pictures as NVDEC's (%s, resident): %.1f fps (%d "
               "frames), %.2fx the planar ones, %.2fx the pinned upload path\n",
               tag, l.bitdepth > 8 ? "P010-style" : "NV12", nfps, iters, nfps / dfps,
               nfps / pinned_fps);
    printf("RESULT %s library cuda: %.1f fps (%d frames)\n", tag, gfps, lib_frames);
    printf("RESULT %s library cpu (%s, %d threads): %.1f fps (%d frames)\n", tag, cisa, cpu_threads,
           cfps, cf);
    printf("RESULT %s library cuda/cpu: %.1fx, raw scores identical on %d frames: %s\n", tag,
           gfps / cfps, NFRAMES, same ? "yes" : "NO");
    printf("SUMMARY | %s | %.4f | %.4f | %.2f | %.0f | %.1f%% | %.1f | %.1f | %.1fx |\n", tag,
           one_stream, resident, h2d_gbs, pinned_fps, 100.0 * pinned_fps / h2d_fps, gfps, cfps,
           gfps / cfps);
    return stable && same ? 0 : 1;
}
