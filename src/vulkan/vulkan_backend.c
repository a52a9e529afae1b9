/*
 * The Vulkan backend: uploads both frames, runs the GLSL port of src/core/
 * (glsl/, compiled to SPIR-V at build time and embedded) on any Vulkan 1.2
 * device, including the whole plane's exact f32 sum, and reads back 12 bytes
 * a frame (three f32 plane sums) plus a flag word. Each slot's command buffer
 * is recorded once at open (upload, then the four kernels for every plane
 * and rendition), so a frame is a host copy and one vkQueueSubmit.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tables.h"
#include "internal.h"
#include "test_hooks.h"
#include "thread_pool.h"
#include "vulkan/vulkan_loader.h"

/* SPIR-V of glsl/kernels.comp, one module per kernel (cmake/EmbedBinary.cmake). */
extern const unsigned char psnrhvs_vulkan_spirv_terms[], psnrhvs_vulkan_spirv_maps[],
    psnrhvs_vulkan_spirv_windows[], psnrhvs_vulkan_spirv_walk[], psnrhvs_vulkan_spirv_math[];
extern const unsigned long psnrhvs_vulkan_spirv_terms_size, psnrhvs_vulkan_spirv_maps_size,
    psnrhvs_vulkan_spirv_windows_size, psnrhvs_vulkan_spirv_walk_size,
    psnrhvs_vulkan_spirv_math_size;

#define CHUNK       64 /* blocks per chunk: PSH_VK_CHUNK in kernels.comp */
#define CHUNK_BYTES 48 /* sizeof(PshSumChunkMaps) */
#define MAP_BYTES   16 /* sizeof(PshSumMap) */
/* Threads copying pictures into staging memory when settings.threads is 0. */
#define PACK_THREADS   8
#define DEFAULT_FRAMES 3
#define MAX_DEVICES    64
#define NKERNELS       4 /* the stages; kernel 4 (math) is compiled for its test only */
#define MATH_KERNEL    4
/* Bindings 0..6: storage buffers (input, terms, chunk sums, chunk maps,
 * block maps, window maps, device sums and flags); 7: the tables' uniform
 * buffer; 8: the host-visible results. */
#define NBINDINGS      9
#define TABLES_BINDING 7
#define MAX_GROUPS_X   65535u
/* Queues a device is opened with, at most: slots go round them, so that the
 * frames in flight run side by side (a pipeline barrier orders everything
 * on its queue). */
#define MAX_QUEUES 4

static const char *const kernel_names[NKERNELS + 1] = {"terms", "maps", "windows", "walk", "math"};

/* The push constants of kernels.comp (PshParams), all 4-byte words. */
typedef struct VkParams {
    uint32_t ref_off, dist_off;
    int32_t width, nbx, nblocks, plane, bitdepth, mask_product, nchunks, out_index, flag_index;
} VkParams;

typedef struct VkBuf {
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceSize size;
    void *map; /* host-visible buffers: mapped for their lifetime */
} VkBuf;

typedef struct VkScratch {
    VkBuf terms, chunk_sum, chunks, block_maps, windows;
} VkScratch;

typedef struct VkSlot {
    VkBuf staging;           /* host copy made in submit */
    VkBuf input;             /* device copy (unused on a unified-memory device) */
    VkScratch scratch[3];    /* per plane: the kernels' arrays */
    int queue;               /* index into the shared device's queues */
    VkCommandBuffer cmd;     /* recorded at open */
    VkFence fence;           /* signalled when the frame's sums are in sums_host */
    int pending;             /* submitted, not yet collected */
    VkQueryPool queries;     /* profiling: timestamps between the stages */
    double copy_ms;          /* profiling: the host copy in submit */
    VkDescriptorSet sets[3]; /* per plane: this slot's input and scratch */
} VkSlot;

/* A device with its kernels, shared by every context of the process on it
 * (VkShared below): compiling the kernels is the slow part of an open on
 * some drivers (LLVM for lavapipe: seconds), so it happens once. */
typedef struct VkShared {
    struct VkShared *next;
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
} VkShared;

typedef struct VkBackend {
    VkShared *sh;
    /* sh's, for brevity */
    const PsnrHvsVkDeviceFns *vd;
    VkDevice dev;
    VkDescriptorPool dpool;
    VkCommandPool cpool;
    VkBuf tables, sums_dev, sums_host;
    int uma; /* the kernels read the staging buffer itself */
    /* the profiling test hook: per-stage device times, logged at close */
    int profile, profiled;
    double timestamp_ms; /* one timestamp tick */
    double prof_ms[1 + NKERNELS], copy_ms;
    int nblocks[3], nchunks[3];
    VkSlot *slots;
    int nslots;
    PsnrHvsThreadPool *pool;
} VkBackend;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* ---- devices ------------------------------------------------------------ */

typedef struct VkDeviceList {
    int n;
    VkPhysicalDevice dev[MAX_DEVICES];
} VkDeviceList;

/* What the backend asks of a device, as the driver reports it. */
typedef struct VkDeviceInfo {
    uint32_t compute_queues; /* queues of compute_family */
    int timestamps;          /* compute_family writes timestamps */
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceFloatControlsProperties fc;
    VkPhysicalDeviceDriverProperties driver;
    VkPhysicalDeviceMaintenance3Properties m3;
    VkPhysicalDeviceFeatures feat;
    int v12;            /* Vulkan 1.2 or later: fc and driver are filled */
    int compute_family; /* a queue family with compute, or -1 */
} VkDeviceInfo;

