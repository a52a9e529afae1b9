/*
 * The OpenCL backend: uploads both frames, runs src/core/ on the device
 * (kernels.cl, embedded at build time) including the whole plane's exact f32
 * sum, and reads back one f32 per plane. Several frames are in flight: the
 * upload of one overlaps the kernels of the previous one (two queues).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__APPLE__)
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

#include "internal.h"
#include "opencl/opencl_loader.h"
#include "thread_pool.h"

/* Generated from src/core/ and kernels.cl by cmake/EmbedOpenCL.cmake. */
extern const char psh_opencl_source[];

#define CHUNK       64 /* blocks per chunk: PSH_CL_CHUNK in kernels.cl */
#define CHUNK_BYTES 48 /* sizeof(PshSumChunkMaps) */
#define MAP_BYTES   16 /* sizeof(PshSumMap) */
/* Threads copying pictures into pinned memory when settings.threads is 0. */
#define DEFAULT_FRAMES 3
#define MAX_DEVICES    64

/* The four kernels, in queue order, then a probe without private data
 * (list_devices). */
#define NKERNELS 4
static const char *const kernel_names[NKERNELS + 1] = {
    "psh_cl_terms", "psh_cl_maps", "psh_cl_windows", "psh_cl_walk", "psh_cl_probe"};

typedef struct ClSlot {
    cl_mem input;                           /* ref planes then dist planes, packed */
    cl_mem staging;                         /* pinned host copy made in send */
    void *host;                             /* staging, mapped */
    cl_event done;                          /* the read of this frame's plane sums */
    cl_event prof[1 + NKERNELS * 3];        /* upload, then each kernel per plane (profiling) */
    double copy_ms;                         /* host copy in send (profiling) */
    float sums[PSNRHVS_MAX_RENDITIONS * 4]; /* per rendition: planes, then flags */
} ClSlot;

typedef struct ClBackend {
    cl_context ctx;
    cl_device_id dev;
    cl_command_queue copy_q, compute_q;
    cl_program prog;
    cl_kernel k[NKERNELS];
    cl_mem terms, chunk_sum, chunks, block_maps, windows, sums;
    PsnrHvsThreadPool *pool; /* copies pictures into the staging buffers */
    int nblocks[3], nchunks[3];
    ClSlot *slots;
    int nslots;
    /* the profiling test hook: per-stage device times, logged at close */
    int profile, profiled;
    double prof_ms[1 + NKERNELS], copy_ms;
} ClBackend;

typedef struct ClDeviceList {
    int n;
    cl_platform_id platform[MAX_DEVICES];
    cl_device_id device[MAX_DEVICES];
} ClDeviceList;

/* Every device of every platform, in order: settings.device indexes this.
 * One thread at a time: a platform's first discovery (PoCL's, which starts
 * its devices then) is not safe twice at once, and auto discovers on a
 * thread of its own. */
static void list_all(ClDeviceList *const l) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    cl_platform_id plats[16];
    cl_uint np = 0;
    l->n = 0;
    pthread_mutex_lock(&lock);
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) np = 0;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && l->n < MAX_DEVICES; d++) {
            l->platform[l->n] = plats[p];
            l->device[l->n++] = devs[d];
        }
    }
    pthread_mutex_unlock(&lock);
}

static cl_device_fp_config fp_config(const cl_device_id dev) {
    cl_device_fp_config cfg = 0;
    clGetDeviceInfo(dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof(cfg), &cfg, NULL);
    return cfg;
}

/* Integer division and root where the device does not promise correctly
 * rounded ones (OpenCL allows 2.5 and 3 ulp), or when asked to. */
