/*
 * The CUDA backend: a thin host around kernels.cu. Each slot owns a pinned
 * staging buffer, a device workspace and a stream. submit packs the pair
 * into the slot's pinned buffer (frame.h) and enqueues the upload, the
 * kernels and the readback of the plane sums; collect waits for them.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/kernels.h"
#include "internal.h"
#include "thread_pool.h"

#define ALIGN 256
/* Threads packing pictures into pinned memory (settings.threads when set):
 * one thread copies about 5 GB/s, a 2160p pair is 25 MB. */
#define DEFAULT_PACK_THREADS 8

typedef struct CudaSlot {
    cudaStream_t stream;
    cudaEvent_t done;
    unsigned char *host; ///< pinned: packed frame, then the plane sums
    void *workspace;     ///< device: packed frame, then the job's arrays
    PsnrHvsCudaJob job;
} CudaSlot;

typedef struct CudaBackend {
    PsnrHvsThreadPool *pool;
    int device;
    size_t sum_off; ///< offset of the plane sums in each slot's pinned buffer
    CudaSlot slot[];
} CudaBackend;

static size_t align_up(const size_t n) {
    return (n + ALIGN - 1) / ALIGN * ALIGN;
}

void psnrhvs_cuda_plan(PsnrHvsCudaJob *const job, const struct PsnrHvsFrameGeometry *const g) {
    memset(job, 0, sizeof(*job));
    job->num_planes = g->num_planes;
    job->bitdepth = g->bitdepth;
    job->mask_product = g->mask_product;
    long long blocks = 0;
    for (int p = 0; p < g->num_planes; p++) {
        const PsnrHvsPlaneGeometry *const gp = &g->plane[p];
        PsnrHvsCudaPlane *const pl = &job->plane[p];
        pl->w = gp->w;
        pl->h = gp->h;
        pl->bw = gp->bw;
        pl->bh = gp->bh;
        pl->nb = (long long)pl->bw * pl->bh;
        pl->block_off = blocks;
        pl->pitch = (long long)gp->row_bytes;
        pl->ref_off = (long long)gp->ref_off;
        pl->dist_off = (long long)gp->dist_off;
        blocks += (pl->nb + PSNRHVS_CUDA_SUPER - 1) / PSNRHVS_CUDA_SUPER * PSNRHVS_CUDA_SUPER;
    }
    job->blocks = blocks;
    job->frame_bytes = g->frame_bytes;
    const size_t n = (size_t)blocks;
    job->workspace_bytes =
        align_up(n * 64 * sizeof(float)) + align_up(n * sizeof(float)) +
        align_up(n / PSNRHVS_CUDA_SUPER * sizeof(double)) + align_up(n * sizeof(PshSumChunkMaps)) +
        align_up(n / PSNRHVS_CUDA_CHUNK * sizeof(PshSumChunkMaps)) +
        align_up(n / PSNRHVS_CUDA_SUPER * sizeof(PshSumChunkMaps)) + align_up(3 * sizeof(float));
}

void psnrhvs_cuda_bind(PsnrHvsCudaJob *const job, void *const workspace, const void *const frame) {
    unsigned char *at = workspace;
    const size_t n = (size_t)job->blocks;
    job->frame = frame;
    job->terms = (float *)at;
    at += align_up(n * 64 * sizeof(float));
    job->block_sum = (float *)at;
    at += align_up(n * sizeof(float));
    job->super_sum = (double *)at;
    at += align_up(n / PSNRHVS_CUDA_SUPER * sizeof(double));
    job->block_maps = (PshSumChunkMaps *)at;
    at += align_up(n * sizeof(PshSumChunkMaps));
    job->chunk_maps = (PshSumChunkMaps *)at;
    at += align_up(n / PSNRHVS_CUDA_CHUNK * sizeof(PshSumChunkMaps));
    job->super_maps = (PshSumChunkMaps *)at;
    at += align_up(n / PSNRHVS_CUDA_SUPER * sizeof(PshSumChunkMaps));
    job->sum = (float *)at;
}

/* Log a failed CUDA call and map it to an error code. */
static int fail(const PsnrHvsContext *const c, const cudaError_t e, const char *const what) {
    psnrhvs_log(c, "cuda: %s failed: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
    switch (e) {
    case cudaErrorMemoryAllocation:
        return PSNRHVS_ERR(ENOMEM);
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorNoKernelImageForDevice:
        return PSNRHVS_ERR(ENODEV);
    default:
        return PSNRHVS_ERR(EIO);
    }
}

#define CHECK(c, call)                                                                             \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) return fail(c, e_, #call);                                          \
    } while (0)

static void cuda_close(PsnrHvsContext *const c) {
    CudaBackend *const b = c->backend;
    if (!b) return;
    cudaSetDevice(b->device);
    for (int i = 0; i < c->slots; i++) {
        CudaSlot *const s = &b->slot[i];
        if (s->stream) cudaStreamSynchronize(s->stream);
        if (s->done) cudaEventDestroy(s->done);
        if (s->stream) cudaStreamDestroy(s->stream);
        if (s->workspace) cudaFree(s->workspace);
        if (s->host) cudaFreeHost(s->host);
    }
    psnrhvs_thread_pool_destroy(b->pool);
    free(b);
    c->backend = NULL;
}

/* Why cudaGetDeviceCount found nothing, in words. */
static const char *no_device_reason(const cudaError_t e) {
    switch (e) {
    case cudaSuccess:
    case cudaErrorNoDevice:
        return "the driver reports no device";
    case cudaErrorInsufficientDriver:
        return "no NVIDIA driver, or one older than this build's CUDA runtime";
    default:
        return cudaGetErrorString(e);
    }
}