/* GPUs first (discrete, integrated, virtual, other), CPU implementations
 * (lavapipe, SwiftShader) last: settings.device indexes this order. */
static int type_rank(const VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return 4;
    default:
        return 3;
    }
}

static const char *type_name(const VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return "CPU";
    default:
        return "other";
    }
}

static void device_info(const PsnrHvsVkInstanceFns *const f, const VkPhysicalDevice pd,
                        VkDeviceInfo *const d) {
    memset(d, 0, sizeof(*d));
    f->vkGetPhysicalDeviceProperties(pd, &d->props);
    f->vkGetPhysicalDeviceFeatures(pd, &d->feat);
    const uint32_t v = d->props.apiVersion;
    d->v12 = VK_API_VERSION_MAJOR(v) > 1 || VK_API_VERSION_MINOR(v) >= 2;
    d->m3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &d->m3};
    if (d->v12) {
        /* Core in 1.2 (VK_KHR_shader_float_controls, VK_KHR_driver_properties). */
        d->fc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
        d->driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
        d->m3.pNext = &d->fc;
        d->fc.pNext = &d->driver;
    }
    f->vkGetPhysicalDeviceProperties2(pd, &p2);
    d->props = p2.properties;
    uint32_t nq = 0;
    f->vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
    VkQueueFamilyProperties q[32];
    if (nq > 32) nq = 32;
    f->vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, q);
    d->compute_family = -1;
    for (uint32_t i = 0; i < nq && d->compute_family < 0; i++)
        if ((q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && q[i].queueCount) {
            d->compute_family = (int)i;
            d->compute_queues = q[i].queueCount;
            d->timestamps = q[i].timestampValidBits >= 32;
        }
}

/* The first property the backend needs that the device lacks (or that the
 * test hook pretends it lacks), with why it is needed; NULL if none. */
static const char *missing_property(const VkDeviceInfo *const d, const char **const why) {
    const char *const hook = psnrhvs_test_vulkan_missing();
#define PSNRHVS_VK_NEED(ok, name, reason)                                                          \
    if (!(ok) || (hook && !strcmp(hook, name))) {                                                  \
        *why = reason;                                                                             \
        return name;                                                                               \
    }
    PSNRHVS_VK_NEED(d->v12, "Vulkan 1.2",
                    "the kernels are SPIR-V 1.5 with float-control execution modes")
    PSNRHVS_VK_NEED(d->compute_family >= 0, "a compute queue", "the kernels are compute shaders")
    PSNRHVS_VK_NEED(d->feat.shaderInt64, "shaderInt64",
                    "the exact sum's maps and the integer division and root use 64-bit integers")
    PSNRHVS_VK_NEED(d->fc.shaderRoundingModeRTEFloat32, "shaderRoundingModeRTEFloat32",
                    "without it f32 arithmetic and conversions may round toward zero")
    PSNRHVS_VK_NEED(d->fc.shaderSignedZeroInfNanPreserveFloat32,
                    "shaderSignedZeroInfNanPreserveFloat32",
                    "without it the compiler may ignore signed zeros, infinities and NaNs in f32 "
                    "arithmetic")
#undef PSNRHVS_VK_NEED
    return NULL;
}

static int create_instance(PsnrHvsVkInstanceFns *const f, VkInstance *const inst, char *const why,
                           const size_t size) {
    *inst = VK_NULL_HANDLE;
    if (psnrhvs_vulkan_instance_fns(f, VK_NULL_HANDLE, why, size)) return PSNRHVS_ERR(ENODEV);
    uint32_t version = VK_API_VERSION_1_0;
    if (f->vkEnumerateInstanceVersion) f->vkEnumerateInstanceVersion(&version);
    if (VK_API_VERSION_MAJOR(version) == 1 && VK_API_VERSION_MINOR(version) < 2) {
        snprintf(why, size, "the Vulkan loader is version %u.%u: Vulkan 1.2 is needed",
                 VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));
        return PSNRHVS_ERR(ENODEV);
    }
    const VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                   .pApplicationName = "psnrhvs",
                                   .pEngineName = "psnrhvs",
                                   .apiVersion = VK_API_VERSION_1_2};
    const VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                     .pApplicationInfo = &app};
    const VkResult r = f->vkCreateInstance(&ci, NULL, inst);
    if (r != VK_SUCCESS) {
        *inst = VK_NULL_HANDLE;
        /* VK_ERROR_INCOMPATIBLE_DRIVER: the loader found no driver at all */
        if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
            snprintf(why, size,
                     "no Vulkan driver (ICD) found (vkCreateInstance: "
                     "VK_ERROR_INCOMPATIBLE_DRIVER)");
        else
            snprintf(why, size, "vkCreateInstance failed (VkResult %d)", (int)r);
        return PSNRHVS_ERR(r == VK_ERROR_OUT_OF_HOST_MEMORY ? ENOMEM : ENODEV);
    }
    if (psnrhvs_vulkan_instance_fns(f, *inst, why, size)) {
        const PFN_vkGetInstanceProcAddr gipa = psnrhvs_vulkan_load(NULL, 0);
        const PFN_vkDestroyInstance destroy =
            (PFN_vkDestroyInstance)gipa(*inst, "vkDestroyInstance");
        if (destroy) destroy(*inst, NULL);
        *inst = VK_NULL_HANDLE;
        return PSNRHVS_ERR(ENODEV);
    }
    return 0;
}