static int use_exact_helpers(const cl_device_id dev, const int forced) {
    return forced || !(fp_config(dev) & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
}

/* Fixed by the build: never -cl-fast-relaxed-math or -cl-mad-enable (no
 * contraction; portable.h also says #pragma OPENCL FP_CONTRACT OFF). */
static const char *build_options(const int exact) {
    return exact ? "-cl-std=CL1.2 -DPSH_EXACT_HELPERS=1"
                 : "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt";
}

static int cl_error(const PsnrHvsContext *const c, const cl_int err, const char *const what) {
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
        err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE) {
        if (c) psh_log(c, "opencl: %s: out of device memory (error %d)", what, (int)err);
        return PSNRHVS_ERR(ENOMEM);
    }
    if (c) psh_log(c, "opencl: %s failed (error %d)", what, (int)err);
    return PSNRHVS_ERR(EIO);
}

/* Builds the embedded source for one device; *log gets the build log
 * (malloc'd, may be NULL) when the build fails. */
static cl_int build_program(const cl_context ctx, const cl_device_id dev, const int exact,
                            cl_program *const out, char **const log) {
    const char *src = psh_opencl_source;
    cl_int err;
    *log = NULL;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (err != CL_SUCCESS) return err;
    err = clBuildProgram(prog, 1, &dev, build_options(exact), NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t n = 0;
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
        if (n && (*log = malloc(n + 1))) {
            clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, *log, NULL);
            (*log)[n] = 0;
        }
        clReleaseProgram(prog);
        return err;
    }
    *out = prog;
    return CL_SUCCESS;
}

/* The build log, line by line (the logger takes one bounded message). */
static void log_build_log(const PsnrHvsContext *const c, const char *log) {
    while (log && *log) {
        const char *nl = strchr(log, '\n');
        const int len = nl ? (int)(nl - log) : (int)strlen(log);
        if (len) psh_log(c, "opencl build log: %.*s", len > 900 ? 900 : len, log);
        log += len + (nl != NULL);
    }
}

