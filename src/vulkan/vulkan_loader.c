/*
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "vulkan/vulkan_loader.h"
#include "dl.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];
static PFN_vkGetInstanceProcAddr get_instance_proc;

static void load(void) {
    /* The loader's SONAME first; the development link only as a fallback. */
    static const char *const names[] = {"libvulkan.so.1", "libvulkan.so", NULL};
    static const DlSymbol symbols[] = {{"vkGetInstanceProcAddr", 0}};
    const DlLibrary l = {"Vulkan loader", names, NULL, symbols, 1};
    PFN_vkGetInstanceProcAddr gipa;
    if (!dl_load(&l, &gipa, failure, sizeof(failure))) get_instance_proc = gipa;
}

PFN_vkGetInstanceProcAddr psh_vulkan_load(char *const why, const size_t size) {
    pthread_once(&once, load);
    if (get_instance_proc) return get_instance_proc;
    if (size) snprintf(why, size, "%s", failure);
    return NULL;
}

int psh_vulkan_instance_fns(PsnrHvsVkInstanceFns *const f, const VkInstance instance,
                            char *const why, const size_t size) {
    const PFN_vkGetInstanceProcAddr gipa = psh_vulkan_load(why, size);
    if (!gipa) return -1;
    /* vkEnumerateInstanceVersion is Vulkan 1.1: a 1.0 loader lacks it. */
    if (!instance) {
        memset(f, 0, sizeof(*f));
        f->vkCreateInstance = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
        f->vkEnumerateInstanceVersion =
            (PFN_vkEnumerateInstanceVersion)gipa(NULL, "vkEnumerateInstanceVersion");
        if (!f->vkCreateInstance) {
            snprintf(why, size, "the Vulkan loader lacks vkCreateInstance");
            return -1;
        }
        return 0;
    }
#define PSNRHVS_VK_LOAD(name)                                                                      \
    if (!(f->name = (PFN_##name)gipa(instance, #name))) {                                          \
        snprintf(why, size, "the Vulkan instance lacks %s", #name);                                \
        return -1;                                                                                 \
    }
    PSNRHVS_VK_INSTANCE(PSNRHVS_VK_LOAD)
#undef PSNRHVS_VK_LOAD
    return 0;
}

int psh_vulkan_device_fns(const PsnrHvsVkInstanceFns *const in, const VkDevice dev,
                          PsnrHvsVkDeviceFns *const f, char *const why, const size_t size) {
#define PSNRHVS_VK_LOAD(name)                                                                      \
    if (!(f->name = (PFN_##name)in->vkGetDeviceProcAddr(dev, #name))) {                            \
        snprintf(why, size, "the Vulkan device lacks %s", #name);                                  \
        return -1;                                                                                 \
    }
    PSNRHVS_VK_DEVICE(PSNRHVS_VK_LOAD)
#undef PSNRHVS_VK_LOAD
    return 0;
}
