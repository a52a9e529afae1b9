/*
 * The Vulkan entry points the backend uses, loaded at run time from the
 * loader (libvulkan.so.1) instead of linked: a program built with the
 * Vulkan backend starts on machines without Vulkan, and says so only when
 * that backend is asked for. Global and instance functions come from
 * vkGetInstanceProcAddr, device functions from vkGetDeviceProcAddr, into
 * tables the backend keeps per instance and per device.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_VULKAN_VULKAN_LOADER_H
#define PSNRHVS_SRC_VULKAN_VULKAN_LOADER_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <stddef.h>
#include <vulkan/vulkan.h>

/* Before an instance exists (vkGetInstanceProcAddr(NULL, ...)). */
#define PSNRHVS_VK_GLOBAL(X)                                                                       \
    X(vkCreateInstance)                                                                            \
    X(vkEnumerateInstanceVersion)

#define PSNRHVS_VK_INSTANCE(X)                                                                     \
    X(vkDestroyInstance)                                                                           \
    X(vkEnumeratePhysicalDevices)                                                                  \
    X(vkGetPhysicalDeviceProperties)                                                               \
    X(vkGetPhysicalDeviceProperties2)                                                              \
    X(vkGetPhysicalDeviceFeatures)                                                                 \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                    \
    X(vkGetPhysicalDeviceMemoryProperties)                                                         \
    X(vkCreateDevice)                                                                              \
    X(vkGetDeviceProcAddr)

#define PSNRHVS_VK_DEVICE(X)                                                                       \
    X(vkDestroyDevice)                                                                             \
    X(vkGetDeviceQueue)                                                                            \
    X(vkCreateBuffer)                                                                              \
    X(vkDestroyBuffer)                                                                             \
    X(vkGetBufferMemoryRequirements)                                                               \
    X(vkAllocateMemory)                                                                            \
    X(vkFreeMemory)                                                                                \
    X(vkBindBufferMemory)                                                                          \
    X(vkMapMemory)                                                                                 \
    X(vkUnmapMemory)                                                                               \
    X(vkCreateShaderModule)                                                                        \
    X(vkDestroyShaderModule)                                                                       \
    X(vkCreateDescriptorSetLayout)                                                                 \
    X(vkDestroyDescriptorSetLayout)                                                                \
    X(vkCreatePipelineLayout)                                                                      \
    X(vkDestroyPipelineLayout)                                                                     \
    X(vkCreatePipelineCache)                                                                       \
    X(vkDestroyPipelineCache)                                                                      \
    X(vkGetPipelineCacheData)                                                                      \
    X(vkCreateComputePipelines)                                                                    \
    X(vkDestroyPipeline)                                                                           \
    X(vkCreateDescriptorPool)                                                                      \
    X(vkDestroyDescriptorPool)                                                                     \
    X(vkAllocateDescriptorSets)                                                                    \
    X(vkUpdateDescriptorSets)                                                                      \
    X(vkCreateCommandPool)                                                                         \
    X(vkDestroyCommandPool)                                                                        \
    X(vkAllocateCommandBuffers)                                                                    \
    X(vkFreeCommandBuffers)                                                                        \
    X(vkBeginCommandBuffer)                                                                        \
    X(vkEndCommandBuffer)                                                                          \
    X(vkCmdBindPipeline)                                                                           \
    X(vkCmdBindDescriptorSets)                                                                     \
    X(vkCmdPushConstants)                                                                          \
    X(vkCmdDispatch)                                                                               \
    X(vkCmdPipelineBarrier)                                                                        \
    X(vkCmdCopyBuffer)                                                                             \
    X(vkCmdFillBuffer)                                                                             \
    X(vkCmdResetQueryPool)                                                                         \
    X(vkCmdWriteTimestamp)                                                                         \
    X(vkCreateQueryPool)                                                                           \
    X(vkDestroyQueryPool)                                                                          \
    X(vkGetQueryPoolResults)                                                                       \
    X(vkQueueSubmit)                                                                               \
    X(vkQueueWaitIdle)                                                                             \
    X(vkDeviceWaitIdle)                                                                            \
    X(vkCreateFence)                                                                               \
    X(vkDestroyFence)                                                                              \
    X(vkWaitForFences)                                                                             \
    X(vkResetFences)

#define PSNRHVS_VK_MEMBER(name) PFN_##name name;
typedef struct PsnrHvsVkInstanceFns {
    PSNRHVS_VK_GLOBAL(PSNRHVS_VK_MEMBER)
    PSNRHVS_VK_INSTANCE(PSNRHVS_VK_MEMBER)
} PsnrHvsVkInstanceFns;
typedef struct PsnrHvsVkDeviceFns {
    PSNRHVS_VK_DEVICE(PSNRHVS_VK_MEMBER)
} PsnrHvsVkDeviceFns;
#undef PSNRHVS_VK_MEMBER

/* Opens the loader once (thread-safe) and gives its vkGetInstanceProcAddr.
 * NULL, with the reason in why, when there is none. */
PFN_vkGetInstanceProcAddr psh_vulkan_load(char *why, size_t size);

/* The global functions (instance NULL) or the instance's; 0, or -1 with the
 * missing function's name in why. */
int psh_vulkan_instance_fns(PsnrHvsVkInstanceFns *f, VkInstance instance, char *why, size_t size);

/* The device's functions; 0, or -1 with the missing one in why. */
int psh_vulkan_device_fns(const PsnrHvsVkInstanceFns *in, VkDevice dev, PsnrHvsVkDeviceFns *f,
                          char *why, size_t size);

#endif /* PSNRHVS_SRC_VULKAN_VULKAN_LOADER_H */