/* Every physical device, GPUs first (stable within a kind). */
static void list_sorted(const PsnrHvsVkInstanceFns *const f, const VkInstance inst,
                        VkDeviceList *const l) {
    uint32_t n = MAX_DEVICES;
    VkPhysicalDevice all[MAX_DEVICES];
    l->n = 0;
    const VkResult r = f->vkEnumeratePhysicalDevices(inst, &n, all);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return;
    for (int rank = 0; rank <= 4; rank++)
        for (uint32_t i = 0; i < n; i++) {
            VkPhysicalDeviceProperties p;
            f->vkGetPhysicalDeviceProperties(all[i], &p);
            if (type_rank(p.deviceType) == rank) l->dev[l->n++] = all[i];
        }
}

/* ---- buffers ------------------------------------------------------------ */

static int vk_error(const PsnrHvsContext *const c, const VkResult r, const char *const what) {
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        psnrhvs_log(c, "vulkan: %s: out of %s memory (VkResult %d)", what,
                    r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? "device" : "host", (int)r);
        return PSNRHVS_ERR(ENOMEM);
    }
    psnrhvs_log(c, "vulkan: %s failed (VkResult %d)", what, (int)r);
    return PSNRHVS_ERR(EIO);
}

/* A memory type of `bits` with all of `need`, preferring one with `want` too. */
static int memory_type(const VkBackend *const b, const uint32_t bits,
                       const VkMemoryPropertyFlags want, const VkMemoryPropertyFlags need) {
    const VkPhysicalDeviceMemoryProperties *const mem = &b->sh->mem;
    /* Host memory not wanted on the device (staging, results) avoids a
     * discrete GPU's host-visible device memory (its PCIe window) first. */
    const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    const int avoid_local = (need & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && !(want & local);
    for (int pass = avoid_local ? 0 : 1; pass < 3; pass++) {
        const VkMemoryPropertyFlags f = pass == 2 ? need : need | want;
        for (uint32_t i = 0; i < mem->memoryTypeCount; i++) {
            const VkMemoryPropertyFlags has = mem->memoryTypes[i].propertyFlags;
            if ((bits & (1u << i)) && (has & f) == f && !(pass == 0 && (has & local)))
                return (int)i;
        }
    }
    return -1;
}

static int create_buffer(const PsnrHvsContext *const c, VkBackend *const b, VkBuf *const out,
                         VkDeviceSize size, const VkBufferUsageFlags usage,
                         const VkMemoryPropertyFlags want, const VkMemoryPropertyFlags need,
                         const char *const what) {
    const PsnrHvsVkDeviceFns *const v = b->vd;
    size = (size + 15) & ~(VkDeviceSize)15; /* whole words, and never empty */
    if (!size) size = 16;
    out->size = size;
    const VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                   .size = size,
                                   .usage = usage,
                                   .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = v->vkCreateBuffer(b->dev, &bi, NULL, &out->buf);
    if (r != VK_SUCCESS) return vk_error(c, r, what);
    VkMemoryRequirements req;
    v->vkGetBufferMemoryRequirements(b->dev, out->buf, &req);
    const int type = memory_type(b, req.memoryTypeBits, want, need);
    if (type < 0) {
        psnrhvs_log(c, "vulkan: %s: no memory type with properties 0x%x", what, (unsigned)need);
        return PSNRHVS_ERR(ENOMEM);
    }
    const VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                     .allocationSize = req.size,
                                     .memoryTypeIndex = (uint32_t)type};
    if ((r = v->vkAllocateMemory(b->dev, &ai, NULL, &out->mem)) != VK_SUCCESS ||
        (r = v->vkBindBufferMemory(b->dev, out->buf, out->mem, 0)) != VK_SUCCESS)
        return vk_error(c, r, what);
    if (need & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        if ((r = v->vkMapMemory(b->dev, out->mem, 0, VK_WHOLE_SIZE, 0, &out->map)) != VK_SUCCESS)
            return vk_error(c, r, what);
    }
    return 0;
}

static void destroy_buffer(const VkBackend *const b, VkBuf *const x) {
    if (x->map) b->vd->vkUnmapMemory(b->dev, x->mem);
    if (x->buf) b->vd->vkDestroyBuffer(b->dev, x->buf, NULL);
    if (x->mem) b->vd->vkFreeMemory(b->dev, x->mem, NULL);
    memset(x, 0, sizeof(*x));
}

/* ---- open / close ------------------------------------------------------- */

/* ---- the devices of the process ---------------------------------------- */

/* One instance for the process, and one VkShared per device index opened:
 * created by the first context on it, kept while the process runs (the next
 * context reuses the compiled kernels), destroyed at exit if no context is
 * open on it then. Guarded by `registry`. list-devices uses the same
 * instance. */
static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static PsnrHvsVkInstanceFns shared_vi;
static VkInstance shared_inst;
static VkDeviceList shared_list;
static VkShared *shared_devices;
static int teardown_registered;

static void destroy_shared(VkShared *const sh) {
    const PsnrHvsVkDeviceFns *const v = &sh->vd;
    if (sh->dev) {
        for (int i = 0; i <= NKERNELS; i++)
            if (sh->pipe[i]) v->vkDestroyPipeline(sh->dev, sh->pipe[i], NULL);
        if (sh->layout) v->vkDestroyPipelineLayout(sh->dev, sh->layout, NULL);
        if (sh->set_layout) v->vkDestroyDescriptorSetLayout(sh->dev, sh->set_layout, NULL);
        v->vkDestroyDevice(sh->dev, NULL);
    }
    for (int i = 0; i < MAX_QUEUES; i++) pthread_mutex_destroy(&sh->queue_lock[i]);
    free(sh);
}