static void release_prof(ClSlot *const s) {
    for (int i = 0; i < 10; i++)
        if (s->prof[i]) clReleaseEvent(s->prof[i]);
    memset(s->prof, 0, sizeof(s->prof));
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void release_slot(ClSlot *const s, const cl_command_queue q) {
    release_prof(s);
    if (s->done) clReleaseEvent(s->done);
    if (s->host) clEnqueueUnmapMemObject(q, s->staging, s->host, 0, NULL, NULL);
    if (s->staging) clReleaseMemObject(s->staging);
    if (s->input) clReleaseMemObject(s->input);
    memset(s, 0, sizeof(*s));
}

static void cl_close(PsnrHvsContext *const c) {
    ClBackend *const b = c->backend;
    if (!b) return;
    if (b->profiled) {
        const double n = b->profiled;
        psh_log(c,
                "opencl profile, ms per frame over %d frames: host copy %.3f, upload %.3f, "
                "terms %.3f, maps %.3f, windows %.3f, walk %.3f",
                b->profiled, b->copy_ms / n, b->prof_ms[0] / n, b->prof_ms[1] / n,
                b->prof_ms[2] / n, b->prof_ms[3] / n, b->prof_ms[4] / n);
    }
    if (b->copy_q) clFinish(b->copy_q);
    if (b->compute_q) clFinish(b->compute_q);
    for (int i = 0; b->slots && i < b->nslots; i++) release_slot(&b->slots[i], b->compute_q);
    if (b->compute_q) clFinish(b->compute_q);
    free(b->slots);
    cl_mem *const mems[] = {&b->terms,      &b->chunk_sum, &b->chunks,
                            &b->block_maps, &b->windows,   &b->sums};
    for (size_t i = 0; i < sizeof(mems) / sizeof(mems[0]); i++)
        if (*mems[i]) clReleaseMemObject(*mems[i]);
    for (int i = 0; i < NKERNELS; i++)
        if (b->k[i]) clReleaseKernel(b->k[i]);
    if (b->prog) clReleaseProgram(b->prog);
    if (b->copy_q) clReleaseCommandQueue(b->copy_q);
    if (b->compute_q) clReleaseCommandQueue(b->compute_q);
    if (b->ctx) clReleaseContext(b->ctx);
    free(b);
    c->backend = NULL;
}

static int alloc_buffer(const PsnrHvsContext *const c, const ClBackend *const b, cl_mem *const m,
                        const cl_mem_flags flags, const size_t bytes, const char *const what) {
    cl_int err;
    *m = clCreateBuffer(b->ctx, flags, bytes, NULL, &err);
    return err == CL_SUCCESS ? 0 : cl_error(c, err, what);
}

static int cl_open(PsnrHvsContext *const c) {
    char why[256];
    if (psh_opencl_load(why, sizeof(why))) {
        psh_log(c, "opencl: %s", why);
        return PSNRHVS_ERR(ENODEV);
    }
    ClDeviceList l;
    list_all(&l);
    if (!l.n) {
        psh_log(c, "opencl: no OpenCL platform or device found (is an ICD installed?)");
        return PSNRHVS_ERR(ENODEV);
    }
    if (c->s.device >= l.n) {
        psh_log(c, "opencl: device %d does not exist (%d found)", c->s.device, l.n);
        return PSNRHVS_ERR(ENODEV);
    }
    ClBackend *const b = calloc(1, sizeof(*b));
    if (!b) return PSNRHVS_ERR(ENOMEM);
    c->backend = b;
    b->dev = l.device[c->s.device];
    cl_int err;
    int ret;
    char name[256] = "";
    clGetDeviceInfo(b->dev, CL_DEVICE_NAME, sizeof(name) - 1, name, NULL);
    const cl_device_fp_config cfg = fp_config(b->dev);
    if (!(cfg & CL_FP_DENORM))
        psh_log(c,
                "opencl: note: %s flushes f32 subnormals; psnr_hvs terms and sums of "
                "real frames stay far above that range, where results are unaffected",
                name);
    const int exact = use_exact_helpers(b->dev, c->s.exact_helpers);

    const PsnrHvsFrameGeometry *const g = &c->geom;
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(b->dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc, NULL);
    if (max_alloc && g->frame_bytes > max_alloc) {
        psh_log(c, "opencl: a frame pair needs %zu bytes in one buffer, %s allows %llu",
                g->frame_bytes, name, (unsigned long long)max_alloc);
        ret = PSNRHVS_ERR(ENOMEM);
        goto error;
    }

    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           (cl_context_properties)l.platform[c->s.device], 0};
    b->ctx = clCreateContext(props, 1, &b->dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) goto cl_fail;
    b->profile = c->profile;
    const cl_command_queue_properties qp = b->profile ? CL_QUEUE_PROFILING_ENABLE : 0;
    b->copy_q = clCreateCommandQueue(b->ctx, b->dev, qp, &err);
    if (err != CL_SUCCESS) goto cl_fail;
    b->compute_q = clCreateCommandQueue(b->ctx, b->dev, qp, &err);
    if (err != CL_SUCCESS) goto cl_fail;

    char *log;
    err = build_program(b->ctx, b->dev, exact, &b->prog, &log);
    if (err != CL_SUCCESS) {
        psh_log(c, "opencl: building the kernels for %s with \"%s\" failed (error %d)", name,
                build_options(exact), (int)err);
        log_build_log(c, log);
        free(log);
        ret = PSNRHVS_ERR(EIO);
        goto error;
    }
    for (int i = 0; i < NKERNELS; i++) {
        b->k[i] = clCreateKernel(b->prog, kernel_names[i], &err);
        if (err != CL_SUCCESS) goto cl_fail;
    }

    /* One set of scratch buffers serves every plane and frame, since the
     * compute queue runs in order. */
    size_t max_chunks = 0;
    for (int p = 0; p < g->num_planes; p++) {
        b->nblocks[p] = g->plane[p].bw * g->plane[p].bh;
        b->nchunks[p] = (b->nblocks[p] + CHUNK - 1) / CHUNK;
        if ((size_t)b->nchunks[p] > max_chunks) max_chunks = b->nchunks[p];
    }
    b->pool = c->copy_pool; /* the context's (lib.c) */
    if (!b->pool) {
        ret = PSNRHVS_ERR(ENOMEM);
        goto error;
    }
    b->nslots = c->slots;
    if ((ret = alloc_buffer(c, b, &b->terms, CL_MEM_READ_WRITE,
                            max_chunks * CHUNK * 64 * sizeof(float), "terms buffer")) ||
        (ret = alloc_buffer(c, b, &b->chunk_sum, CL_MEM_READ_WRITE, max_chunks * sizeof(float),
                            "chunk sums buffer")) ||
        (ret =
             alloc_buffer(c, b, &b->windows, CL_MEM_READ_WRITE,
                          (max_chunks + CHUNK - 1) / CHUNK * CHUNK_BYTES, "window maps buffer")) ||
        (ret = alloc_buffer(c, b, &b->chunks, CL_MEM_READ_WRITE, max_chunks * CHUNK_BYTES,
                            "chunk maps buffer")) ||
        (ret = alloc_buffer(c, b, &b->block_maps, CL_MEM_READ_WRITE,
                            max_chunks * CHUNK * 2 * MAP_BYTES, "block maps buffer")) ||
        (ret = alloc_buffer(c, b, &b->sums, CL_MEM_READ_WRITE,
                            (size_t)b->nslots * g->renditions * 4 * sizeof(float), "sums buffer")))
        goto error;
    b->slots = calloc((size_t)b->nslots, sizeof(*b->slots));
    if (!b->slots) {
        ret = PSNRHVS_ERR(ENOMEM);
        goto error;
    }
    for (int i = 0; i < b->nslots; i++) {
        ClSlot *const s = &b->slots[i];
        if ((ret =
                 alloc_buffer(c, b, &s->input, CL_MEM_READ_ONLY, g->frame_bytes, "frame buffer")) ||
            (ret = alloc_buffer(c, b, &s->staging, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                g->frame_bytes, "pinned staging buffer")))
            goto error;
        s->host = clEnqueueMapBuffer(b->compute_q, s->staging, CL_TRUE, CL_MAP_WRITE, 0,
                                     g->frame_bytes, 0, NULL, NULL, &err);
        if (err != CL_SUCCESS) goto cl_fail;
    }
    /* Touch every buffer once so that a device too small says so now. */
    const cl_mem scratch[] = {b->terms,      b->chunk_sum, b->chunks,
                              b->block_maps, b->windows,   b->sums};
    for (size_t i = 0; i < sizeof(scratch) / sizeof(scratch[0]); i++) {
        const cl_uint zero = 0;
        err = clEnqueueFillBuffer(b->compute_q, scratch[i], &zero, sizeof(zero), 0, sizeof(zero), 0,
                                  NULL, NULL);
        if (err != CL_SUCCESS) goto cl_fail;
    }
    for (int i = 0; i < b->nslots; i++) {
        const cl_uchar zero = 0;
        err = clEnqueueFillBuffer(b->compute_q, b->slots[i].input, &zero, 1, 0, 1, 0, NULL, NULL);
        if (err != CL_SUCCESS) goto cl_fail;
    }
    if ((err = clFinish(b->compute_q)) != CL_SUCCESS) goto cl_fail;
    return 0;

cl_fail:
    ret = cl_error(c, err, "setting up the device");
error:
    cl_close(c);
    return ret;
}

