/*
 * The CUDA backend: a thin host around kernels.cu. Each frame in flight owns
 * a slot: a pinned staging buffer, a device workspace and a stream. send packs
 * the caller's samples into the slot's pinned buffer (bytes at 8 bits, 16-bit
 * words above, only the scored area) and enqueues the upload, the kernels and
 * the readback of the plane sums; receive waits for the oldest slot.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/block.h"
#include "cuda/kernels.h"
#include "internal.h"
#include "staging.h"
#include "thread_pool.h"

#define DEFAULT_FRAMES_IN_FLIGHT 4
#define MAX_FRAMES_IN_FLIGHT     64
#define ALIGN                    256
/* Threads packing pictures into pinned memory (settings.threads when set):
 * one thread copies about 5 GB/s, a 2160p pair is 25 MB. */
#define DEFAULT_PACK_THREADS 8

typedef struct CudaSlot {
    cudaStream_t stream;
    cudaEvent_t done;
    unsigned char *host; ///< pinned: packed frame, then the plane sums
    void *workspace;     ///< device: packed frame, then the job's arrays
    PsnrHvsCudaJob job;
    uint64_t tag;
} CudaSlot;

typedef struct CudaBackend {
    PsnrHvsThreadPool *pool;
    int device;
    int nslots, head, count;
    size_t sum_off; ///< offset of the plane sums in each slot's pinned buffer
    CudaSlot slot[];
} CudaBackend;

static size_t align_up(const size_t n) {
    return (n + ALIGN - 1) / ALIGN * ALIGN;
}

void psnrhvs_cuda_plan(PsnrHvsCudaJob *const job, const int num_planes, const int w[3],
                       const int h[3], const int bitdepth, const int mask_product) {
    memset(job, 0, sizeof(*job));
    job->num_planes = num_planes;
    job->bitdepth = bitdepth;
    job->mask_product = mask_product;
    const size_t bps = bitdepth > 8 ? 2 : 1;
    size_t plane_bytes[3] = {0, 0, 0}, all = 0;
    for (int p = 0; p < num_planes; p++) {
        plane_bytes[p] = (size_t)w[p] * (size_t)h[p] * bps;
        all += plane_bytes[p];
    }
    long long blocks = 0;
    size_t ref_off = 0;
    for (int p = 0; p < num_planes; p++) {
        PsnrHvsCudaPlane *const pl = &job->plane[p];
        pl->w = w[p];
        pl->h = h[p];
        pl->bw = psnrhvs_blocks_along(w[p]);
        pl->bh = psnrhvs_blocks_along(h[p]);
        pl->nb = (long long)pl->bw * pl->bh;
        pl->block_off = blocks;
        pl->pitch = (long long)((size_t)w[p] * bps);
        pl->ref_off = (long long)ref_off;
        pl->dist_off = (long long)(all + ref_off);
        ref_off += plane_bytes[p];
        blocks += (pl->nb + PSNRHVS_CUDA_SUPER - 1) / PSNRHVS_CUDA_SUPER * PSNRHVS_CUDA_SUPER;
    }
    job->blocks = blocks;
    job->frame_bytes = 2 * all;
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
    for (int i = 0; i < b->nslots; i++) {
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
    int nslots = c->s.frames_in_flight > 0 ? c->s.frames_in_flight : DEFAULT_FRAMES_IN_FLIGHT;
    if (nslots > MAX_FRAMES_IN_FLIGHT) nslots = MAX_FRAMES_IN_FLIGHT;
    CudaBackend *const b = calloc(1, sizeof(*b) + (size_t)nslots * sizeof(CudaSlot));
    if (!b) return PSNRHVS_ERR(ENOMEM);
    b->device = c->s.device;
    b->nslots = nslots;
    c->backend = b;
    b->pool = psnrhvs_thread_pool_create(c->s.threads > 0 ? c->s.threads : DEFAULT_PACK_THREADS);

    const int mp = c->s.mask_product == PSNRHVS_MASK_PRODUCT_EXACT ? PSH_MASK_PRODUCT_EXACT
                                                                   : PSH_MASK_PRODUCT_FLOAT;
    PsnrHvsCudaJob plan;
    psnrhvs_cuda_plan(&plan, c->num_planes, c->plane_w, c->plane_h, c->s.bitdepth, mp);
    b->sum_off = align_up(plan.frame_bytes);
    const size_t frame_dev = align_up(plan.frame_bytes);
    for (int i = 0; i < nslots; i++) {
        CudaSlot *const s = &b->slot[i];
        cudaError_t e;
        s->job = plan;
        if ((e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)) != cudaSuccess ||
            (e = cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming)) != cudaSuccess ||
            (e = cudaMallocHost((void **)&s->host, b->sum_off + 3 * sizeof(float))) !=
                cudaSuccess ||
            (e = cudaMalloc(&s->workspace, frame_dev + plan.workspace_bytes)) != cudaSuccess) {
            err = fail(c, e, "allocating a frame slot");
            cuda_close(c);
            return err;
        }
        psnrhvs_cuda_bind(&s->job, (unsigned char *)s->workspace + frame_dev, s->workspace);
    }
    return 0;
}