static int open_device(PsnrHvsContext *const c) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        psnrhvs_log(c, "cuda: no CUDA device (%s)", no_device_reason(e));
        return PSNRHVS_ERR(ENODEV);
    }
    if (c->s.device >= n) {
        psnrhvs_log(c, "cuda: device %d requested, %d present", c->s.device, n);
        return PSNRHVS_ERR(ENODEV);
    }
    CHECK(c, cudaSetDevice(c->s.device));
    if ((e = (cudaError_t)psnrhvs_cuda_probe_image()) != cudaSuccess) {
        struct cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, c->s.device) == cudaSuccess)
            psnrhvs_log(c, "cuda: device %d (%s, sm_%d%d) cannot run this build's kernels (%s)",
                        c->s.device, prop.name, prop.major, prop.minor, cudaGetErrorString(e));
        else
            psnrhvs_log(c, "cuda: cannot load kernels (%s)", cudaGetErrorString(e));
        return PSNRHVS_ERR(ENODEV);
    }
    return 0;
}

static int cuda_open(PsnrHvsContext *const c) {
    int err = open_device(c);
    if (err) return err;
    CudaBackend *const b = calloc(1, sizeof(*b) + (size_t)c->slots * sizeof(CudaSlot));
    if (!b) return PSNRHVS_ERR(ENOMEM);
    b->device = c->s.device;
    c->backend = b;
    b->pool = psnrhvs_thread_pool_create(c->s.threads > 0 ? c->s.threads : DEFAULT_PACK_THREADS);
    if (!b->pool) {
        cuda_close(c);
        return PSNRHVS_ERR(ENOMEM);
    }
    PsnrHvsCudaJob plan;
    psnrhvs_cuda_plan(&plan, &c->geom);
    b->sum_off = align_up(plan.frame_bytes);
    for (int i = 0; i < c->slots; i++) {
        CudaSlot *const s = &b->slot[i];
        cudaError_t e;
        s->job = plan;
        if ((e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)) != cudaSuccess ||
            (e = cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming)) != cudaSuccess ||
            (e = cudaMallocHost((void **)&s->host, b->sum_off + 3 * sizeof(float))) !=
                cudaSuccess ||
            (e = cudaMalloc(&s->workspace, b->sum_off + plan.workspace_bytes)) != cudaSuccess) {
            err = fail(c, e, "allocating a frame slot");
            cuda_close(c);
            return err;
        }
        psnrhvs_cuda_bind(&s->job, (unsigned char *)s->workspace + b->sum_off, s->workspace);
    }
    return 0;
}

static int cuda_submit(PsnrHvsContext *const c, const int slot, const PsnrHvsPicture *const ref,
                       const PsnrHvsPicture *const dist) {
    CudaBackend *const b = c->backend;
    CudaSlot *const s = &b->slot[slot];
    CHECK(c, cudaSetDevice(b->device));
    /* The slot is free: its last frame was collected, so its stream is idle. */
    psnrhvs_frame_pack(&c->geom, ref, dist, s->host, b->pool);
    CHECK(c, cudaMemcpyAsync(s->workspace, s->host, s->job.frame_bytes, cudaMemcpyHostToDevice,
                             s->stream));
    const cudaError_t e = (cudaError_t)psnrhvs_cuda_enqueue(&s->job, s->stream);
    if (e != cudaSuccess) return fail(c, e, "launching the kernels");
    CHECK(c, cudaMemcpyAsync(s->host + b->sum_off, s->job.sum,
                             (size_t)s->job.num_planes * sizeof(float), cudaMemcpyDeviceToHost,
                             s->stream));
    CHECK(c, cudaEventRecord(s->done, s->stream));
    return 0;
}

static int cuda_collect(PsnrHvsContext *const c, const int slot, float sums[3]) {
    CudaBackend *const b = c->backend;
    CudaSlot *const s = &b->slot[slot];
    CHECK(c, cudaSetDevice(b->device));
    CHECK(c, cudaEventSynchronize(s->done));
    memcpy(sums, s->host + b->sum_off, (size_t)c->geom.num_planes * sizeof(float));
    return 0;
}

static int cuda_list_devices(const int verbose, char *const buf, const size_t size) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (size) buf[0] = 0;
    if (e != cudaSuccess || n == 0) {
        snprintf(buf, size, "cuda: no CUDA device (%s)\n", no_device_reason(e));
        return PSNRHVS_ERR(ENODEV);
    }
    size_t used = 0;
    for (int i = 0; i < n && used < size; i++) {
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
        int w;
        if (verbose)
            w = snprintf(buf + used, size - used,
                         "cuda:%d %s (sm_%d%d, %d multiprocessors, %.1f GiB, PCI %04x:%02x:%02x)\n",
                         i, p.name, p.major, p.minor, p.multiProcessorCount,
                         (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.pciDomainID,
                         p.pciBusID, p.pciDeviceID);
        else
            w = snprintf(buf + used, size - used, "cuda:%d %s\n", i, p.name);
        if (w < 0) break;
        used += (size_t)w;
    }
    return 0;
}

const PsnrHvsBackendOps psnrhvs_backend_cuda = {
    .name = "cuda",
    .id = PSNRHVS_BACKEND_CUDA,
    .default_slots = 4,
    .open = cuda_open,
    .submit = cuda_submit,
    .collect = cuda_collect,
    .close = cuda_close,
    .list_devices = cuda_list_devices,
};