static int cl_submit(PsnrHvsContext *const c, const int si, const PsnrHvsPicture *const ref,
                     const PsnrHvsPicture *const dist) {
    ClBackend *const b = c->backend;
    const PsnrHvsFrameGeometry *const g = &c->geom;
    ClSlot *const s = &b->slots[si];
    const double t0 = b->profile ? now_ms() : 0.0;
    /* The slot's last frame was collected, so its upload and kernels are
     * done: the staging copy and the device buffer are free. */
    psh_frame_pack_upload(g, ref, dist, (unsigned char *)s->host, b->pool);
    if (b->profile) s->copy_ms = now_ms() - t0;
    /* Clear the slot's out-of-range flag (the word after its first plane
     * sums; every rendition's terms kernels set it). A ladder's renditions
     * run one after the other here: the reference's side is recomputed for
     * each, though read and uploaded once. */
    const int nr = g->renditions;
    const cl_uint zero = 0;
    const cl_int flag_index = si * nr * 4 + 3;
    cl_int err =
        clEnqueueFillBuffer(b->compute_q, b->sums, &zero, sizeof(zero),
                            (size_t)flag_index * sizeof(cl_uint), sizeof(zero), 0, NULL, NULL);
    if (err != CL_SUCCESS) return cl_error(c, err, "clearing a frame's flags");
    cl_event uploaded;
    err = clEnqueueWriteBuffer(b->copy_q, s->input, CL_FALSE, 0, g->frame_bytes, s->host, 0, NULL,
                               &uploaded);
    if (err != CL_SUCCESS) return cl_error(c, err, "uploading a frame");
    if (b->profile) {
        release_prof(s);
        clRetainEvent(uploaded);
        s->prof[0] = uploaded;
    }
    clFlush(b->copy_q);

    for (int i = 0; i < nr * g->num_planes && err == CL_SUCCESS; i++) {
        const int r = i / g->num_planes, p = i % g->num_planes;
        const PsnrHvsPlaneGeometry *const gp = &g->plane[p];
        const cl_ulong ref_off = gp->ref_off;
        const cl_ulong dist_off = gp->dist_off + (size_t)r * g->picture_bytes;
        const cl_int width = gp->w, nbx = gp->bw, nblocks = b->nblocks[p];
        const cl_int plane = p, bitdepth = g->bitdepth;
        const cl_int mask_product = g->mask_product;
        const cl_int nchunks = b->nchunks[p], out_index = (si * nr + r) * 4 + p;
        const size_t local = CHUNK, global = (size_t)nchunks * CHUNK;
        cl_kernel k = b->k[0];
        clSetKernelArg(k, 0, sizeof(cl_mem), &s->input);
        clSetKernelArg(k, 1, sizeof(cl_mem), &s->input);
        clSetKernelArg(k, 2, sizeof(ref_off), &ref_off);
        clSetKernelArg(k, 3, sizeof(dist_off), &dist_off);
        clSetKernelArg(k, 4, sizeof(width), &width);
        clSetKernelArg(k, 5, sizeof(nbx), &nbx);
        clSetKernelArg(k, 6, sizeof(nblocks), &nblocks);
        clSetKernelArg(k, 7, sizeof(plane), &plane);
        clSetKernelArg(k, 8, sizeof(bitdepth), &bitdepth);
        clSetKernelArg(k, 9, sizeof(mask_product), &mask_product);
        clSetKernelArg(k, 10, sizeof(cl_mem), &b->terms);
        clSetKernelArg(k, 11, sizeof(cl_mem), &b->chunk_sum);
        clSetKernelArg(k, 12, sizeof(cl_mem), &b->sums);
        clSetKernelArg(k, 13, sizeof(flag_index), &flag_index);
        cl_event *const ev = b->profile && r == 0 ? &s->prof[1 + NKERNELS * p] : NULL;
        err = clEnqueueNDRangeKernel(b->compute_q, k, 1, NULL, &global, &local, i == 0,
                                     i == 0 ? &uploaded : NULL, ev);
        if (err != CL_SUCCESS) break;
        k = b->k[1];
        clSetKernelArg(k, 0, sizeof(cl_mem), &b->terms);
        clSetKernelArg(k, 1, sizeof(cl_mem), &b->chunk_sum);
        clSetKernelArg(k, 2, sizeof(cl_mem), &b->chunks);
        clSetKernelArg(k, 3, sizeof(cl_mem), &b->block_maps);
        err = clEnqueueNDRangeKernel(b->compute_q, k, 1, NULL, &global, &local, 0, NULL,
                                     ev ? ev + 1 : NULL);
        if (err != CL_SUCCESS) break;
        k = b->k[2];
        const size_t windows_global = (size_t)((nchunks + CHUNK - 1) / CHUNK) * CHUNK;
        clSetKernelArg(k, 0, sizeof(cl_mem), &b->chunks);
        clSetKernelArg(k, 1, sizeof(nchunks), &nchunks);
        clSetKernelArg(k, 2, sizeof(cl_mem), &b->windows);
        err = clEnqueueNDRangeKernel(b->compute_q, k, 1, NULL, &windows_global, &local, 0, NULL,
                                     ev ? ev + 2 : NULL);
        if (err != CL_SUCCESS) break;
        k = b->k[3];
        clSetKernelArg(k, 0, sizeof(cl_mem), &b->terms);
        clSetKernelArg(k, 1, sizeof(cl_mem), &b->chunks);
        clSetKernelArg(k, 2, sizeof(cl_mem), &b->block_maps);
        clSetKernelArg(k, 3, sizeof(cl_mem), &b->windows);
        clSetKernelArg(k, 4, sizeof(nchunks), &nchunks);
        clSetKernelArg(k, 5, sizeof(cl_mem), &b->sums);
        clSetKernelArg(k, 6, sizeof(out_index), &out_index);
        err = clEnqueueNDRangeKernel(b->compute_q, k, 1, NULL, &local, &local, 0, NULL,
                                     ev ? ev + 3 : NULL);
    }
    clReleaseEvent(uploaded);
    if (err != CL_SUCCESS) return cl_error(c, err, "queueing the kernels");
    err = clEnqueueReadBuffer(b->compute_q, b->sums, CL_FALSE, (size_t)si * nr * 4 * sizeof(float),
                              (size_t)nr * 4 * sizeof(float), s->sums, 0, NULL, &s->done);
    if (err != CL_SUCCESS) return cl_error(c, err, "queueing the read of the sums");
    clFlush(b->compute_q);
    return 0;
}