/* The scored area of each plane, rows packed, as psnrhvs_cuda_plan laid
 * out: the rows of ref then dist planes. */
static void pack(const CudaBackend *const b, const PsnrHvsCudaJob *const job,
                 const PsnrHvsPicture *const ref, const PsnrHvsPicture *const dist,
                 unsigned char *const dst) {
    PsnrHvsStagingLayout layout = {.num_planes = job->num_planes};
    for (int p = 0; p < job->num_planes; p++) {
        const PsnrHvsCudaPlane *const pl = &job->plane[p];
        layout.plane[p] = (PsnrHvsStagingPlane){(size_t)pl->ref_off, (size_t)pl->dist_off,
                                                (size_t)pl->pitch, (int)pl->h};
    }
    psnrhvs_staging_pack(&layout, ref, dist, dst, b->pool);
}

static int cuda_send(PsnrHvsContext *const c, const PsnrHvsPicture *const ref,
                     const PsnrHvsPicture *const dist, const uint64_t tag) {
    CudaBackend *const b = c->backend;
    if (b->count == b->nslots) return PSNRHVS_ERR(EAGAIN);
    CudaSlot *const s = &b->slot[(b->head + b->count) % b->nslots];
    CHECK(c, cudaSetDevice(b->device));
    /* The slot is free: its last frame was received, so its stream is idle. */
    pack(b, &s->job, ref, dist, s->host);
    CHECK(c, cudaMemcpyAsync(s->workspace, s->host, s->job.frame_bytes, cudaMemcpyHostToDevice,
                             s->stream));
    const cudaError_t e = (cudaError_t)psnrhvs_cuda_enqueue(&s->job, s->stream);
    if (e != cudaSuccess) return fail(c, e, "launching the kernels");
    CHECK(c, cudaMemcpyAsync(s->host + b->sum_off, s->job.sum,
                             (size_t)s->job.num_planes * sizeof(float), cudaMemcpyDeviceToHost,
                             s->stream));
    CHECK(c, cudaEventRecord(s->done, s->stream));
    s->tag = tag;
    b->count++;
    return 0;
}

static int cuda_receive(PsnrHvsContext *const c, float raw[3], uint64_t *const tag) {
    CudaBackend *const b = c->backend;
    if (!b->count) return PSNRHVS_ERR(EAGAIN);
    CudaSlot *const s = &b->slot[b->head];
    b->head = (b->head + 1) % b->nslots;
    b->count--;
    *tag = s->tag;
    CHECK(c, cudaSetDevice(b->device));
    CHECK(c, cudaEventSynchronize(s->done));
    float sum[3];
    memcpy(sum, s->host + b->sum_off, sizeof(sum));
    for (int p = 0; p < 3; p++)
        raw[p] = p < c->num_planes
                     ? psnrhvs_plane_finish(sum[p], c->plane_w[p], c->plane_h[p], c->s.bitdepth)
                     : 0.0f;
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
    .open = cuda_open,
    .send = cuda_send,
    .receive = cuda_receive,
    .close = cuda_close,
    .list_devices = cuda_list_devices,
};
