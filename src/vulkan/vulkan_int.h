/*
 * What the Vulkan backend's files share: the device and context state, and
 * the functions one file gives another. Private to src/vulkan/.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_VULKAN_VULKAN_INT_H
#define PSNRHVS_SRC_VULKAN_VULKAN_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "thread_pool.h"
#include "vulkan/vulkan_loader.h"

#define NKERNELS    4 /* the stages; kernel 4 (math) is compiled for its test only */
#define MATH_KERNEL 4
/* Bindings 0..6: storage buffers (input, terms, chunk sums, chunk maps,
 * block maps, window maps, device sums and flags); 7: the tables' uniform
 * buffer; 8: the host-visible results. */
#define NBINDINGS 9
/* Queues a device is opened with, at most: slots go round them, so that the
 * frames in flight run side by side (a pipeline barrier orders everything
 * on its queue). */
#define MAX_QUEUES 4

/* The push constants of kernels.comp (PshParams), all 4-byte words. */
typedef struct VkbParams {
    uint32_t ref_off, dist_off;
    int32_t width, nbx, nblocks, plane, bitdepth, mask_product, nchunks, out_index, flag_index;
} VkbParams;

typedef struct VkbBuf {
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceSize size;
    void *map; /* host-visible buffers: mapped for their lifetime */
} VkbBuf;

typedef struct VkbScratch {
    VkbBuf terms, chunk_sum, chunks, block_maps, windows;
} VkbScratch;

typedef struct VkbSlot {
    VkbBuf staging;          /* host copy made in submit */
    VkbBuf input;            /* device copy (unused on a unified-memory device) */
    VkbScratch scratch[3];   /* per plane: the kernels' arrays */
    int queue;               /* index into the shared device's queues */
    VkCommandBuffer cmd;     /* recorded at open */
    VkFence fence;           /* signalled when the frame's sums are in sums_host */
    int pending;             /* submitted, not yet collected */
    VkQueryPool queries;     /* profiling: timestamps between the stages */
    double copy_ms;          /* profiling: the host copy in submit */
    VkDescriptorSet sets[3]; /* per plane: this slot's input and scratch */
} VkbSlot;

/* A device with its kernels, shared by every context of the process on it
 * (VkbShared below): compiling the kernels is the slow part of an open on
 * some drivers (LLVM for lavapipe: seconds), so it happens once. */
typedef struct VkbShared {
    struct VkbShared *next;
    int index; /* settings.device */
    int users; /* contexts open on it */
    VkPhysicalDevice phys;
    VkDevice dev;
    PsnrHvsVkDeviceFns vd;
    VkQueue queue[MAX_QUEUES];
    int nqueues;
    uint32_t family;
    pthread_mutex_t queue_lock[MAX_QUEUES]; /* vkQueueSubmit needs the queue to itself */
    VkPhysicalDeviceMemoryProperties mem;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipe[NKERNELS + 1];
} VkbShared;

typedef struct VkbBackend {
    VkbShared *sh;
    /* sh's, for brevity */
    const PsnrHvsVkDeviceFns *vd;
    VkDevice dev;
    VkDescriptorPool dpool;
    VkCommandPool cpool;
    VkbBuf tables, sums_dev, sums_host;
    int uma; /* the kernels read the staging buffer itself */
    /* the profiling test hook: per-stage device times, logged at close */
    int profile, profiled;
    double timestamp_ms; /* one timestamp tick */
    double prof_ms[1 + NKERNELS], copy_ms;
    int nblocks[3], nchunks[3];
    VkbSlot *slots;
    int nslots;
    PsnrHvsThreadPool *pool;
} VkbBackend;

/* What the backend asks of a device, as the driver reports it. */
typedef struct VkbDeviceInfo {
    uint32_t compute_queues; /* queues of compute_family */
    int timestamps;          /* compute_family writes timestamps */
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceFloatControlsProperties fc;
    VkPhysicalDeviceDriverProperties driver;
    VkPhysicalDeviceMaintenance3Properties m3;
    VkPhysicalDeviceFeatures feat;
    int v12;            /* Vulkan 1.2 or later: fc and driver are filled */
    int compute_family; /* a queue family with compute, or -1 */
} VkbDeviceInfo;

/* vulkan_pipeline.c: errors, buffers, descriptor sets and the kernels. */
int vkb_error(const PsnrHvsContext *c, VkResult r, const char *what);
int vkb_create_buffer(const PsnrHvsContext *c, VkbBackend *b, VkbBuf *out, VkDeviceSize size,
                      VkBufferUsageFlags usage, VkMemoryPropertyFlags want,
                      VkMemoryPropertyFlags need, const char *what);
void vkb_destroy_buffer(const VkbBackend *b, VkbBuf *x);
void vkb_write_set(const VkbBackend *b, VkDescriptorSet set, const VkBuffer bufs[NBINDINGS]);
int vkb_create_pipeline(const PsnrHvsContext *c, VkbShared *sh, int i);
int vkb_create_pipelines(const PsnrHvsContext *c, VkbShared *sh);

/* vulkan_device.c: the process's instance and shared devices. */
int vkb_acquire_shared(const PsnrHvsContext *c, VkbShared **out, VkbDeviceInfo *d);
void vkb_release_shared(VkbShared *sh);
int vkb_need_pipeline(const PsnrHvsContext *c, VkbShared *sh, int i);
int vkb_enumerate(PsnrHvsDeviceInfo *info, int max);
int vkb_list_devices(int verbose, char *buf, size_t size);

#endif /* PSNRHVS_SRC_VULKAN_VULKAN_INT_H */