/* At exit: the devices no context holds, then the instance if none is left. */
static void teardown(void) {
    pthread_mutex_lock(&registry);
    for (VkShared **p = &shared_devices; *p;) {
        VkShared *const sh = *p;
        if (sh->users) {
            p = &sh->next;
            continue;
        }
        *p = sh->next;
        destroy_shared(sh);
    }
    pthread_mutex_unlock(&registry);
}

/* The process's instance and its devices, made on first use (called with
 * `registry` held). It is never destroyed: the loader would unload the
 * drivers with it, and memory a driver leaves to the process (lavapipe
 * does) would then be reported by a leak checker from a library it cannot
 * name. A failure is not kept: the next call tries again. */
static int shared_instance(char *const why, const size_t size) {
    if (shared_inst) return 0;
    const int ret = create_instance(&shared_vi, &shared_inst, why, size);
    if (ret) return ret;
    list_sorted(&shared_vi, shared_inst, &shared_list);
    if (!teardown_registered) teardown_registered = !atexit(teardown);
    return 0;
}

static void release_shared(VkShared *const sh) {
    pthread_mutex_lock(&registry);
    sh->users--;
    pthread_mutex_unlock(&registry);
}

static VkDescriptorType binding_type(const int i) {
    return i == TABLES_BINDING ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                               : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

/* Points binding k of set at bufs[k], for every binding. */
static void write_set(const VkBackend *const b, const VkDescriptorSet set,
                      const VkBuffer bufs[NBINDINGS]) {
    VkDescriptorBufferInfo info[NBINDINGS];
    VkWriteDescriptorSet w[NBINDINGS];
    for (int k = 0; k < NBINDINGS; k++) {
        info[k] = (VkDescriptorBufferInfo){bufs[k], 0, VK_WHOLE_SIZE};
        w[k] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = set,
                                      .dstBinding = (uint32_t)k,
                                      .descriptorCount = 1,
                                      .descriptorType = binding_type(k),
                                      .pBufferInfo = &info[k]};
    }
    b->vd->vkUpdateDescriptorSets(b->dev, NBINDINGS, w, 0, NULL);
}

/* Kernel i's pipeline, from its embedded SPIR-V. */
static int create_pipeline(const PsnrHvsContext *const c, VkShared *const sh, const int i) {
    const PsnrHvsVkDeviceFns *const v = &sh->vd;
    const unsigned char *const code[NKERNELS + 1] = {
        psnrhvs_vulkan_spirv_terms, psnrhvs_vulkan_spirv_maps, psnrhvs_vulkan_spirv_windows,
        psnrhvs_vulkan_spirv_walk, psnrhvs_vulkan_spirv_math};
    const unsigned long sizes[NKERNELS + 1] = {
        psnrhvs_vulkan_spirv_terms_size, psnrhvs_vulkan_spirv_maps_size,
        psnrhvs_vulkan_spirv_windows_size, psnrhvs_vulkan_spirv_walk_size,
        psnrhvs_vulkan_spirv_math_size};
    VkShaderModule mod;
    /* The embedded bytes as words (pCode must be 4-byte aligned). */
    uint32_t *const words = malloc(sizes[i] + 4);
    if (!words) return PSNRHVS_ERR(ENOMEM);
    memcpy(words, code[i], sizes[i]);
    const VkShaderModuleCreateInfo mi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = sizes[i], .pCode = words};
    VkResult r = v->vkCreateShaderModule(sh->dev, &mi, NULL, &mod);
    free(words);
    if (r != VK_SUCCESS) return vk_error(c, r, "loading the SPIR-V");
    const VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = mod,
                  .pName = "main"},
        .layout = sh->layout};
    r = v->vkCreateComputePipelines(sh->dev, VK_NULL_HANDLE, 1, &ci, NULL, &sh->pipe[i]);
    v->vkDestroyShaderModule(sh->dev, mod, NULL);
    if (r != VK_SUCCESS) {
        sh->pipe[i] = VK_NULL_HANDLE;
        psnrhvs_log(c, "vulkan: compiling the %s kernel failed (VkResult %d)", kernel_names[i],
                    (int)r);
        return PSNRHVS_ERR(r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? ENOMEM : EIO);
    }
    return 0;
}

static int create_pipelines(const PsnrHvsContext *const c, VkShared *const sh) {
    const PsnrHvsVkDeviceFns *const v = &sh->vd;
    VkResult r;
    VkDescriptorSetLayoutBinding bind[NBINDINGS];
    for (int i = 0; i < NBINDINGS; i++)
        bind[i] = (VkDescriptorSetLayoutBinding){.binding = (uint32_t)i,
                                                 .descriptorType = binding_type(i),
                                                 .descriptorCount = 1,
                                                 .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    const VkDescriptorSetLayoutCreateInfo dl = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = NBINDINGS,
        .pBindings = bind};
    if ((r = v->vkCreateDescriptorSetLayout(sh->dev, &dl, NULL, &sh->set_layout)) != VK_SUCCESS)
        return vk_error(c, r, "creating the descriptor set layout");
    const VkPushConstantRange pcr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
                                     .size = sizeof(VkParams)};
    const VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                            .setLayoutCount = 1,
                                            .pSetLayouts = &sh->set_layout,
                                            .pushConstantRangeCount = 1,
                                            .pPushConstantRanges = &pcr};
    if ((r = v->vkCreatePipelineLayout(sh->dev, &pli, NULL, &sh->layout)) != VK_SUCCESS)
        return vk_error(c, r, "creating the pipeline layout");
    for (int i = 0; i < NKERNELS; i++) {
        const int ret = create_pipeline(c, sh, i);
        if (ret) return ret;
    }
    return 0;
}

