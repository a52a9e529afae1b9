/*
 * The Vulkan backend's devices: the process's instance, the physical
 * devices in settings.device order, the properties a device must have, the
 * devices shared by the contexts on them, and list-devices.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_hooks.h"
#include "vulkan/vulkan_int.h"

#define MAX_DEVICES 64

typedef struct VkbDeviceList {
    int n;
    VkPhysicalDevice dev[MAX_DEVICES];
} VkbDeviceList;

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
                        VkbDeviceInfo *const d) {
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
static const char *missing_property(const VkbDeviceInfo *const d, const char **const why) {
    const char *const hook = psh_test_vulkan_missing();
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
    if (psh_vulkan_instance_fns(f, VK_NULL_HANDLE, why, size)) return PSNRHVS_ERR(ENODEV);
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
    if (psh_vulkan_instance_fns(f, *inst, why, size)) {
        const PFN_vkGetInstanceProcAddr gipa = psh_vulkan_load(NULL, 0);
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
                        VkbDeviceList *const l) {
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

/* ---- the devices of the process ---------------------------------------- */

/* One instance for the process, and one VkbShared per device index opened:
 * created by the first context on it, kept while the process runs (the next
 * context reuses the compiled kernels), destroyed at exit if no context is
 * open on it then. Guarded by `registry`. list-devices uses the same
 * instance. */
static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static PsnrHvsVkInstanceFns shared_vi;
static VkInstance shared_inst;
static VkbDeviceList shared_list;
static VkbShared *shared_devices;
static int teardown_registered;

static void destroy_shared(VkbShared *const sh) {
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
    for (VkbShared **p = &shared_devices; *p;) {
        VkbShared *const sh = *p;
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

void vkb_release_shared(VkbShared *const sh) {
    pthread_mutex_lock(&registry);
    sh->users--;
    pthread_mutex_unlock(&registry);
}

/* The device, its queue and its kernels, for a device that has what the
 * backend needs (d). Called with `registry` held. */
static int create_shared(const PsnrHvsContext *const c, const VkbDeviceInfo *const d,
                         VkbShared **const out) {
    char why[256];
    VkbShared *const sh = calloc(1, sizeof(*sh));
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
        ret = vkb_error(c, r, "creating the device");
        goto error;
    }
    if (psh_vulkan_device_fns(&shared_vi, sh->dev, &sh->vd, why, sizeof(why))) {
        psh_log(c, "vulkan: %s", why);
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
    if ((ret = vkb_create_pipelines(c, sh))) goto error;
    *out = sh;
    return 0;
error:
    destroy_shared(sh);
    return ret;
}

/* The shared device of c->s.device, checked against what the backend needs
 * (and, under backend auto, a GPU), with one more user. */
int vkb_acquire_shared(const PsnrHvsContext *const c, VkbShared **const out,
                       VkbDeviceInfo *const d) {
    char why[256];
    int ret = 0;
    pthread_mutex_lock(&registry);
    if ((ret = shared_instance(why, sizeof(why)))) {
        psh_log(c, "vulkan: %s", why);
        goto done;
    }
    if (!shared_list.n) {
        psh_log(c, "vulkan: no Vulkan device found (is a driver, an ICD, installed?)");
        ret = PSNRHVS_ERR(ENODEV);
        goto done;
    }
    if (c->s.device >= shared_list.n) {
        psh_log(c, "vulkan: device %d does not exist (%d found)", c->s.device, shared_list.n);
        ret = PSNRHVS_ERR(ENODEV);
        goto done;
    }
    device_info(&shared_vi, shared_list.dev[c->s.device], d);
    if (c->auto_backend && d->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
        psh_log(c,
                "vulkan: device %d (%s) is a CPU implementation: backend auto takes only "
                "GPUs (--backend vulkan names it)",
                c->s.device, d->props.deviceName);
        ret = PSNRHVS_ERR(ENODEV);
        goto done;
    }
    const char *reason;
    const char *const missing = missing_property(d, &reason);
    if (missing) {
        psh_log(c, "vulkan: device %d (%s) lacks %s: %s", c->s.device, d->props.deviceName, missing,
                reason);
        ret = PSNRHVS_ERR(ENODEV);
        goto done;
    }
    VkbShared *sh = shared_devices;
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

/* Kernel i's pipeline on sh, compiled on first use; under `registry`, as
 * the contexts on sh share it. */
int vkb_need_pipeline(const PsnrHvsContext *const c, VkbShared *const sh, const int i) {
    int ret = 0;
    pthread_mutex_lock(&registry);
    if (!sh->pipe[i]) ret = vkb_create_pipeline(c, sh, i);
    pthread_mutex_unlock(&registry);
    return ret;
}

/* auto's view (backend.h): GPUs that have every guarantee, by vendor (no
 * PCI address: VK_EXT_pci_bus_info is optional). */
int vkb_enumerate(PsnrHvsDeviceInfo *const info, const int max) {
    char why[256];
    pthread_mutex_lock(&registry);
    const int err = shared_instance(why, sizeof(why));
    const PsnrHvsVkInstanceFns f = shared_vi;
    const VkbDeviceList l = shared_list;
    pthread_mutex_unlock(&registry);
    if (err) return 0;
    for (int i = 0; i < l.n && i < max; i++) {
        VkbDeviceInfo d;
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
        snprintf(info[i].name, sizeof(info[i].name), "%.95s", d.props.deviceName);
    }
    return l.n;
}

static const char *yes(const VkBool32 v) {
    return v ? "yes" : "no";
}

int vkb_list_devices(const int verbose, char *const buf, const size_t size) {
    size_t used = 0;
    if (size) buf[0] = 0;
    char why[256];
    pthread_mutex_lock(&registry);
    const int err = shared_instance(why, sizeof(why));
    if (err) {
        pthread_mutex_unlock(&registry);
        psh_buf_put(buf, size, &used, "vulkan: %s\n", why);
        return err;
    }
    const PsnrHvsVkInstanceFns f = shared_vi;
    const VkbDeviceList l = shared_list;
    pthread_mutex_unlock(&registry);
    if (!l.n) {
        psh_buf_put(buf, size, &used, "vulkan: no Vulkan device found\n");
        return PSNRHVS_ERR(ENODEV);
    }
    for (int i = 0; i < l.n; i++) {
        VkbDeviceInfo d;
        device_info(&f, l.dev[i], &d);
        const uint32_t v = d.props.apiVersion;
        const char *reason;
        const char *const missing = missing_property(&d, &reason);
        psh_buf_put(
            buf, size, &used,
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
        psh_buf_put(buf, size, &used,
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
