/*
 * The CUDA and HIP backends: one host around kernels.cu, compiled once per
 * runtime (gpu_runtime.h maps its calls), so the two cannot drift apart.
 * Each slot owns a pinned staging buffer, a device workspace and a stream.
 * submit packs the pair into the slot's pinned buffer (frame.h) and enqueues
 * the upload, the kernels and the readback of the plane sums; collect waits
 * for them.
 * SPDX-License-Identifier: BSD-2-Clause
 */
/* madvise and MAP_ANONYMOUS are not in C11/POSIX.1's strict namespace. */
#define _GNU_SOURCE

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda_hip/gpu_runtime.h"
#if !PSNRHVS_GPU_HIP
#include "cuda_hip/host_window.h"
#endif
#include "internal.h"
#include "thread_pool.h"

#define ALIGN 256
typedef struct GpuSlot {
    void *host_base;   ///< host's mapping when registered (host_alloc), else NULL
    size_t host_bytes; ///< its size, 0 for cudaMallocHost's
    gpuStream_t stream;
    gpuEvent_t done;
    gpuEvent_t written;  ///< device pictures: the legacy default stream's work before submit
    unsigned char *host; ///< pinned: packed frame (host pictures), then each rendition's sums
    void *workspace;     ///< device: packed frame (host pictures), then each job's arrays
    PsnrHvsGpuJob job[PSNRHVS_GPU_MAX_RENDITIONS];       ///< one per rendition
    PsnrHvsPicture pics[1 + PSNRHVS_GPU_MAX_RENDITIONS]; ///< pictures read in place
#if !PSNRHVS_GPU_HIP
    int in_place;     ///< host pictures uploaded from where they are (host_window.h)
    PshHostHold hold; ///< the locked memory they are in
#endif
} GpuSlot;

typedef struct GpuBackend {
    PsnrHvsThreadPool *pool;
    GpuKernels kernels;
    int device;
    int device_pictures; ///< settings.memory: the caller's pictures are on the device
    int ref_on_host;     ///< device pictures with the reference's on the host (packed, uploaded)
    int renditions;      ///< distorted pictures a frame
    size_t frame_bytes;  ///< the packed frame in each slot (device pictures: the reference
                         ///< alone when on the host, else 0)
    const void *host[PSH_MAX_HOST_RANGES]; ///< ranges registered (host_window.h)
    int num_host;
    GpuSlot slot[];
} GpuBackend;

#if !PSNRHVS_GPU_HIP
/* Huge pages for the pinned buffers: faulted in and zeroed in 2 MiB steps. */
#define HUGE_PAGE ((size_t)2 << 20)

/* A slot's pinned buffer: anonymous memory, faulted in (huge pages where
 * the kernel gives them) and registered, not cudaMallocHost, which takes
 * longer to allocate and to free (bench/cuda/open_bench.c,
 * bench/RESULTS.md). Not inherited by a child process: a write
 * after fork() would move the parent's page away from the GPU's copies.
 * cudaMallocHost where it fails. */
static gpuError_t host_alloc(GpuSlot *const s, const size_t n) {
    const size_t total = n + HUGE_PAGE;
    unsigned char *const base =
        mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base != MAP_FAILED) {
        unsigned char *const p =
            base + (HUGE_PAGE - (size_t)((uintptr_t)base % HUGE_PAGE)) % HUGE_PAGE;
#ifdef MADV_HUGEPAGE
        madvise(p, n, MADV_HUGEPAGE);
#endif
#ifdef MADV_DONTFORK
        madvise(base, total, MADV_DONTFORK);
#endif
#ifdef MADV_POPULATE_WRITE
        if (madvise(p, n, MADV_POPULATE_WRITE))
#endif
            memset(p, 0, n);
        if (cudaHostRegister(p, n, cudaHostRegisterPortable) == cudaSuccess) {
            s->host = p;
            s->host_base = base;
            s->host_bytes = total;
            return gpuSuccess;
        }
        cudaGetLastError(); /* not sticky: clear it */
        munmap(base, total);
    }
    return gpuMallocHost((void **)&s->host, n);
}