/* The device, its queue and its kernels, for a device that has what the
 * backend needs (d). Called with `registry` held. */
static int create_shared(const PsnrHvsContext *const c, const VkDeviceInfo *const d,
                         VkShared **const out) {
    char why[256];
    VkShared *const sh = calloc(1, sizeof(*sh));
    if (!sh) return PSNRHVS_ERR(ENOMEM);
    for (int i = 0; i < MAX_QUEUES; i++) pthread_mutex_init(&sh->queue_lock[i], NULL);
    sh->index = c->s.device;
    sh->phys = shared_list.dev[c->s.device];
    sh->family = (uint32_t)d->compute_family;
    sh->nqueues = d->compute_queues < MAX_QUEUES ? (int)d->compute_queues : MAX_QUEUES;
    const float priority[MAX_QUEUES] = {1.0f, 1.0f, 1.0f, 1.0f};
    const VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                        .queueFamilyIndex = sh->family,
                                        .queueCount = (uint32_t)sh->nqueues,
                                        .pQueuePriorities = priority};
    const VkPhysicalDeviceFeatures feat = {.shaderInt64 = VK_TRUE};
    const VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                    .queueCreateInfoCount = 1,
                                    .pQueueCreateInfos = &qi,
                                    .pEnabledFeatures = &feat};
    int ret;
    const VkResult r = shared_vi.vkCreateDevice(sh->phys, &dci, NULL, &sh->dev);
    if (r != VK_SUCCESS) {
        sh->dev = VK_NULL_HANDLE;
        ret = vk_error(c, r, "creating the device");
        goto error;
    }
    if (psnrhvs_vulkan_device_fns(&shared_vi, sh->dev, &sh->vd, why, sizeof(why))) {
        psnrhvs_log(c, "vulkan: %s", why);
        const PFN_vkDestroyDevice destroy =
            (PFN_vkDestroyDevice)shared_vi.vkGetDeviceProcAddr(sh->dev, "vkDestroyDevice");
        if (destroy) destroy(sh->dev, NULL);
        sh->dev = VK_NULL_HANDLE;
        ret = PSNRHVS_ERR(ENODEV);
        goto error;
    }
    for (int i = 0; i < sh->nqueues; i++)
        sh->vd.vkGetDeviceQueue(sh->dev, sh->family, (uint32_t)i, &sh->queue[i]);
    shared_vi.vkGetPhysicalDeviceMemoryProperties(sh->phys, &sh->mem);
    if ((ret = create_pipelines(c, sh))) goto error;
    *out = sh;
    return 0;
error:
    destroy_shared(sh);
    return ret;
}

/* The shared device of c->s.device, checked against what the backend needs
 * (and, under backend auto, a GPU), with one more user. */
static int acquire_shared(const PsnrHvsContext *const c, VkShared **const out,
                          VkDeviceInfo *const d) {
    char why[256];
    int ret = 0;
    pthread_mutex_lock(&registry);
    if ((ret = shared_instance(why, sizeof(why)))) {
        psnrhvs_log(c, "vulkan: %s", why);
        goto done;
    }
    if (!shared_list.n) {
        psnrhvs_log(c, "vulkan: no Vulkan device found (is a driver, an ICD, installed?)");
        ret = PSNRHVS_ERR(ENODEV);
        goto done;
    }
    if (c->s.device >= shared_list.n) {
        psnrhvs_log(c, "vulkan: device %d does not exist (%d found)", c->s.device, shared_list.n);
        ret = PSNRHVS_ERR(ENODEV);
        goto done;
    }
    device_info(&shared_vi, shared_list.dev[c->s.device], d);
    if (c->auto_backend && d->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
        psnrhvs_log(c,
                    "vulkan: device %d (%s) is a CPU implementation: backend auto takes only "
                    "GPUs (--backend vulkan names it)",
                    c->s.device, d->props.deviceName);
        ret = PSNRHVS_ERR(ENODEV);
        goto done;
    }
    const char *reason;
    const char *const missing = missing_property(d, &reason);
    if (missing) {
        psnrhvs_log(c, "vulkan: device %d (%s) lacks %s: %s", c->s.device, d->props.deviceName,
                    missing, reason);
        ret = PSNRHVS_ERR(ENODEV);
        goto done;
    }
    VkShared *sh = shared_devices;
    while (sh && sh->index != c->s.device) sh = sh->next;
    if (!sh) {
        if ((ret = create_shared(c, d, &sh))) goto done;
        sh->next = shared_devices;
        shared_devices = sh;
    }
    sh->users++;
    *out = sh;
done:
    pthread_mutex_unlock(&registry);
    return ret;
}