static int cl_collect(PsnrHvsContext *const c, const int si, float (*sums)[3]) {
    ClBackend *const b = c->backend;
    ClSlot *const s = &b->slots[si];
    cl_int status = CL_COMPLETE;
    cl_int err = clWaitForEvents(1, &s->done);
    if (err == CL_SUCCESS)
        err = clGetEventInfo(s->done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                             NULL);
    clReleaseEvent(s->done);
    s->done = NULL;
    if (err == CL_SUCCESS && status < 0) err = status;
    if (err != CL_SUCCESS) return cl_error(c, err, "scoring a frame");
    if (b->profile) {
        for (int i = 0; i < 1 + NKERNELS * 3; i++) {
            cl_ulong t0 = 0, t1 = 0;
            if (!s->prof[i]) continue;
            clGetEventProfilingInfo(s->prof[i], CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL);
            clGetEventProfilingInfo(s->prof[i], CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL);
            b->prof_ms[i ? 1 + (i - 1) % NKERNELS : 0] += (double)(t1 - t0) * 1e-6;
        }
        release_prof(s);
        b->copy_ms += s->copy_ms;
        b->profiled++;
    }
    cl_uint flags;
    memcpy(&flags, &s->sums[3], sizeof(flags));
    if (flags) {
        /* Where: the packed pair is still in the slot's staging buffer. */
        PsnrHvsRangeError e = {0};
        PsnrHvsPicture pics[1 + PSNRHVS_MAX_RENDITIONS];
        psh_frame_pictures(&c->geom, s->host, pics);
        psh_range_check(&c->geom, &pics[0], &pics[1], &e);
        return psh_range_report(c, &e);
    }
    for (int r = 0; r < c->geom.renditions; r++)
        memcpy(sums[r], &s->sums[r * 4], (size_t)c->geom.num_planes * sizeof(float));
    return 0;
}

