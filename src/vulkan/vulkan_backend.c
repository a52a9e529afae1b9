/*
 * The Vulkan backend: uploads both frames, runs the GLSL port of src/core/
 * (glsl/, compiled to SPIR-V at build time and embedded) on any Vulkan 1.2
 * device, including the whole plane's exact f32 sum, and reads back 12 bytes
 * a frame (three f32 plane sums) plus a flag word. Each slot's command buffer
 * is recorded once at open (upload, then the four kernels for every plane
 * and rendition), so a frame is a host copy and one vkQueueSubmit. The
 * devices are in vulkan_device.c, buffers and pipelines in vulkan_pipeline.c.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tables.h"
#include "internal.h"
#include "test_hooks.h"
#include "thread_pool.h"
#include "vulkan/vulkan_int.h"

#define CHUNK       64 /* blocks per chunk: PSH_VK_CHUNK in kernels.comp */
#define CHUNK_BYTES 48 /* sizeof(PshSumChunkMaps) */
#define MAP_BYTES   16 /* sizeof(PshSumMap) */
/* Threads copying pictures into staging memory when settings.threads is 0. */
#define DEFAULT_FRAMES 3
#define MAX_GROUPS_X   65535u

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void vk_close(PsnrHvsContext *const c) {
    VkbBackend *const b = c->backend;
    if (!b) return;
    if (b->profiled) {
        const double n = b->profiled;
        psh_log(c,
                "vulkan profile, ms per frame over %d frames (rendition 0): host copy %.3f, "
                "upload %.3f, terms %.3f, maps %.3f, windows %.3f, walk %.3f",
                b->profiled, b->copy_ms / n, b->prof_ms[0] / n, b->prof_ms[1] / n,
                b->prof_ms[2] / n, b->prof_ms[3] / n, b->prof_ms[4] / n);
    }
    if (b->sh) {
        const PsnrHvsVkDeviceFns *const v = b->vd;
        for (int i = 0; b->slots && i < b->nslots; i++) {
            VkbSlot *const s = &b->slots[i];
            /* Frames sent and never received: their kernels use the buffers. */
            if (s->pending) v->vkWaitForFences(b->dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
            if (s->fence) v->vkDestroyFence(b->dev, s->fence, NULL);
            if (s->queries) v->vkDestroyQueryPool(b->dev, s->queries, NULL);
            vkb_destroy_buffer(b, &s->staging);
            vkb_destroy_buffer(b, &s->input);
            for (int p = 0; p < 3; p++) {
                VkbScratch *const x = &s->scratch[p];
                VkbBuf *const bufs[] = {&x->terms, &x->chunk_sum, &x->chunks, &x->block_maps,
                                        &x->windows};
                for (size_t k = 0; k < sizeof(bufs) / sizeof(bufs[0]); k++)
                    vkb_destroy_buffer(b, bufs[k]);
            }
        }
        vkb_destroy_buffer(b, &b->tables);
        vkb_destroy_buffer(b, &b->sums_dev);
        vkb_destroy_buffer(b, &b->sums_host);
        if (b->cpool) v->vkDestroyCommandPool(b->dev, b->cpool, NULL);
        if (b->dpool) v->vkDestroyDescriptorPool(b->dev, b->dpool, NULL);
        vkb_release_shared(b->sh);
    }
    free(b->slots);
    free(b);
    c->backend = NULL;
}

/* Work-groups for n chunks as a 2-D grid (kernels.comp's psh_vk_group). */
static void dispatch(const VkbBackend *const b, const VkCommandBuffer cmd, const uint32_t n) {
    const uint32_t x = n < MAX_GROUPS_X ? n : MAX_GROUPS_X;
    b->vd->vkCmdDispatch(cmd, x, (n + x - 1) / x, 1);
}

static void barrier(const VkbBackend *const b, const VkCommandBuffer cmd,
                    const VkPipelineStageFlags src, const VkAccessFlags src_access,
                    const VkPipelineStageFlags dst, const VkAccessFlags dst_access) {
    const VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                .srcAccessMask = src_access,
                                .dstAccessMask = dst_access};
    b->vd->vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* A slot's frame: upload, then for each rendition the four kernels, each
 * over every plane (the planes' scratch buffers differ, so a stage's
 * dispatches may run together); the walks write the sums into host memory.
 * Slots have buffers of their own and go round the device's queues: nothing
 * orders one frame's kernels after another's but a queue they share. */
static int record_slot(const PsnrHvsContext *const c, VkbBackend *const b, const int si) {
    const PsnrHvsVkDeviceFns *const v = b->vd;
    const PsnrHvsFrameGeometry *const g = &c->geom;
    VkbSlot *const s = &b->slots[si];
    const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VkResult r = v->vkBeginCommandBuffer(s->cmd, &bi);
    if (r != VK_SUCCESS) return vkb_error(c, r, "recording a command buffer");
    const int nr = g->renditions;
    const VkDeviceSize sums_off = (VkDeviceSize)si * nr * 4 * sizeof(uint32_t);
    const VkDeviceSize sums_bytes = (VkDeviceSize)nr * 4 * sizeof(uint32_t);
    /* Profiling: timestamps at the start, after the upload and after each
     * stage of rendition 0. */
    if (s->queries) {
        v->vkCmdResetQueryPool(s->cmd, s->queries, 0, 2 + NKERNELS);
        v->vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, s->queries, 0);
    }
    if (!b->uma) {
        const VkBufferCopy cp = {.size = s->staging.size};
        v->vkCmdCopyBuffer(s->cmd, s->staging.buf, s->input.buf, 1, &cp);
    }
    /* The slot's sums and out-of-range flag start at zero. */
    v->vkCmdFillBuffer(s->cmd, b->sums_dev.buf, sums_off, sums_bytes, 0);
    /* The kernels after the upload and the fill: transfers only, so the
     * kernels of the frame before (other slots, maybe the same queue) need
     * not have finished. */
    const VkAccessFlags rw = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    barrier(b, s->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, rw);
    if (s->queries) v->vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, s->queries, 1);
    for (int ri = 0; ri < nr; ri++) {
        for (int k = 0; k < NKERNELS; k++) {
            v->vkCmdBindPipeline(s->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, b->sh->pipe[k]);
            for (int p = 0; p < g->num_planes; p++) {
                const PsnrHvsPlaneGeometry *const gp = &g->plane[p];
                const VkbParams prm = {.ref_off = (uint32_t)gp->ref_off,
                                       .dist_off =
                                           (uint32_t)(gp->dist_off + (size_t)ri * g->picture_bytes),
                                       .width = gp->w,
                                       .nbx = gp->bw,
                                       .nblocks = b->nblocks[p],
                                       .plane = p,
                                       .bitdepth = g->bitdepth,
                                       .mask_product = g->mask_product,
                                       .nchunks = b->nchunks[p],
                                       .out_index = (si * nr + ri) * 4 + p,
                                       .flag_index = si * nr * 4 + 3};
                v->vkCmdBindDescriptorSets(s->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, b->sh->layout, 0,
                                           1, &s->sets[p], 0, NULL);
                v->vkCmdPushConstants(s->cmd, b->sh->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                      sizeof(prm), &prm);
                const uint32_t nch = (uint32_t)b->nchunks[p];
                dispatch(b, s->cmd, k == 3 ? 1 : k == 2 ? (nch + CHUNK - 1) / CHUNK : nch);
            }
            if (s->queries && ri == 0)
                v->vkCmdWriteTimestamp(s->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, s->queries,
                                       (uint32_t)(2 + k));
            /* between stages; none after a frame's last walk, which would
             * hold the next frame's kernels on this queue */
            if (k < NKERNELS - 1 || ri < nr - 1)
                barrier(b, s->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, rw);
        }
    }
    /* The walks wrote the results into host memory. */
    barrier(b, s->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    if ((r = v->vkEndCommandBuffer(s->cmd)) != VK_SUCCESS)
        return vkb_error(c, r, "recording a command buffer");
    return 0;
}

