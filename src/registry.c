/*
 * The backends: their names, the registry that finds their ops (in the core,
 * or a module opened when first asked for), and what auto may do with each.
 * The only place that tells one backend from another by its id.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "module.h"

/* Each backend in the order auto tries them. What auto does with one sits
 * here, not in its ops: a module's ops exist only once it is loaded, and
 * auto must decide without loading it. */
static const struct {
    enum PsnrHvsBackend id;
    const PsnrHvsBackendOps *ops;
    const char *module;
    unsigned flags;      ///< PSH_REG_*
    unsigned pci_vendor; ///< every GPU of this PCI vendor is one of its devices (0: none)
} registry[] = {
#if HAVE_CUDA
    {PSNRHVS_BACKEND_CUDA, NULL, "cuda", PSH_REG_AUTO_GPUS, 0x10de},
#endif
#if HAVE_HIP
    {PSNRHVS_BACKEND_HIP, &psh_backend_hip, NULL, PSH_REG_AUTO_GPUS, 0x1002},
#endif
#if HAVE_OPENCL
    {PSNRHVS_BACKEND_OPENCL, &psh_backend_opencl, NULL, PSH_REG_AUTO_GPUS, 0},
#endif
#if HAVE_VULKAN
    {PSNRHVS_BACKEND_VULKAN, &psh_backend_vulkan, NULL, PSH_REG_AUTO_GPUS, 0},
#endif
/* Its GPUs are CUDA's and HIP's (its targets): asked only where no
 * backend before it found one. */
#if HAVE_SYCL
    {PSNRHVS_BACKEND_SYCL, NULL, "sycl", PSH_REG_AUTO_GPUS | PSH_REG_AUTO_IF_NONE, 0},
#endif
    {PSNRHVS_BACKEND_CPU, &psh_backend_cpu, NULL, PSH_REG_HOST, 0},
};
#define NUM_REGISTERED ((int)(sizeof(registry) / sizeof(registry[0])))

/* The enum's names, in its order: the one list of them. */
static const char *const backend_names[] = {"auto", "cpu",  "cuda",  "opencl",
                                            "hip",  "sycl", "vulkan"};
#define NUM_BACKENDS (sizeof(backend_names) / sizeof(backend_names[0]))

const char *psnrhvs_backend_string(const enum PsnrHvsBackend b) {
    return (unsigned)b < NUM_BACKENDS ? backend_names[b] : NULL;
}

int psnrhvs_backend_from_string(const char *const name) {
    for (size_t i = 0; name && i < NUM_BACKENDS; i++)
        if (!strcmp(name, backend_names[i])) return (int)i;
    return PSNRHVS_ERR(EINVAL);
}

int psnrhvs_backend_kind(const enum PsnrHvsBackend b) {
    if (!psnrhvs_backend_string(b)) return PSNRHVS_KIND_NONE;
    if (b == PSNRHVS_BACKEND_AUTO) return PSNRHVS_KIND_AUTO;
    return b == PSNRHVS_BACKEND_CPU ? PSNRHVS_KIND_HOST : PSNRHVS_KIND_DEVICE;
}

int psnrhvs_backend_reads_cuda_memory(const enum PsnrHvsBackend b) {
    return b == PSNRHVS_BACKEND_CUDA;
}

enum PsnrHvsBackend psh_host_backend(void) {
    return PSNRHVS_BACKEND_CPU;
}

const char *psh_backend_id_name(const enum PsnrHvsBackend b) {
    const char *const name = psnrhvs_backend_string(b);
    return name ? name : "?";
}

/* Undefined (NULL) only in a statically linked program, where the device
 * backends' loaders (dlopen of modules, ICDs, runtimes) cannot work. */
extern const char _DYNAMIC[] __attribute__((weak));

int psh_registry_size(void) {
    return NUM_REGISTERED;
}

unsigned psh_registry_flags(const int i) {
    return registry[i].flags;
}

unsigned psh_registry_pci_vendor(const int i) {
    return registry[i].pci_vendor;
}

const PsnrHvsBackendOps *psh_registry_ops(const int i, const PsnrHvsSettings *const s,
                                          char *const why, const size_t why_size) {
    if (!(registry[i].flags & PSH_REG_HOST) && !_DYNAMIC) {
        snprintf(why, why_size,
                 "backend %s is loaded at run time, which a statically linked program cannot do",
                 psh_backend_id_name(registry[i].id));
        return NULL;
    }
    if (registry[i].ops) return registry[i].ops;
    return psh_module_ops(registry[i].module, s, why, why_size);
}

static int find(const enum PsnrHvsBackend id) {
    for (int i = 0; i < NUM_REGISTERED; i++)
        if (registry[i].id == id) return i;
    return -1;
}

const PsnrHvsBackendOps *psh_find_backend(const enum PsnrHvsBackend id,
                                          const PsnrHvsSettings *const s, char *const why,
                                          const size_t why_size) {
    const int i = find(id);
    if (i >= 0) return psh_registry_ops(i, s, why, why_size);
    snprintf(why, why_size, "backend %s is not built into this library", psh_backend_id_name(id));
    return NULL;
}

int psnrhvs_backend_available(enum PsnrHvsBackend b) {
    char why[1024];
    return psh_find_backend(b, NULL, why, sizeof(why)) != NULL;
}

int psnrhvs_list_devices(enum PsnrHvsBackend b, int verbose, char *buf, size_t size) {
    if (!buf && size) return PSNRHVS_ERR(EINVAL);
    char why[1024];
    const PsnrHvsBackendOps *ops = psh_find_backend(b, NULL, why, sizeof(why));
    if (!ops && find(b) < 0) return PSNRHVS_ERR(ENOSYS);
    if (!ops) {
        snprintf(buf, size, "%s\n", why);
        return PSNRHVS_ERR(ENOENT);
    }
    if (!ops->list_devices) {
        snprintf(buf, size, "%s: the host CPU\n", ops->name);
        return 0;
    }
    return ops->list_devices(verbose, buf, size);
}