static void vk_close(PsnrHvsContext *const c) {
    VkBackend *const b = c->backend;
    if (!b) return;
    if (b->profiled) {
        const double n = b->profiled;
        psnrhvs_log(c,
                    "vulkan profile, ms per frame over %d frames (rendition 0): host copy %.3f, "
                    "upload %.3f, terms %.3f, maps %.3f, windows %.3f, walk %.3f",
                    b->profiled, b->copy_ms / n, b->prof_ms[0] / n, b->prof_ms[1] / n,
                    b->prof_ms[2] / n, b->prof_ms[3] / n, b->prof_ms[4] / n);
    }
    if (b->sh) {
        const PsnrHvsVkDeviceFns *const v = b->vd;
        for (int i = 0; b->slots && i < b->nslots; i++) {
            VkSlot *const s = &b->slots[i];
            /* Frames sent and never received: their kernels use the buffers. */
            if (s->pending) v->vkWaitForFences(b->dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
            if (s->fence) v->vkDestroyFence(b->dev, s->fence, NULL);
            if (s->queries) v->vkDestroyQueryPool(b->dev, s->queries, NULL);
            destroy_buffer(b, &s->staging);
            destroy_buffer(b, &s->input);
            for (int p = 0; p < 3; p++) {
                VkScratch *const x = &s->scratch[p];
                VkBuf *const bufs[] = {&x->terms, &x->chunk_sum, &x->chunks, &x->block_maps,
                                       &x->windows};
                for (size_t k = 0; k < sizeof(bufs) / sizeof(bufs[0]); k++)
                    destroy_buffer(b, bufs[k]);
            }
        }
        destroy_buffer(b, &b->tables);
        destroy_buffer(b, &b->sums_dev);
        destroy_buffer(b, &b->sums_host);
        if (b->cpool) v->vkDestroyCommandPool(b->dev, b->cpool, NULL);
        if (b->dpool) v->vkDestroyDescriptorPool(b->dev, b->dpool, NULL);
        release_shared(b->sh);
    }
    free(b->slots);
    psnrhvs_thread_pool_destroy(b->pool);
    free(b);
    c->backend = NULL;
}

/* Work-groups for n chunks as a 2-D grid (kernels.comp's psh_vk_group). */
static void dispatch(const VkBackend *const b, const VkCommandBuffer cmd, const uint32_t n) {
    const uint32_t x = n < MAX_GROUPS_X ? n : MAX_GROUPS_X;
    b->vd->vkCmdDispatch(cmd, x, (n + x - 1) / x, 1);
}

static void barrier(const VkBackend *const b, const VkCommandBuffer cmd,
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
static int record_slot(const PsnrHvsContext *const c, VkBackend *const b, const int si) {
    const PsnrHvsVkDeviceFns *const v = b->vd;
    const PsnrHvsFrameGeometry *const g = &c->geom;
    VkSlot *const s = &b->slots[si];
    const VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VkResult r = v->vkBeginCommandBuffer(s->cmd, &bi);
    if (r != VK_SUCCESS) return vk_error(c, r, "recording a command buffer");
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
                const VkParams prm = {.ref_off = (uint32_t)gp->ref_off,
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
        return vk_error(c, r, "recording a command buffer");
    return 0;
}

/* Appends to buf, keeping it terminated; *used may pass size (truncated). */
static void put(char *const buf, const size_t size, size_t *const used, const char *fmt, ...)
    PSNRHVS_PRINTF(4, 5);
static void put(char *const buf, const size_t size, size_t *const used, const char *fmt, ...) {
    if (*used >= size) return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used += (size_t)n;
}

static int vk_open(PsnrHvsContext *const c) {
    VkBackend *const b = calloc(1, sizeof(*b));
    if (!b) return PSNRHVS_ERR(ENOMEM);
    c->backend = b;
    VkDeviceInfo d;
    int ret = acquire_shared(c, &b->sh, &d);
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
            psnrhvs_log(c,
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
    b->pool = psnrhvs_thread_pool_create(c->s.threads > 0 ? c->s.threads : PACK_THREADS);
    if (!b->pool) {
        ret = PSNRHVS_ERR(ENOMEM);
        goto error;
    }
    b->nslots = c->slots;
    b->profile = c->profile && d.timestamps;
    b->timestamp_ms = d.props.limits.timestampPeriod * 1e-6;
    const VkDeviceSize sums_bytes = (VkDeviceSize)b->nslots * g->renditions * 4 * sizeof(uint32_t);
    if ((ret = create_buffer(c, b, &b->tables, 2 * sizeof(psh_csf),
                             VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, local, host, "tables buffer")) ||
        (ret =
             create_buffer(c, b, &b->sums_dev, sums_bytes,
                           storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0, local, "sums buffer")) ||
        (ret = create_buffer(c, b, &b->sums_host, sums_bytes, storage,
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
        VkSlot *const s = &b->slots[i];
        s->queue = i % b->sh->nqueues;
        for (int p = 0; p < g->num_planes; p++) {
            VkScratch *const x = &s->scratch[p];
            const VkDeviceSize nch = (VkDeviceSize)b->nchunks[p];
            const VkDeviceSize nwin = (nch + CHUNK - 1) / CHUNK;
            if ((ret = create_buffer(c, b, &x->terms, nch * CHUNK * 64 * sizeof(float), storage, 0,
                                     local, "terms buffer")) ||
                (ret = create_buffer(c, b, &x->chunk_sum, nch * sizeof(float), storage, 0, local,
                                     "chunk sums buffer")) ||
                (ret = create_buffer(c, b, &x->chunks, nch * CHUNK_BYTES, storage, 0, local,
                                     "chunk maps buffer")) ||
                (ret = create_buffer(c, b, &x->block_maps, nch * CHUNK * 2 * MAP_BYTES, storage, 0,
                                     local, "block maps buffer")) ||
                (ret = create_buffer(c, b, &x->windows, nwin * CHUNK_BYTES, storage, 0, local,
                                     "window maps buffer")))
                goto error;
        }
        if ((ret = create_buffer(c, b, &s->staging, g->frame_bytes,
                                 storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, b->uma ? local : 0,
                                 host, "staging buffer")))
            goto error;
        if (!b->uma && (ret = create_buffer(c, b, &s->input, s->staging.size,
                                            storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0, local,
                                            "frame buffer")))
            goto error;
        const VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        if ((r = v->vkCreateFence(b->dev, &fi, NULL, &s->fence)) != VK_SUCCESS) {
            ret = vk_error(c, r, "creating a fence");
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
        ret = vk_error(c, r, "creating the descriptor pool");
        goto error;
    }
    for (int i = 0; i < b->nslots; i++) {
        VkSlot *const s = &b->slots[i];
        for (int p = 0; p < g->num_planes; p++) {
            const VkDescriptorSetAllocateInfo ai = {
                .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                .descriptorPool = b->dpool,
                .descriptorSetCount = 1,
                .pSetLayouts = &b->sh->set_layout};
            if ((r = v->vkAllocateDescriptorSets(b->dev, &ai, &s->sets[p])) != VK_SUCCESS) {
                ret = vk_error(c, r, "allocating descriptor sets");
                goto error;
            }
            const VkScratch *const x = &s->scratch[p];
            const VkBuffer bufs[NBINDINGS] = {b->uma ? s->staging.buf : s->input.buf,
                                              x->terms.buf,
                                              x->chunk_sum.buf,
                                              x->chunks.buf,
                                              x->block_maps.buf,
                                              x->windows.buf,
                                              b->sums_dev.buf,
                                              b->tables.buf,
                                              b->sums_host.buf};
            write_set(b, s->sets[p], bufs);
        }
    }

    const VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .queueFamilyIndex = b->sh->family};
    if ((r = v->vkCreateCommandPool(b->dev, &cpi, NULL, &b->cpool)) != VK_SUCCESS) {
        ret = vk_error(c, r, "creating the command pool");
        goto error;
    }
    for (int i = 0; i < b->nslots; i++) {
        const VkCommandBufferAllocateInfo ai = {.sType =
                                                    VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                                .commandPool = b->cpool,
                                                .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                                .commandBufferCount = 1};
        if ((r = v->vkAllocateCommandBuffers(b->dev, &ai, &b->slots[i].cmd)) != VK_SUCCESS) {
            ret = vk_error(c, r, "allocating command buffers");
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
    VkBackend *const b = c->backend;
    VkSlot *const s = &b->slots[si];
    /* The slot's last frame was collected (its fence waited on): its
     * staging memory is free. Host-coherent memory: the writes are visible
     * to the device at the submission. */
    const double t0 = b->profile ? now_ms() : 0.0;
    psnrhvs_frame_pack_upload(&c->geom, ref, dist, (unsigned char *)s->staging.map, b->pool);
    if (b->profile) s->copy_ms = now_ms() - t0;
    const VkSubmitInfo si_ = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                              .commandBufferCount = 1,
                              .pCommandBuffers = &s->cmd};
    pthread_mutex_lock(&b->sh->queue_lock[s->queue]);
    const VkResult r = b->vd->vkQueueSubmit(b->sh->queue[s->queue], 1, &si_, s->fence);
    pthread_mutex_unlock(&b->sh->queue_lock[s->queue]);
    if (r != VK_SUCCESS) return vk_error(c, r, "submitting a frame");
    s->pending = 1;
    return 0;
}

static int vk_collect(PsnrHvsContext *const c, const int si, float (*sums)[3]) {
    VkBackend *const b = c->backend;
    VkSlot *const s = &b->slots[si];
    VkResult r = b->vd->vkWaitForFences(b->dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
    s->pending = 0;
    const VkResult rr = b->vd->vkResetFences(b->dev, 1, &s->fence);
    if (r == VK_SUCCESS) r = rr;
    if (r != VK_SUCCESS) return vk_error(c, r, "scoring a frame");
    const int nr = c->geom.renditions;
    const uint32_t *const words = (const uint32_t *)b->sums_host.map + (size_t)si * nr * 4;
    if (words[3]) {
        /* Where: the packed pair is still in the slot's staging buffer. */
        PsnrHvsRangeError e = {0};
        PsnrHvsPicture pics[1 + PSNRHVS_MAX_RENDITIONS];
        psnrhvs_frame_pictures(&c->geom, s->staging.map, pics);
        psnrhvs_range_check(&c->geom, &pics[0], &pics[1], &e);
        return psnrhvs_range_report(c, &e);
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

/* auto's view (backend.h): GPUs that have every guarantee, by vendor (no
 * PCI address: VK_EXT_pci_bus_info is optional). */
static int vk_enumerate(PsnrHvsDeviceInfo *const info, const int max) {
    char why[256];
    pthread_mutex_lock(&registry);
    const int err = shared_instance(why, sizeof(why));
    const PsnrHvsVkInstanceFns f = shared_vi;
    const VkDeviceList l = shared_list;
    pthread_mutex_unlock(&registry);
    if (err) return 0;
    for (int i = 0; i < l.n && i < max; i++) {
        VkDeviceInfo d;
        device_info(&f, l.dev[i], &d);
        const char *reason;
        const uint32_t v = d.props.vendorID;
        memset(&info[i], 0, sizeof(info[i]));
        info[i].gpu = d.props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU &&
                      d.props.deviceType != VK_PHYSICAL_DEVICE_TYPE_OTHER &&
                      !missing_property(&d, &reason);
        snprintf(info[i].vendor, sizeof(info[i].vendor), "%s",
                 v == 0x10de   ? "nvidia"
                 : v == 0x1002 ? "amd"
                 : v == 0x8086 ? "intel"
                               : "");
    }
    return l.n;
}

static const char *yes(const VkBool32 v) {
    return v ? "yes" : "no";
}

static int vk_list_devices(const int verbose, char *const buf, const size_t size) {
    size_t used = 0;
    if (size) buf[0] = 0;
    char why[256];
    pthread_mutex_lock(&registry);
    const int err = shared_instance(why, sizeof(why));
    if (err) {
        pthread_mutex_unlock(&registry);
        put(buf, size, &used, "vulkan: %s\n", why);
        return err;
    }
    const PsnrHvsVkInstanceFns f = shared_vi;
    const VkDeviceList l = shared_list;
    pthread_mutex_unlock(&registry);
    if (!l.n) {
        put(buf, size, &used, "vulkan: no Vulkan device found\n");
        return PSNRHVS_ERR(ENODEV);
    }
    for (int i = 0; i < l.n; i++) {
        VkDeviceInfo d;
        device_info(&f, l.dev[i], &d);
        const uint32_t v = d.props.apiVersion;
        const char *reason;
        const char *const missing = missing_property(&d, &reason);
        put(buf, size, &used,
            "%d: %s | %s | Vulkan %u.%u.%u | %s %s | int64 %s | f32 round to nearest even %s | "
            "f32 signed zero/inf/nan preserve %s | f32 denormals preserved %s | %s%s%s\n",
            i, d.props.deviceName, type_name(d.props.deviceType), VK_API_VERSION_MAJOR(v),
            VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v),
            d.v12 ? d.driver.driverName : "driver", d.v12 ? d.driver.driverInfo : "?",
            yes(d.feat.shaderInt64), yes(d.fc.shaderRoundingModeRTEFloat32),
            yes(d.fc.shaderSignedZeroInfNanPreserveFloat32), yes(d.fc.shaderDenormPreserveFloat32),
            missing ? "unusable: lacks " : "usable", missing ? missing : "",
            d.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !missing ? " (only when named)"
                                                                          : "");
        if (!verbose) continue;
        const VkPhysicalDeviceLimits *const lim = &d.props.limits;
        put(buf, size, &used,
            "    limits: maxStorageBufferRange %u, maxMemoryAllocationSize %llu, "
            "maxComputeSharedMemorySize %u, maxComputeWorkGroupInvocations %u; "
            "denormBehaviorIndependence %d, roundingModeIndependence %d, "
            "shaderDenormFlushToZeroFloat32 %s, shaderFloat64 %s\n",
            lim->maxStorageBufferRange, (unsigned long long)d.m3.maxMemoryAllocationSize,
            lim->maxComputeSharedMemorySize, lim->maxComputeWorkGroupInvocations,
            (int)d.fc.denormBehaviorIndependence, (int)d.fc.roundingModeIndependence,
            yes(d.fc.shaderDenormFlushToZeroFloat32), yes(d.feat.shaderFloat64));
    }
    return 0;
}

/* ---- the test hook: the integer helpers on the device ------------------ */

int psnrhvs_test_vulkan_math(PsnrHvsContext *const c, const float *const ab, const size_t n,
                             float *const out) {
    if (!c || c->ops != &psnrhvs_backend_vulkan || !ab || !out || !n) return PSNRHVS_ERR(EINVAL);
    VkBackend *const b = c->backend;
    VkShared *const sh = b->sh;
    const PsnrHvsVkDeviceFns *const v = b->vd;
    int ret = 0;
    pthread_mutex_lock(&registry);
    if (!sh->pipe[MATH_KERNEL]) ret = create_pipeline(c, sh, MATH_KERNEL);
    pthread_mutex_unlock(&registry);
    if (ret) return ret;
    const VkMemoryPropertyFlags host =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkBuf in = {0}, res = {0};
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkResult r = VK_SUCCESS;
    if ((ret = create_buffer(c, b, &in, n * 2 * sizeof(float), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             0, host, "math operands")) ||
        (ret = create_buffer(c, b, &res, n * 3 * sizeof(float), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
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
    const VkScratch *const x = &b->slots[0].scratch[0];
    const VkBuffer bufs[NBINDINGS] = {in.buf,          res.buf,           x->chunk_sum.buf,
                                      x->chunks.buf,   x->block_maps.buf, x->windows.buf,
                                      b->sums_dev.buf, b->tables.buf,     b->sums_host.buf};
    write_set(b, set, bufs);
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
    const VkParams prm = {.nblocks = (int32_t)n};
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
    ret = vk_error(c, r, "running the math kernel");
done:
    if (fence) v->vkDestroyFence(b->dev, fence, NULL);
    if (cmd) v->vkFreeCommandBuffers(b->dev, b->cpool, 1, &cmd);
    if (pool) v->vkDestroyDescriptorPool(b->dev, pool, NULL);
    destroy_buffer(b, &in);
    destroy_buffer(b, &res);
    return ret;
}

const PsnrHvsBackendOps psnrhvs_backend_vulkan = {
    .name = "vulkan",
    .id = PSNRHVS_BACKEND_VULKAN,
    .default_slots = DEFAULT_FRAMES,
    .open = vk_open,
    .submit = vk_submit,
    .collect = vk_collect,
    .close = vk_close,
    .list_devices = vk_list_devices,
    .enumerate = vk_enumerate,
};