static int vk_open(PsnrHvsContext *const c) {
    VkbBackend *const b = calloc(1, sizeof(*b));
    if (!b) return PSNRHVS_ERR(ENOMEM);
    c->backend = b;
    VkbDeviceInfo d;
    int ret = vkb_acquire_shared(c, &b->sh, &d);
    if (ret) goto error;
    b->vd = &b->sh->vd;
    b->dev = b->sh->dev;
    const PsnrHvsVkDeviceFns *const v = b->vd;
    VkResult r;

    /* Sizes: one storage binding must hold a frame, and one a plane's terms. */
    const PsnrHvsFrameGeometry *const g = &c->geom;
    size_t max_chunks = 0;
    for (int p = 0; p < g->num_planes; p++) {
        b->nblocks[p] = g->plane[p].bw * g->plane[p].bh;
        b->nchunks[p] = (b->nblocks[p] + CHUNK - 1) / CHUNK;
        if ((size_t)b->nchunks[p] > max_chunks) max_chunks = (size_t)b->nchunks[p];
    }
    const unsigned long long need[2] = {(unsigned long long)g->frame_bytes,
                                        (unsigned long long)max_chunks * CHUNK * 64 * 4};
    const char *const need_what[2] = {"a frame pair", "a plane's terms"};
    for (int i = 0; i < 2; i++) {
        const unsigned long long range = d.props.limits.maxStorageBufferRange;
        const unsigned long long alloc = d.m3.maxMemoryAllocationSize;
        if (need[i] + 16 > range || (alloc && need[i] + 16 > alloc)) {
            psh_log(c,
                    "vulkan: %s needs %llu bytes in one buffer, %s allows %llu "
                    "(maxStorageBufferRange) and %llu (maxMemoryAllocationSize)",
                    need_what[i], need[i], d.props.deviceName, range, alloc);
            ret = PSNRHVS_ERR(ENOMEM);
            goto error;
        }
    }

    /* Unified memory (integrated GPUs, CPU implementations): the kernels
     * read the staging buffer; elsewhere it is copied to device memory. */
    const VkMemoryPropertyFlags host =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    b->uma = d.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ||
             d.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    b->pool = c->copy_pool; /* the context's (lib.c) */
    if (!b->pool) {
        ret = PSNRHVS_ERR(ENOMEM);
        goto error;
    }
    b->nslots = c->slots;
    b->profile = c->profile && d.timestamps;
    b->timestamp_ms = d.props.limits.timestampPeriod * 1e-6;
    const VkDeviceSize sums_bytes = (VkDeviceSize)b->nslots * g->renditions * 4 * sizeof(uint32_t);
    if ((ret =
             vkb_create_buffer(c, b, &b->tables, 2 * sizeof(psh_csf),
                               VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, local, host, "tables buffer")) ||
        (ret = vkb_create_buffer(c, b, &b->sums_dev, sums_bytes,
                                 storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0, local,
                                 "sums buffer")) ||
        (ret = vkb_create_buffer(c, b, &b->sums_host, sums_bytes, storage,
                                 VK_MEMORY_PROPERTY_HOST_CACHED_BIT, host, "results buffer")))
        goto error;
    /* src/core/tables.h's bits, as the shaders' std140 vec4 arrays. */
    memcpy(b->tables.map, psh_csf, sizeof(psh_csf));
    memcpy((char *)b->tables.map + sizeof(psh_csf), psh_mask, sizeof(psh_mask));
    b->slots = calloc((size_t)b->nslots, sizeof(*b->slots));
    if (!b->slots) {
        ret = PSNRHVS_ERR(ENOMEM);
        goto error;
    }
    for (int i = 0; i < b->nslots; i++) {
        VkbSlot *const s = &b->slots[i];
        s->queue = i % b->sh->nqueues;
        for (int p = 0; p < g->num_planes; p++) {
            VkbScratch *const x = &s->scratch[p];
            const VkDeviceSize nch = (VkDeviceSize)b->nchunks[p];
            const VkDeviceSize nwin = (nch + CHUNK - 1) / CHUNK;
            if ((ret = vkb_create_buffer(c, b, &x->terms, nch * CHUNK * 64 * sizeof(float), storage,
                                         0, local, "terms buffer")) ||
                (ret = vkb_create_buffer(c, b, &x->chunk_sum, nch * sizeof(float), storage, 0,
                                         local, "chunk sums buffer")) ||
                (ret = vkb_create_buffer(c, b, &x->chunks, nch * CHUNK_BYTES, storage, 0, local,
                                         "chunk maps buffer")) ||
                (ret = vkb_create_buffer(c, b, &x->block_maps, nch * CHUNK * 2 * MAP_BYTES, storage,
                                         0, local, "block maps buffer")) ||
                (ret = vkb_create_buffer(c, b, &x->windows, nwin * CHUNK_BYTES, storage, 0, local,
                                         "window maps buffer")))
                goto error;
        }
        if ((ret = vkb_create_buffer(c, b, &s->staging, g->frame_bytes,
                                     storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, b->uma ? local : 0,
                                     host, "staging buffer")))
            goto error;
        if (!b->uma && (ret = vkb_create_buffer(c, b, &s->input, s->staging.size,
                                                storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0,
                                                local, "frame buffer")))
            goto error;
        const VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        if ((r = v->vkCreateFence(b->dev, &fi, NULL, &s->fence)) != VK_SUCCESS) {
            ret = vkb_error(c, r, "creating a fence");
            goto error;
        }
        const VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                           .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                           .queryCount = 2 + NKERNELS};
        if (b->profile && v->vkCreateQueryPool(b->dev, &qpi, NULL, &s->queries) != VK_SUCCESS)
            s->queries = VK_NULL_HANDLE;
    }

    /* Descriptor sets: one per slot and plane. */
    const uint32_t nsets = (uint32_t)(b->nslots * g->num_planes);
    const VkDescriptorPoolSize ps[2] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nsets * (NBINDINGS - 1)},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nsets}};
    const VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                            .maxSets = nsets,
                                            .poolSizeCount = 2,
                                            .pPoolSizes = ps};
    if ((r = v->vkCreateDescriptorPool(b->dev, &dpi, NULL, &b->dpool)) != VK_SUCCESS) {
        ret = vkb_error(c, r, "creating the descriptor pool");
        goto error;
    }
    for (int i = 0; i < b->nslots; i++) {
        VkbSlot *const s = &b->slots[i];
        for (int p = 0; p < g->num_planes; p++) {
            const VkDescriptorSetAllocateInfo ai = {
                .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                .descriptorPool = b->dpool,
                .descriptorSetCount = 1,
                .pSetLayouts = &b->sh->set_layout};
            if ((r = v->vkAllocateDescriptorSets(b->dev, &ai, &s->sets[p])) != VK_SUCCESS) {
                ret = vkb_error(c, r, "allocating descriptor sets");
                goto error;
            }
            const VkbScratch *const x = &s->scratch[p];
            const VkBuffer bufs[NBINDINGS] = {b->uma ? s->staging.buf : s->input.buf,
                                              x->terms.buf,
                                              x->chunk_sum.buf,
                                              x->chunks.buf,
                                              x->block_maps.buf,
                                              x->windows.buf,
                                              b->sums_dev.buf,
                                              b->tables.buf,
                                              b->sums_host.buf};
            vkb_write_set(b, s->sets[p], bufs);
        }
    }

    const VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .queueFamilyIndex = b->sh->family};
    if ((r = v->vkCreateCommandPool(b->dev, &cpi, NULL, &b->cpool)) != VK_SUCCESS) {
        ret = vkb_error(c, r, "creating the command pool");
        goto error;
    }
    for (int i = 0; i < b->nslots; i++) {
        const VkCommandBufferAllocateInfo ai = {.sType =
                                                    VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                                .commandPool = b->cpool,
                                                .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                                .commandBufferCount = 1};
        if ((r = v->vkAllocateCommandBuffers(b->dev, &ai, &b->slots[i].cmd)) != VK_SUCCESS) {
            ret = vkb_error(c, r, "allocating command buffers");
            goto error;
        }
        if ((ret = record_slot(c, b, i))) goto error;
    }
    return 0;

