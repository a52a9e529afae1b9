/*
 * The Vulkan backend's device objects: buffers and their memory, descriptor
 * sets, and the kernels' pipelines from the embedded SPIR-V.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan/vulkan_int.h"

/* SPIR-V of glsl/kernels.comp, one module per kernel (cmake/EmbedBinary.cmake). */
extern const unsigned char psh_vulkan_spirv_terms[], psh_vulkan_spirv_maps[],
    psh_vulkan_spirv_windows[], psh_vulkan_spirv_walk[], psh_vulkan_spirv_math[];
extern const unsigned long psh_vulkan_spirv_terms_size, psh_vulkan_spirv_maps_size,
    psh_vulkan_spirv_windows_size, psh_vulkan_spirv_walk_size, psh_vulkan_spirv_math_size;

#define TABLES_BINDING 7

static const char *const kernel_names[NKERNELS + 1] = {"terms", "maps", "windows", "walk", "math"};

/* ---- buffers ------------------------------------------------------------ */

int vkb_error(const PsnrHvsContext *const c, const VkResult r, const char *const what) {
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) {
        psh_log(c, "vulkan: %s: out of %s memory (VkResult %d)", what,
                r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? "device" : "host", (int)r);
        return PSNRHVS_ERR(ENOMEM);
    }
    psh_log(c, "vulkan: %s failed (VkResult %d)", what, (int)r);
    return PSNRHVS_ERR(EIO);
}

/* A memory type of `bits` with all of `need`, preferring one with `want` too. */
static int memory_type(const VkbBackend *const b, const uint32_t bits,
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

int vkb_create_buffer(const PsnrHvsContext *const c, VkbBackend *const b, VkbBuf *const out,
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
    if (r != VK_SUCCESS) return vkb_error(c, r, what);
    VkMemoryRequirements req;
    v->vkGetBufferMemoryRequirements(b->dev, out->buf, &req);
    const int type = memory_type(b, req.memoryTypeBits, want, need);
    if (type < 0) {
        psh_log(c, "vulkan: %s: no memory type with properties 0x%x", what, (unsigned)need);
        return PSNRHVS_ERR(ENOMEM);
    }
    const VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                     .allocationSize = req.size,
                                     .memoryTypeIndex = (uint32_t)type};
    if ((r = v->vkAllocateMemory(b->dev, &ai, NULL, &out->mem)) != VK_SUCCESS ||
        (r = v->vkBindBufferMemory(b->dev, out->buf, out->mem, 0)) != VK_SUCCESS)
        return vkb_error(c, r, what);
    if (need & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        if ((r = v->vkMapMemory(b->dev, out->mem, 0, VK_WHOLE_SIZE, 0, &out->map)) != VK_SUCCESS)
            return vkb_error(c, r, what);
    }
    return 0;
}

void vkb_destroy_buffer(const VkbBackend *const b, VkbBuf *const x) {
    if (x->map) b->vd->vkUnmapMemory(b->dev, x->mem);
    if (x->buf) b->vd->vkDestroyBuffer(b->dev, x->buf, NULL);
    if (x->mem) b->vd->vkFreeMemory(b->dev, x->mem, NULL);
    memset(x, 0, sizeof(*x));
}

static VkDescriptorType binding_type(const int i) {
    return i == TABLES_BINDING ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                               : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

/* Points binding k of set at bufs[k], for every binding. */
void vkb_write_set(const VkbBackend *const b, const VkDescriptorSet set,
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
int vkb_create_pipeline(const PsnrHvsContext *const c, VkbShared *const sh, const int i) {
    const PsnrHvsVkDeviceFns *const v = &sh->vd;
    const unsigned char *const code[NKERNELS + 1] = {psh_vulkan_spirv_terms, psh_vulkan_spirv_maps,
                                                     psh_vulkan_spirv_windows,
                                                     psh_vulkan_spirv_walk, psh_vulkan_spirv_math};
    const unsigned long sizes[NKERNELS + 1] = {
        psh_vulkan_spirv_terms_size, psh_vulkan_spirv_maps_size, psh_vulkan_spirv_windows_size,
        psh_vulkan_spirv_walk_size, psh_vulkan_spirv_math_size};
    VkShaderModule mod;
    /* The embedded bytes as words (pCode must be 4-byte aligned). */
    uint32_t *const words = malloc(sizes[i] + 4);
    if (!words) return PSNRHVS_ERR(ENOMEM);
    memcpy(words, code[i], sizes[i]);
    const VkShaderModuleCreateInfo mi = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = sizes[i], .pCode = words};
    VkResult r = v->vkCreateShaderModule(sh->dev, &mi, NULL, &mod);
    free(words);
    if (r != VK_SUCCESS) return vkb_error(c, r, "loading the SPIR-V");
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
        psh_log(c, "vulkan: compiling the %s kernel failed (VkResult %d)", kernel_names[i], (int)r);
        return PSNRHVS_ERR(r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? ENOMEM : EIO);
    }
    return 0;
}

int vkb_create_pipelines(const PsnrHvsContext *const c, VkbShared *const sh) {
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
        return vkb_error(c, r, "creating the descriptor set layout");
    const VkPushConstantRange pcr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
                                     .size = sizeof(VkbParams)};
    const VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                            .setLayoutCount = 1,
                                            .pSetLayouts = &sh->set_layout,
                                            .pushConstantRangeCount = 1,
                                            .pPushConstantRanges = &pcr};
    if ((r = v->vkCreatePipelineLayout(sh->dev, &pli, NULL, &sh->layout)) != VK_SUCCESS)
        return vkb_error(c, r, "creating the pipeline layout");
    for (int i = 0; i < NKERNELS; i++) {
        const int ret = vkb_create_pipeline(c, sh, i);
        if (ret) return ret;
    }
    return 0;
}