/* Private and local memory of each kernel of one build on one device. */
static void describe_kernels(const cl_platform_id plat, const cl_device_id dev, const int exact,
                             char *const buf, const size_t size, size_t *const used) {
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    cl_int err;
    const char *const path = exact ? "exact-helpers" : "native";
    cl_context ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        psh_buf_put(buf, size, used, "    %s: no context (error %d)\n", path, (int)err);
        return;
    }
    cl_program prog;
    char *log;
    err = build_program(ctx, dev, exact, &prog, &log);
    if (err != CL_SUCCESS) {
        psh_buf_put(buf, size, used, "    %s: build failed (error %d)\n%s\n", path, (int)err,
                    log ? log : "");
        free(log);
        clReleaseContext(ctx);
        return;
    }
    for (int i = 0; i < NKERNELS + 1; i++) {
        cl_kernel k = clCreateKernel(prog, kernel_names[i], &err);
        if (err != CL_SUCCESS) continue;
        cl_ulong priv = 0, local = 0;
        size_t wg = 0;
        clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof(priv), &priv, NULL);
        clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(local), &local, NULL);
        clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL);
        psh_buf_put(buf, size, used,
                    "    %s %s: private_mem_size %llu bytes, local_mem_size %llu bytes, "
                    "max work-group %zu\n",
                    path, kernel_names[i], (unsigned long long)priv, (unsigned long long)local, wg);
        clReleaseKernel(k);
    }
    clReleaseProgram(prog);
    clReleaseContext(ctx);
}