static void host_free(GpuSlot *const s) {
    if (!s->host_bytes) {
        gpuFreeHost(s->host);
        return;
    }
    cudaHostUnregister(s->host);
    munmap(s->host_base, s->host_bytes);
}
#else
static gpuError_t host_alloc(GpuSlot *const s, const size_t n) {
    return gpuMallocHost((void **)&s->host, n);
}

static void host_free(GpuSlot *const s) {
    gpuFreeHost(s->host);
}
#endif

static size_t align_up(const size_t n) {
    return (n + ALIGN - 1) / ALIGN * ALIGN;
}

void PSNRHVS_GPU_FN(plan)(PsnrHvsGpuJob *const job, const PsnrHvsFrameGeometry *const g) {
    memset(job, 0, sizeof(*job));
    job->num_planes = g->num_planes;
    job->bitdepth = g->bitdepth;
    job->mask_product = g->mask_product;
    /* Device pictures may be stored as decoders write them; the packed
     * frame (host pictures, a host reference) is planar, low-aligned. */
    const int ref_stored = g->reference_on_host ? 0 : 1;
    job->ref_shift = ref_stored ? g->sample_shift : 0;
    job->dist_shift = g->sample_shift;
    job->ref_mask = ((1u << g->bitdepth) - 1) << job->ref_shift;
    job->dist_mask = ((1u << g->bitdepth) - 1) << job->dist_shift;
    long long blocks = 0;
    for (int p = 0; p < g->num_planes; p++) {
        const PsnrHvsPlaneGeometry *const gp = &g->plane[p];
        PsnrHvsGpuPlane *const pl = &job->plane[p];
        pl->ref_step = ref_stored ? gp->step : 1;
        pl->dist_step = gp->step;
        pl->w = gp->w;
        pl->h = gp->h;
        pl->bw = gp->bw;
        pl->bh = gp->bh;
        pl->nb = (long long)pl->bw * pl->bh;
        pl->block_off = blocks;
        pl->ref_pitch = pl->dist_pitch = (long long)gp->row_bytes;
        pl->ref_off = (long long)gp->ref_off;
        pl->dist_off = (long long)gp->dist_off;
        blocks += (pl->nb + PSNRHVS_GPU_SUPER - 1) / PSNRHVS_GPU_SUPER * PSNRHVS_GPU_SUPER;
    }
    job->blocks = blocks;
    job->frame_bytes = g->frame_bytes;
    job->picture_bytes = g->picture_bytes;
    const size_t n = (size_t)blocks;
    job->workspace_bytes = align_up(n * 64 * sizeof(float)) + align_up(n * sizeof(float)) +
                           align_up(n / PSNRHVS_GPU_SUPER * sizeof(double)) +
                           align_up(n * sizeof(PshSumChunkMaps)) +
                           align_up(n / PSNRHVS_GPU_CHUNK * sizeof(PshSumChunkMaps)) +
                           align_up(n / PSNRHVS_GPU_SUPER * sizeof(PshSumChunkMaps)) +
                           align_up(4 * sizeof(float)) + align_up(sizeof(unsigned));
}

void PSNRHVS_GPU_FN(bind)(PsnrHvsGpuJob *const job, void *const workspace, const void *const frame,
                          const int rendition) {
    unsigned char *at = workspace;
    const size_t n = (size_t)job->blocks;
    /* The planes of the packed pair (none when pictures come from the
     * device: submit points the planes at them). */
    for (int p = 0; p < job->num_planes; p++) {
        job->plane[p].ref = frame ? (const unsigned char *)frame + job->plane[p].ref_off : NULL;
        job->plane[p].dist = frame ? (const unsigned char *)frame + job->plane[p].dist_off +
                                         (size_t)rendition * job->picture_bytes
                                   : NULL;
    }
    job->terms = (float *)at;
    at += align_up(n * 64 * sizeof(float));
    job->block_sum = (float *)at;
    at += align_up(n * sizeof(float));
    job->super_sum = (double *)at;
    at += align_up(n / PSNRHVS_GPU_SUPER * sizeof(double));
    job->block_maps = (PshSumChunkMaps *)at;
    at += align_up(n * sizeof(PshSumChunkMaps));
    job->chunk_maps = (PshSumChunkMaps *)at;
    at += align_up(n / PSNRHVS_GPU_CHUNK * sizeof(PshSumChunkMaps));
    job->super_maps = (PshSumChunkMaps *)at;
    at += align_up(n / PSNRHVS_GPU_SUPER * sizeof(PshSumChunkMaps));
    job->sum = (float *)at;
    at += align_up(4 * sizeof(float));
    job->flags = (unsigned *)at;
}

