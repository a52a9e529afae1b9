/*
 * The backend interface. The library (lib.c, frame.c) owns the settings, the
 * geometry and packed layout, the frame queue and the final step; a backend
 * only turns a picture pair, put into one of its slots, into the three f32
 * chain sums of its planes (src/core/ on its device), and hands them back.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_BACKEND_H
#define PSNRHVS_SRC_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "psnrhvs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device as auto sees it: a GPU (or a CPU behind a GPU API: PoCL, SYCL's
 * OpenMP device, lavapipe), and where it sits, to take each physical GPU
 * once: its PCI address "dddd:bb:dd" in lower case, or "" if unknown. */
typedef struct PsnrHvsDeviceInfo {
    int gpu;
    char pci[16];
    char vendor[16]; ///< "nvidia", "amd", "intel"..., lower case, or ""
    char name[96];   ///< as the device's API names it
} PsnrHvsDeviceInfo;

typedef struct PsnrHvsBackendOps {
    const char *name;
    enum PsnrHvsBackend id;
    int default_slots;   ///< frames in flight when settings.frames_in_flight is 0
    int device_pictures; ///< 1: takes PSNRHVS_MEMORY_DEVICE pictures (read in place)
    /* Set up c->slots slots for c->geom and set c->backend; 0 or a
     * PSNRHVS_ERR code (after logging why). */
    int (*open)(PsnrHvsContext *c);
    /* Score a frame into a free slot: a reference and the c->geom.renditions
     * distorted pictures dist[]. Host samples may not be read after the call
     * returns (the caller may reuse its buffers). c->queued frames are in
     * other slots. */
    int (*submit)(PsnrHvsContext *c, int slot, const PsnrHvsPicture *ref,
                  const PsnrHvsPicture *dist);
    /* Wait for a submitted slot and give each rendition's planes' f32 chain
     * sums, sums[r][p] (unused planes untouched); the slot is free
     * afterwards, even on error. */
    int (*collect)(PsnrHvsContext *c, int slot, float (*sums)[3]);
    void (*close)(PsnrHvsContext *c);
    /* Optional: describe the devices, one per line. */
    int (*list_devices)(int verbose, char *buf, size_t size);
    /* Optional: name of the instruction set in use (CPU only). */
    const char *(*isa_name)(const PsnrHvsContext *c);
    /* Optional, benchmarks (test_hooks.h): the kernels `iters` more times on
     * the frame last uploaded into slot 0, nothing queued; ms a frame or -1. */
    double (*resident_ms)(PsnrHvsContext *c, int iters);
    /* Optional: the devices for auto, up to max: how many there are. */
    int (*enumerate)(PsnrHvsDeviceInfo *info, int max);
    /* Optional: the context's own name for psnrhvs_backend_name() (the mix's). */
    const char *(*context_name)(const PsnrHvsContext *c);
    /* Optional: 1 while devices are still opening (psnrhvs_opening()). */
    int (*opening)(const PsnrHvsContext *c);
    /* Optional: host memory pictures will come from (psnrhvs_host_register(),
     * arguments checked); its end. 0 or a PSNRHVS_ERR code. */
    int (*host_register)(PsnrHvsContext *c, const void *data, size_t size);
    int (*host_unregister)(PsnrHvsContext *c, const void *data);
    /* 1: the host CPU's own backend (not a device API). */
    int host;
    /* 1: copies host frames into staging buffers with c->copy_pool. */
    int copies_frames;
} PsnrHvsBackendOps;

/* The registry (lib.c) lists the backends of the core, by HAVE_OPENCL etc.;
 * cuda and sycl are modules (module.h). */
extern const PsnrHvsBackendOps psh_backend_cpu;
extern const PsnrHvsBackendOps psh_backend_cuda;
extern const PsnrHvsBackendOps psh_backend_opencl;
extern const PsnrHvsBackendOps psh_backend_hip;
extern const PsnrHvsBackendOps psh_backend_sycl;
extern const PsnrHvsBackendOps psh_backend_vulkan;
/* Several scorers as one (mix.c): what psnrhvs_open() gives for auto and lists. */
extern const PsnrHvsBackendOps psh_backend_mix;

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_SRC_BACKEND_H */