static int cl_list_devices(const int verbose, char *const buf, const size_t size) {
    ClDeviceList l;
    size_t used = 0;
    if (size) buf[0] = 0;
    char why[256];
    if (psh_opencl_load(why, sizeof(why))) {
        psh_buf_put(buf, size, &used, "opencl: %s\n", why);
        return PSNRHVS_ERR(ENODEV);
    }
    list_all(&l);
    if (!l.n) {
        psh_buf_put(buf, size, &used, "opencl: no OpenCL platform or device found\n");
        return PSNRHVS_ERR(ENODEV);
    }
    for (int i = 0; i < l.n; i++) {
        char name[256] = "", plat[256] = "", version[256] = "";
        cl_device_fp_config fp64 = 0;
        clGetDeviceInfo(l.device[i], CL_DEVICE_NAME, sizeof(name) - 1, name, NULL);
        clGetPlatformInfo(l.platform[i], CL_PLATFORM_NAME, sizeof(plat) - 1, plat, NULL);
        clGetDeviceInfo(l.device[i], CL_DEVICE_VERSION, sizeof(version) - 1, version, NULL);
        clGetDeviceInfo(l.device[i], CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp64), &fp64, NULL);
        const cl_device_fp_config cfg = fp_config(l.device[i]);
        psh_buf_put(buf, size, &used,
                    "%d: %s | platform %s | %s | fp64 %s | correctly rounded divide/sqrt %s | "
                    "denormals %s\n",
                    i, name, plat, version, fp64 ? "yes" : "no",
                    cfg & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT ? "yes" : "no (integer helpers)",
                    cfg & CL_FP_DENORM ? "yes" : "no");
        if (!verbose) continue;
        if (cfg & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
            describe_kernels(l.platform[i], l.device[i], 0, buf, size, &used);
        describe_kernels(l.platform[i], l.device[i], 1, buf, size, &used);
    }
    return 0;
}

/* PCI address extensions of NVIDIA, AMD and Khronos (not in Debian's headers
 * of OpenCL 1.2 targets). */