error:
    vk_close(c);
    return ret;
}

static int vk_submit(PsnrHvsContext *const c, const int si, const PsnrHvsPicture *const ref,
                     const PsnrHvsPicture *const dist) {
    VkbBackend *const b = c->backend;
    VkbSlot *const s = &b->slots[si];
    /* The slot's last frame was collected (its fence waited on): its
     * staging memory is free. Host-coherent memory: the writes are visible
     * to the device at the submission. */
    const double t0 = b->profile ? now_ms() : 0.0;
    psh_frame_pack_upload(&c->geom, ref, dist, (unsigned char *)s->staging.map, b->pool);
    if (b->profile) s->copy_ms = now_ms() - t0;
    const VkSubmitInfo si_ = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                              .commandBufferCount = 1,
                              .pCommandBuffers = &s->cmd};
    pthread_mutex_lock(&b->sh->queue_lock[s->queue]);
    const VkResult r = b->vd->vkQueueSubmit(b->sh->queue[s->queue], 1, &si_, s->fence);
    pthread_mutex_unlock(&b->sh->queue_lock[s->queue]);
    if (r != VK_SUCCESS) return vkb_error(c, r, "submitting a frame");
    s->pending = 1;
    return 0;
}

static int vk_collect(PsnrHvsContext *const c, const int si, float (*sums)[3]) {
    VkbBackend *const b = c->backend;
    VkbSlot *const s = &b->slots[si];
    VkResult r = b->vd->vkWaitForFences(b->dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
    s->pending = 0;
    const VkResult rr = b->vd->vkResetFences(b->dev, 1, &s->fence);
    if (r == VK_SUCCESS) r = rr;
    if (r != VK_SUCCESS) return vkb_error(c, r, "scoring a frame");
    const int nr = c->geom.renditions;
    const uint32_t *const words = (const uint32_t *)b->sums_host.map + (size_t)si * nr * 4;
    if (words[3]) {
        /* Where: the packed pair is still in the slot's staging buffer. */
        PsnrHvsRangeError e = {0};
        PsnrHvsPicture pics[1 + PSNRHVS_MAX_RENDITIONS];
        psh_frame_pictures(&c->geom, s->staging.map, pics);
        psh_range_check(&c->geom, &pics[0], &pics[1], &e);
        return psh_range_report(c, &e);
    }
    if (s->queries) {
        uint64_t ts[2 + NKERNELS];
        if (b->vd->vkGetQueryPoolResults(b->dev, s->queries, 0, 2 + NKERNELS, sizeof(ts), ts,
                                         sizeof(ts[0]), VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
            for (int i = 0; i <= NKERNELS; i++)
                b->prof_ms[i] += (double)(ts[i + 1] - ts[i]) * b->timestamp_ms;
            b->copy_ms += s->copy_ms;
            b->profiled++;
        }
    }
    for (int ri = 0; ri < nr; ri++)
        memcpy(sums[ri], &words[ri * 4], (size_t)c->geom.num_planes * sizeof(float));
    return 0;
}

/* ---- the test hook: the integer helpers on the device ------------------ */

int psh_test_vulkan_math(PsnrHvsContext *const c, const float *const ab, const size_t n,
                         float *const out) {
    if (!c || c->ops != &psh_backend_vulkan || !ab || !out || !n) return PSNRHVS_ERR(EINVAL);
    VkbBackend *const b = c->backend;
    VkbShared *const sh = b->sh;
    const PsnrHvsVkDeviceFns *const v = b->vd;
    int ret = vkb_need_pipeline(c, sh, MATH_KERNEL);
    if (ret) return ret;
    const VkMemoryPropertyFlags host =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkbBuf in = {0}, res = {0};
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkResult r = VK_SUCCESS;
    if ((ret = vkb_create_buffer(c, b, &in, n * 2 * sizeof(float),
                                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0, host, "math operands")) ||
        (ret = vkb_create_buffer(c, b, &res, n * 3 * sizeof(float),
                                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                 VK_MEMORY_PROPERTY_HOST_CACHED_BIT, host, "math results")))
        goto done;
    memcpy(in.map, ab, n * 2 * sizeof(float));
    const VkDescriptorPoolSize ps[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NBINDINGS - 1},
                                        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1}};
    const VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                            .maxSets = 1,
                                            .poolSizeCount = 2,
                                            .pPoolSizes = ps};
    VkDescriptorSet set;
    const VkDescriptorSetAllocateInfo sai = {.sType =
                                                 VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                             .descriptorSetCount = 1,
                                             .pSetLayouts = &sh->set_layout};
    if ((r = v->vkCreateDescriptorPool(b->dev, &dpi, NULL, &pool)) != VK_SUCCESS) goto fail;
    VkDescriptorSetAllocateInfo ai = sai;
    ai.descriptorPool = pool;
    if ((r = v->vkAllocateDescriptorSets(b->dev, &ai, &set)) != VK_SUCCESS) goto fail;
    /* Operands at binding 0, results at 1; the others as the kernels have them. */
    const VkbScratch *const x = &b->slots[0].scratch[0];
    const VkBuffer bufs[NBINDINGS] = {in.buf,          res.buf,           x->chunk_sum.buf,
                                      x->chunks.buf,   x->block_maps.buf, x->windows.buf,
                                      b->sums_dev.buf, b->tables.buf,     b->sums_host.buf};
    vkb_write_set(b, set, bufs);
    const VkCommandBufferAllocateInfo cai = {.sType =
                                                 VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                             .commandPool = b->cpool,
                                             .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                             .commandBufferCount = 1};
    if ((r = v->vkAllocateCommandBuffers(b->dev, &cai, &cmd)) != VK_SUCCESS) goto fail;
    const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                         .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    if ((r = v->vkBeginCommandBuffer(cmd, &bi)) != VK_SUCCESS) goto fail;
    v->vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, sh->pipe[MATH_KERNEL]);
    v->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, sh->layout, 0, 1, &set, 0,
                               NULL);
    const VkbParams prm = {.nblocks = (int32_t)n};
    v->vkCmdPushConstants(cmd, sh->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(prm), &prm);
    dispatch(b, cmd, (uint32_t)((n + CHUNK - 1) / CHUNK));
    barrier(b, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    if ((r = v->vkEndCommandBuffer(cmd)) != VK_SUCCESS) goto fail;
    const VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if ((r = v->vkCreateFence(b->dev, &fi, NULL, &fence)) != VK_SUCCESS) goto fail;
    const VkSubmitInfo si = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    pthread_mutex_lock(&sh->queue_lock[0]);
    r = v->vkQueueSubmit(sh->queue[0], 1, &si, fence);
    pthread_mutex_unlock(&sh->queue_lock[0]);
    if (r != VK_SUCCESS ||
        (r = v->vkWaitForFences(b->dev, 1, &fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS)
        goto fail;
    memcpy(out, res.map, n * 3 * sizeof(float));
    goto done;
fail:
    ret = vkb_error(c, r, "running the math kernel");
done:
    if (fence) v->vkDestroyFence(b->dev, fence, NULL);
    if (cmd) v->vkFreeCommandBuffers(b->dev, b->cpool, 1, &cmd);
    if (pool) v->vkDestroyDescriptorPool(b->dev, pool, NULL);
    vkb_destroy_buffer(b, &in);
    vkb_destroy_buffer(b, &res);
    return ret;
}

const PsnrHvsBackendOps psh_backend_vulkan = {
    .name = "vulkan",
    .id = PSNRHVS_BACKEND_VULKAN,
    .default_slots = DEFAULT_FRAMES,
    .open = vk_open,
    .submit = vk_submit,
    .collect = vk_collect,
    .close = vk_close,
    .list_devices = vkb_list_devices,
    .enumerate = vkb_enumerate,
    .copies_frames = 1,
};