/* Stages first..last of a frame on a stream (benchmarks time them apart). */
static gpuError_t enqueue(const GpuKernels *const k, const PsnrHvsGpuJob *const job,
                          const gpuStream_t st, const int first, const int last) {
    for (int s = first; s <= last; s++) {
        unsigned grid, block;
        const enum PsnrHvsGpuKernel id = psh_gpu_stage(job, s, &grid, &block);
        void *args[] = {(void *)job};
        const gpuError_t e = gpu_launch(k, id, grid, block, args, st);
        if (e != gpuSuccess) return e;
    }
    return gpuSuccess;
}

#if !PSNRHVS_GPU_HIP
int psh_cuda_enqueue_stages(const PsnrHvsGpuJob *const job, void *const stream, const int first,
                            const int last) {
    const GpuKernels k = {psh_cuda_kernels};
    return (int)enqueue(&k, job, (gpuStream_t)stream, first, last);
}
#endif

/* Log a failed runtime call and map it to an error code. */
static int fail(const PsnrHvsContext *const c, const gpuError_t e, const char *const what) {
    psh_log(c, PSNRHVS_GPU_NAME ": %s failed: %s (%s)", what, gpuGetErrorName(e),
            gpuGetErrorString(e));
    switch (e) {
    case gpuErrorMemoryAllocation:
        return PSNRHVS_ERR(ENOMEM);
    case gpuErrorNoDevice:
    case gpuErrorInsufficientDriver:
    case gpuErrorInvalidDevice:
    case gpuErrorNoKernelImage:
        return PSNRHVS_ERR(ENODEV);
    default:
        return PSNRHVS_ERR(EIO);
    }
}