#define CL_DEVICE_PCI_BUS_ID_NV    0x4008
#define CL_DEVICE_PCI_SLOT_ID_NV   0x4009
#define CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A
#define CL_DEVICE_TOPOLOGY_AMD     0x4037
#define CL_DEVICE_PCI_BUS_INFO_KHR 0x410F

static int has_extension(const cl_device_id dev, const char *const ext) {
    char list[8192] = "";
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof(list) - 1, list, NULL);
    const size_t n = strlen(ext);
    for (const char *p = list; (p = strstr(p, ext)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return 1;
    return 0;
}

static void pci_address(const cl_device_id dev, char *const out, const size_t size) {
    out[0] = '\0';
    if (has_extension(dev, "cl_khr_pci_bus_info")) {
        struct {
            cl_uint domain, bus, device, function;
        } info;
        if (!clGetDeviceInfo(dev, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof(info), &info, NULL))
            snprintf(out, size, "%04x:%02x:%02x", info.domain & 0xffff, info.bus & 0xff,
                     info.device & 0xff);
    } else if (has_extension(dev, "cl_nv_device_attribute_query")) {
        cl_uint bus = 0, slot = 0, domain = 0;
        if (!clGetDeviceInfo(dev, CL_DEVICE_PCI_BUS_ID_NV, sizeof(bus), &bus, NULL) &&
            !clGetDeviceInfo(dev, CL_DEVICE_PCI_SLOT_ID_NV, sizeof(slot), &slot, NULL)) {
            clGetDeviceInfo(dev, CL_DEVICE_PCI_DOMAIN_ID_NV, sizeof(domain), &domain, NULL);
            snprintf(out, size, "%04x:%02x:%02x", domain & 0xffff, bus & 0xff, (slot >> 3) & 0x1f);
        }
    } else if (has_extension(dev, "cl_amd_device_attribute_query")) {
        unsigned char topo[24] = {0}; /* cl_device_topology_amd: type, then bus, device */
        if (!clGetDeviceInfo(dev, CL_DEVICE_TOPOLOGY_AMD, sizeof(topo), topo, NULL))
            snprintf(out, size, "0000:%02x:%02x", topo[21], topo[22]);
    }
}

/* auto's view (backend.h): GPUs, their PCI addresses and vendors. */
static int cl_enumerate(PsnrHvsDeviceInfo *const info, const int max) {
    char why[256];
    if (psh_opencl_load(why, sizeof(why))) return 0;
    ClDeviceList l;
    list_all(&l);
    for (int i = 0; i < l.n && i < max; i++) {
        cl_device_type type = 0;
        clGetDeviceInfo(l.device[i], CL_DEVICE_TYPE, sizeof(type), &type, NULL);
        cl_uint vendor = 0;
        clGetDeviceInfo(l.device[i], CL_DEVICE_VENDOR_ID, sizeof(vendor), &vendor, NULL);
        memset(&info[i], 0, sizeof(info[i]));
        info[i].gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
        snprintf(info[i].vendor, sizeof(info[i].vendor), "%s",
                 vendor == 0x10de   ? "nvidia"
                 : vendor == 0x1002 ? "amd"
                 : vendor == 0x8086 ? "intel"
                                    : "");
        if (info[i].gpu) pci_address(l.device[i], info[i].pci, sizeof(info[i].pci));
        clGetDeviceInfo(l.device[i], CL_DEVICE_NAME, sizeof(info[i].name) - 1, info[i].name, NULL);
    }
    return l.n;
}

const PsnrHvsBackendOps psh_backend_opencl = {
    .name = "opencl",
    .id = PSNRHVS_BACKEND_OPENCL,
    .default_slots = DEFAULT_FRAMES,
    .open = cl_open,
    .submit = cl_submit,
    .collect = cl_collect,
    .close = cl_close,
    .list_devices = cl_list_devices,
    .enumerate = cl_enumerate,
    .copies_frames = 1,
};
