/*
 * psnrhvs: backends and devices: their names and kinds, the device list auto
 * takes its devices from, and the process's CPU count.
 * Part of the public API: include <psnrhvs.h>, which includes every part.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_DEVICES_H
#define PSNRHVS_DEVICES_H

#include "psnrhvs/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @return 1 if the backend was compiled in and, for one built as a module
 *  (cuda, sycl), its module opens (not whether a device exists). */
PSNRHVS_API int psnrhvs_backend_available(enum PsnrHvsBackend b);

/**
 * Write a description of the devices of a backend (one per line) into buf.
 * @return 0, PSNRHVS_ERR(ENOSYS) if not built in, PSNRHVS_ERR(ENOENT) if its
 *         module cannot be opened (buf says why), PSNRHVS_ERR(ENODEV) if none.
 */
PSNRHVS_API int psnrhvs_list_devices(enum PsnrHvsBackend b, int verbose, char *buf, size_t size);

/** What a value of enum PsnrHvsBackend names (psnrhvs_backend_kind()). */
enum PsnrHvsBackendKind {
    PSNRHVS_KIND_NONE = 0,   ///< not a backend
    PSNRHVS_KIND_AUTO = 1,   ///< auto: the library picks (the CPU and every GPU)
    PSNRHVS_KIND_HOST = 2,   ///< the host CPU's own backend (cpu)
    PSNRHVS_KIND_DEVICE = 3, ///< a device API (cuda, hip, opencl, sycl, vulkan)
};

/** @return the enum PsnrHvsBackendKind of b. */
PSNRHVS_API int psnrhvs_backend_kind(enum PsnrHvsBackend b);

/** @return 1 if backend b scores device pictures (PSNRHVS_MEMORY_DEVICE) held in
 *  CUDA memory, where NVDEC decodes frames (cuda), else 0 (auto included). */
PSNRHVS_API int psnrhvs_backend_reads_cuda_memory(enum PsnrHvsBackend b);

/** One device of one backend, as psnrhvs_devices() lists it. */
typedef struct PsnrHvsDeviceEntry {
    enum PsnrHvsBackend backend; ///< never auto
    int device;                  ///< its index in the backend (PsnrHvsDevice.device)
    int gpu;              ///< 1: a GPU; 0: a CPU (the host, or one behind a device API: PoCL,
                          ///< SYCL's OpenMP device, lavapipe)
    int physical;         ///< the physical device: 0 the host CPU, 1, 2... each GPU, equal for
                          ///< one GPU seen through several backends (CUDA, OpenCL, Vulkan)
    int automatic;        ///< 1: backend auto scores on it (the host CPU, each GPU once)
    char name[96];        ///< as the device's API names it
    char pci[16];         ///< PCI address "dddd:bb:dd" (lower case), or "" if unknown
    uint8_t reserved[32]; ///< zero; room to grow without an ABI break
} PsnrHvsDeviceEntry;

/** psnrhvs_devices()'s flags. */
enum PsnrHvsDevicesFlags {
    /** Only the devices auto scores on, asked as auto asks: no driver is
     *  loaded where the machine has no GPU, and none past the one that
     *  lists every GPU there is (CUDA where all are NVIDIA's). */
    PSNRHVS_DEVICES_AUTO = 1 << 0,
};

/**
 * Every device of every backend that opens, best backend first, the host
 * CPU last: the list auto takes its devices from (those with automatic set),
 * for front-ends to show and to spread work over. With
 * PSNRHVS_DEVICES_AUTO only the entries auto takes, at auto's cost;
 * without, every backend's driver is loaded to be asked. Each list is
 * made once a process. Fills list[0 .. min(n, max)).
 * @return n, the number of devices (at least 1, the host CPU), or a
 *         PSNRHVS_ERR code (EINVAL: list NULL with max > 0, unknown flags).
 */
PSNRHVS_API int psnrhvs_devices(PsnrHvsDeviceEntry *list, int max, unsigned flags);

/**
 * @return the cores this process may use: online ones within its affinity
 * mask and a container's CPU quota (cgroup), at least 1. Every thread count
 * of the library (threads = 0) starts from it.
 */
PSNRHVS_API int psnrhvs_cpu_count(void);

/**
 * @return the name of backend b ("auto", "cpu", "cuda", "opencl", "hip",
 * "sycl", "vulkan"), or NULL past the last: a front-end lists every backend,
 * built in or not, by counting b up from 0 until NULL.
 */
PSNRHVS_API const char *psnrhvs_backend_string(enum PsnrHvsBackend b);

/** @return the backend named name (as psnrhvs_backend_string), or PSNRHVS_ERR(EINVAL). */
PSNRHVS_API int psnrhvs_backend_from_string(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_DEVICES_H */