#define CHECK(c, call)                                                                             \
    do {                                                                                           \
        const gpuError_t e_ = (call);                                                              \
        if (e_ != gpuSuccess) return fail(c, e_, #call);                                           \
    } while (0)

/* ---- host memory uploaded in place (psnrhvs_host_register) ---- */

#if !PSNRHVS_GPU_HIP
/* Every upload done: no slot reads locked memory any more. */
static void drain_holds(PsnrHvsContext *const c, GpuBackend *const b) {
    for (int i = 0; i < c->slots; i++) {
        GpuSlot *const s = &b->slot[i];
        if (!s->hold.n) continue;
        if (s->stream) gpuStreamSynchronize(s->stream);
        psh_hw_release(&s->hold);
    }
}

static int gpu_host_register(PsnrHvsContext *const c, const void *const data, const size_t size) {
    GpuBackend *const b = c->backend;
    /* another context's range here: this one's frames are copied */
    if (b->num_host < PSH_MAX_HOST_RANGES && !psh_hw_register(data, size, b->device))
        b->host[b->num_host++] = data;
    return 0;
}

static int gpu_host_unregister(PsnrHvsContext *const c, const void *const data) {
    GpuBackend *const b = c->backend;
    int n = 0;
    for (int i = 0; i < b->num_host; i++) {
        if (b->host[i] != data) {
            b->host[n++] = b->host[i];
            continue;
        }
        gpuSetDevice(b->device);
        drain_holds(c, b);
        psh_hw_unregister(data);
    }
    b->num_host = n;
    return 0;
}

/* Every plane of the frame inside locked memory: held for the slot, 1. */
static int hold_frame(PsnrHvsContext *const c, GpuSlot *const s, const PsnrHvsPicture *const ref,
                      const PsnrHvsPicture *const dist) {
    const PsnrHvsFrameGeometry *const g = &c->geom;
    for (int side = 0; side <= g->renditions; side++) {
        const PsnrHvsPicture *const pic = side ? &dist[side - 1] : ref;
        for (int p = 0; p < g->num_planes; p++) {
            const PsnrHvsPlaneGeometry *const pl = &g->plane[p];
            if (pic->stride[p] < (ptrdiff_t)pl->row_bytes ||
                !psh_hw_hold(&s->hold, pic->data[p],
                             (size_t)pic->stride[p] * (size_t)(pl->h - 1) + pl->row_bytes)) {
                psh_hw_release(&s->hold);
                return 0;
            }
        }
    }
    return 1;
}

/* Rows of w bytes, pitch apart, into dst packed: one copy per locked piece
 * they lie in, a row across two pieces in two (the runtime refuses a copy
 * from two registrations). */
static gpuError_t copy_pieces(unsigned char *dst, const unsigned char *src, const size_t pitch,
                              const size_t w, const size_t h, const gpuStream_t st) {
    for (size_t y = 0; y < h;) {
        const unsigned char *const row = src + y * pitch;
        const uintptr_t end = psh_hw_piece_end(row);
        if (!end) return gpuErrorInvalidValue;
        gpuError_t e;
        size_t n = 1;
        if ((uintptr_t)row + w <= end) {
            n = ((size_t)(end - (uintptr_t)row) - w) / pitch + 1;
            if (n > h - y) n = h - y;
            e = gpuMemcpy2DAsync(dst, w, row, pitch, w, n, gpuMemcpyHostToDevice, st);
        } else {
            const size_t a = (size_t)(end - (uintptr_t)row);
            e = gpuMemcpyAsync(dst, row, a, gpuMemcpyHostToDevice, st);
            if (e == gpuSuccess)
                e = gpuMemcpyAsync(dst + a, row + a, w - a, gpuMemcpyHostToDevice, st);
        }
        if (e != gpuSuccess) return e;
        dst += n * w;
        y += n;
    }
    return gpuSuccess;
}

/* The frame's planes, each from where it is into the slot's packed layout. */
static gpuError_t upload_in_place(const PsnrHvsContext *const c, GpuSlot *const s,
                                  const PsnrHvsPicture *const ref,
                                  const PsnrHvsPicture *const dist) {
    const PsnrHvsFrameGeometry *const g = &c->geom;
    for (int side = 0; side <= g->renditions; side++) {
        const PsnrHvsPicture *const pic = side ? &dist[side - 1] : ref;
        s->pics[side] = *pic;
        for (int p = 0; p < g->num_planes; p++) {
            const PsnrHvsPlaneGeometry *const pl = &g->plane[p];
            const size_t off =
                side ? pl->dist_off + (size_t)(side - 1) * g->picture_bytes : pl->ref_off;
            const gpuError_t e =
                copy_pieces((unsigned char *)s->workspace + off, pic->data[p],
                            (size_t)pic->stride[p], pl->row_bytes, (size_t)pl->h, s->stream);
            if (e != gpuSuccess) return e;
        }
    }
    return gpuSuccess;
}
#endif

static void gpu_close(PsnrHvsContext *const c) {
    GpuBackend *const b = c->backend;
    if (!b) return;
    gpuSetDevice(b->device);
#if !PSNRHVS_GPU_HIP
    while (b->num_host) gpu_host_unregister(c, b->host[b->num_host - 1]);
#endif
    for (int i = 0; i < c->slots; i++) {
        GpuSlot *const s = &b->slot[i];
        if (s->stream) gpuStreamSynchronize(s->stream);
        if (s->done) gpuEventDestroy(s->done);
        if (s->written) gpuEventDestroy(s->written);
        if (s->stream) gpuStreamDestroy(s->stream);
        if (s->workspace) gpuFree(s->workspace);
        if (s->host) host_free(s);
    }
    gpu_kernels_unload(&b->kernels);
    free(b);
    c->backend = NULL;
}

/* Why the runtime found no device, in words. */
static const char *no_device_reason(const gpuError_t e) {
    switch (e) {
    case gpuSuccess:
    case gpuErrorNoDevice:
        return "the driver reports no device";
    case gpuErrorInsufficientDriver:
        return "no driver, or one older than this build's runtime";
    default:
        return gpuGetErrorString(e);
    }
}

static int open_device(PsnrHvsContext *const c) {
    char why[256];
    if (gpu_runtime_load(why, sizeof(why))) {
        psh_log(c, PSNRHVS_GPU_NAME ": %s", why);
        return PSNRHVS_ERR(ENODEV);
    }
    int n = 0;
    const gpuError_t e = gpuGetDeviceCount(&n);
    if (e != gpuSuccess || n == 0) {
        psh_log(c, PSNRHVS_GPU_NAME ": no " PSNRHVS_GPU_RUNTIME " device (%s)",
                no_device_reason(e));
        return PSNRHVS_ERR(ENODEV);
    }
    if (c->s.device >= n) {
        psh_log(c, PSNRHVS_GPU_NAME ": device %d requested, %d present", c->s.device, n);
        return PSNRHVS_ERR(ENODEV);
    }
    CHECK(c, gpuSetDevice(c->s.device));
    return 0;
}

static int gpu_open(PsnrHvsContext *const c) {
    int err = open_device(c);
    if (err) return err;
    GpuBackend *const b = calloc(1, sizeof(*b) + (size_t)c->slots * sizeof(GpuSlot));
    if (!b) return PSNRHVS_ERR(ENOMEM);
    b->device = c->s.device;
    c->backend = b;
    const gpuError_t e = gpu_kernels_load(&b->kernels);
    if (e != gpuSuccess) {
        char dev[512];
        gpu_describe(c->s.device, 1, dev, sizeof(dev));
        dev[strcspn(dev, "\n")] = '\0';
        psh_log(c, "%s cannot run this build's kernels: %s (%s)", dev, gpuGetErrorName(e),
                gpuGetErrorString(e));
        gpu_close(c);
        return PSNRHVS_ERR(ENODEV);
    }
    b->pool = c->copy_pool; /* the context's (lib.c) */
    if (!b->pool) {
        gpu_close(c);
        return PSNRHVS_ERR(ENOMEM);
    }
    PsnrHvsGpuJob plan;
    PSNRHVS_GPU_FN(plan)(&plan, &c->geom);
    /* Host pictures go through a packed frame, pinned and on the device;
     * device pictures are read where they are. */
    b->device_pictures = c->s.memory == PSNRHVS_MEMORY_DEVICE;
    b->renditions = c->geom.renditions;
    b->ref_on_host = b->device_pictures && c->s.reference_on_host;
    b->frame_bytes = !b->device_pictures ? align_up(plan.frame_bytes)
                     : b->ref_on_host    ? align_up(plan.picture_bytes)
                                         : 0;
    const size_t sums = (size_t)b->renditions * 4 * sizeof(float);
    const size_t work = b->frame_bytes + (size_t)b->renditions * plan.workspace_bytes;
    for (int i = 0; i < c->slots; i++) {
        GpuSlot *const s = &b->slot[i];
        gpuError_t se;
        if ((se = gpuStreamCreate(&s->stream)) != gpuSuccess ||
            (se = gpuEventCreate(&s->done)) != gpuSuccess ||
            (se = gpuEventCreate(&s->written)) != gpuSuccess ||
            (se = host_alloc(s, b->frame_bytes + sums)) != gpuSuccess ||
            (se = gpuMalloc(&s->workspace, work)) != gpuSuccess ||
            /* On the slot's stream: the legacy default stream does not order
             * non-blocking ones, and a late memset would wipe the first frame. */
            (se = gpuMemsetAsync(s->workspace, 0, work, s->stream)) != gpuSuccess) {
            err = fail(c, se, "allocating a frame slot");
            gpu_close(c);
            return err;
        }
        for (int r = 0; r < b->renditions; r++) {
            s->job[r] = plan;
            PSNRHVS_GPU_FN(bind)
            (&s->job[r],
             (unsigned char *)s->workspace + b->frame_bytes + (size_t)r * plan.workspace_bytes,
             b->frame_bytes ? s->workspace : NULL, r);
        }
    }
    return 0;
}

/* A ladder's terms stage: the reference's blocks once for every rendition. */
static gpuError_t enqueue_ladder_terms(const GpuBackend *b, GpuSlot *s) {
    PsnrHvsGpuLadder L;
    memset(&L, 0, sizeof(L));
    L.job = s->job[0];
    L.renditions = b->renditions;
    for (int r = 0; r < b->renditions; r++) {
        const PsnrHvsGpuJob *const j = &s->job[r];
        for (int p = 0; p < j->num_planes; p++) {
            L.r[r].dist[p] = j->plane[p].dist;
            L.r[r].pitch[p] = j->plane[p].dist_pitch;
        }
        L.r[r].terms = j->terms;
        L.r[r].block_sum = j->block_sum;
    }
    unsigned grid, block;
    const enum PsnrHvsGpuKernel terms = psh_gpu_stage(&s->job[0], 0, &grid, &block);
    void *args[] = {&L};
    return gpu_launch(&b->kernels,
                      terms == PSNRHVS_GPU_TERMS8 ? PSNRHVS_GPU_TERMS_LADDER8
                                                  : PSNRHVS_GPU_TERMS_LADDER16,
                      grid, block, args, s->stream);
}

static int gpu_submit(PsnrHvsContext *const c, const int slot, const PsnrHvsPicture *const ref,
                      const PsnrHvsPicture *const dist) {
    GpuBackend *const b = c->backend;
    GpuSlot *const s = &b->slot[slot];
    const int nr = b->renditions;
    CHECK(c, gpuSetDevice(b->device));
    if (b->device_pictures) {
        /* Read in place: the kernels take the caller's planes and pitches
         * (a host reference: the packed copy bind pointed them at). */
        for (int r = 0; r < nr; r++)
            for (int p = 0; p < c->geom.num_planes; p++) {
                PsnrHvsGpuPlane *const pl = &s->job[r].plane[p];
                if (!b->ref_on_host) {
                    pl->ref = ref->data[p];
                    pl->ref_pitch = (long long)ref->stride[p];
                }
                pl->dist = dist[r].data[p];
                pl->dist_pitch = (long long)dist[r].stride[p];
            }
        s->pics[0] = *ref;
        for (int r = 0; r < nr; r++) s->pics[1 + r] = dist[r];
        if (b->ref_on_host) {
            psh_frame_pack_reference(&c->geom, ref, s->host, b->pool);
            CHECK(c, gpuMemcpyAsync(s->workspace, s->host, s->job[0].picture_bytes,
                                    gpuMemcpyHostToDevice, s->stream));
        }
        /* The slot's stream is non-blocking: it would not wait for what was
         * queued on the legacy default stream, where FFmpeg's NVDEC copies
         * the decoded frames. */
        CHECK(c, gpuEventRecord(s->written, 0));
        CHECK(c, gpuStreamWaitEvent(s->stream, s->written));
    } else {
#if !PSNRHVS_GPU_HIP
        /* Pictures in memory the caller registered: the upload reads them
         * there once it is locked, no host copy (host_window.h). */
        s->in_place = c->s.memory == PSNRHVS_MEMORY_HOST_RETAINED && b->num_host &&
                      hold_frame(c, s, ref, dist);
        if (s->in_place) {
            const gpuError_t e = upload_in_place(c, s, ref, dist);
            if (e != gpuSuccess) {
                gpuStreamSynchronize(s->stream);
                psh_hw_release(&s->hold);
                return fail(c, e, "uploading a frame");
            }
        } else
#endif
        {
            /* The slot is free: its last frame was collected, so its stream
             * is idle and its staging buffer ours. */
            psh_frame_pack_upload(&c->geom, ref, dist, s->host, b->pool);
            CHECK(c, gpuMemcpyAsync(s->workspace, s->host, s->job[0].frame_bytes,
                                    gpuMemcpyHostToDevice, s->stream));
        }
    }
    gpuError_t e =
        nr == 1 ? enqueue(&b->kernels, &s->job[0], s->stream, 0, 0) : enqueue_ladder_terms(b, s);
    for (int r = 0; r < nr && e == gpuSuccess; r++)
        e = enqueue(&b->kernels, &s->job[r], s->stream, 1, PSNRHVS_GPU_STAGES - 1);
    if (e != gpuSuccess) return fail(c, e, "launching the kernels");
    for (int r = 0; r < nr; r++)
        CHECK(c,
              gpuMemcpyAsync(s->host + b->frame_bytes + (size_t)r * 4 * sizeof(float),
                             s->job[r].sum, 4 * sizeof(float), gpuMemcpyDeviceToHost, s->stream));
    CHECK(c, gpuEventRecord(s->done, s->stream));
    return 0;
}

/* A frame the kernels flagged: find the first sample out of range, in the
 * slot's packed copy (host pictures, a host reference) or, for device
 * pictures, in host copies of their rows as stored. */
static int locate_range_error(PsnrHvsContext *const c, GpuBackend *const b, GpuSlot *const s) {
    PsnrHvsRangeError e = {0};
    PsnrHvsPicture pics[1 + PSNRHVS_GPU_MAX_RENDITIONS];
#if !PSNRHVS_GPU_HIP
    if (!b->device_pictures && s->in_place) { /* the caller's, unchanged until received */
        psh_range_check(&c->geom, &s->pics[0], &s->pics[1], &e);
        return psh_range_report(c, &e);
    }
#endif
    if (!b->device_pictures) {
        psh_frame_pictures(&c->geom, s->host, pics);
        psh_range_check(&c->geom, &pics[0], &pics[1], &e);
        return psh_range_report(c, &e);
    }
    if (b->ref_on_host && c->geom.bitdepth > 8) {
        psh_frame_pictures(&c->geom, s->host, pics);
        for (int p = 0; p < c->geom.num_planes && !e.found; p++)
            psh_range_find(&e, 0, p, pics[0].data[p], pics[0].stride[p], c->geom.plane[p].w, 0,
                           c->geom.plane[p].h, (1u << c->geom.bitdepth) - 1);
    }
    /* Each plane's rows as stored (interleaved chroma: every other sample
     * is the other plane's), one plane at a time. */
    size_t most = 0;
    for (int p = 0; p < c->geom.num_planes; p++) {
        const PsnrHvsPlaneGeometry *const gp = &c->geom.plane[p];
        const size_t n = gp->row_bytes * (size_t)gp->step * (size_t)gp->h;
        most = n > most ? n : most;
    }
    unsigned char *const copy = malloc(most);
    if (!copy) return psh_range_report(c, &e);
    for (int k = b->ref_on_host; k <= b->renditions && !e.found; k++)
        for (int p = 0; p < c->geom.num_planes && !e.found; p++) {
            const PsnrHvsPlaneGeometry *const gp = &c->geom.plane[p];
            /* The last sample of a row ends the copy (its other plane's may be past the picture).
             */
            const size_t row = gp->row_bytes * (size_t)gp->step -
                               (size_t)(gp->step - 1) * (size_t)c->geom.bytes_per_sample;
            const gpuError_t ce =
                gpuMemcpy2D(copy, row, s->pics[k].data[p], (size_t)s->pics[k].stride[p], row,
                            (size_t)gp->h, gpuMemcpyDeviceToHost);
            if (ce != gpuSuccess) {
                free(copy);
                return fail(c, ce, "reading back a frame with samples out of range");
            }
            psh_range_find_stored(&e, k, p, copy, (ptrdiff_t)row, gp->w, gp->h, gp->step,
                                  c->geom.sample_shift, c->geom.bitdepth);
        }
    free(copy);
    return psh_range_report(c, &e);
}

static int gpu_collect(PsnrHvsContext *const c, const int slot, float (*sums)[3]) {
    GpuBackend *const b = c->backend;
    GpuSlot *const s = &b->slot[slot];
    CHECK(c, gpuSetDevice(b->device));
    const gpuError_t done = gpuEventSynchronize(s->done);
#if !PSNRHVS_GPU_HIP
    psh_hw_release(&s->hold);
#endif
    if (done != gpuSuccess) return fail(c, done, "waiting for a frame");
    for (int r = 0; r < b->renditions; r++) {
        float out[4];
        memcpy(out, s->host + b->frame_bytes + (size_t)r * 4 * sizeof(float), sizeof(out));
        unsigned flags;
        memcpy(&flags, &out[3], sizeof(flags));
        if (flags & PSNRHVS_GPU_OUT_OF_RANGE) return locate_range_error(c, b, s);
        memcpy(sums[r], out, (size_t)c->geom.num_planes * sizeof(float));
    }
    return 0;
}

static int gpu_list_devices(const int verbose, char *const buf, const size_t size) {
    char why[256];
    if (size) buf[0] = 0;
    if (gpu_runtime_load(why, sizeof(why))) {
        snprintf(buf, size, PSNRHVS_GPU_NAME ": %s\n", why);
        return PSNRHVS_ERR(ENODEV);
    }
    int n = 0;
    const gpuError_t e = gpuGetDeviceCount(&n);
    if (e != gpuSuccess || n == 0) {
        snprintf(buf, size, PSNRHVS_GPU_NAME ": no " PSNRHVS_GPU_RUNTIME " device (%s)\n",
                 no_device_reason(e));
        return PSNRHVS_ERR(ENODEV);
    }
    size_t used = 0;
    for (int i = 0; i < n && used + 1 < size; i++) {
        gpu_describe(i, verbose, buf + used, size - used);
        used += strlen(buf + used);
    }
    return 0;
}

/* auto's view (backend.h): every device a GPU, with its PCI address. */
static int gpu_enumerate(PsnrHvsDeviceInfo *const info, const int max) {
    char why[256];
    int n = 0;
    if (gpu_runtime_load(why, sizeof(why)) || gpuGetDeviceCount(&n) != gpuSuccess) return 0;
    for (int i = 0; i < n && i < max; i++) {
        memset(&info[i], 0, sizeof(info[i]));
        info[i].gpu = 1;
        snprintf(info[i].vendor, sizeof(info[i].vendor), "%s", PSNRHVS_GPU_VENDOR);
        char line[512] = ""; /* "cuda:0 NAME\n" */
        gpu_describe(i, 0, line, sizeof(line));
        const char *const name = strchr(line, ' ');
        snprintf(info[i].name, sizeof(info[i].name), "%.*s",
                 name ? (int)strcspn(name + 1, "\n") : 0, name ? name + 1 : "");
        char bus[32] = "";
        unsigned domain, b, dev;
        /* "0000:3b:00.0" (CUDA, HIP), as "dddd:bb:dd" */
        if (gpuDeviceGetPCIBusId(bus, (int)sizeof(bus), i) == gpuSuccess &&
            sscanf(bus, "%x:%x:%x", &domain, &b, &dev) == 3)
            snprintf(info[i].pci, sizeof(info[i].pci), "%04x:%02x:%02x", domain & 0xffff, b & 0xff,
                     dev & 0xff);
    }
    return n;
}

#if !PSNRHVS_GPU_HIP
/* CUDA contexts with two hardware queues, not CUDA's eight: a context
 * starts and ends sooner, same bits (bench/RESULTS.md). Set as the module
 * loads, before its runtime starts, so every front-end (CLI, Python, the
 * plugin) runs CUDA alike; a user's own setting stays. */
__attribute__((constructor)) static void cuda_queues(void) {
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "2", 0);
}
#endif

const PsnrHvsBackendOps PSNRHVS_GPU_OPS = {
    .name = PSNRHVS_GPU_NAME,
    .id = PSNRHVS_GPU_ID,
    .default_slots = 4,
    .device_pictures = 1,
    .open = gpu_open,
    .submit = gpu_submit,
    .collect = gpu_collect,
    .close = gpu_close,
    .list_devices = gpu_list_devices,
    .enumerate = gpu_enumerate,
    .copies_frames = 1,
#if !PSNRHVS_GPU_HIP
    .host_register = gpu_host_register,
    .host_unregister = gpu_host_unregister,
#endif
};
