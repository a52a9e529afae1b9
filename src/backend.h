/*
 * The backend interface: each backend is a thin host around src/core/ that
 * turns picture pairs into raw f32 plane scores. lib.c does everything else.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_BACKEND_H
#define PSNRHVS_SRC_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "psnrhvs.h"

typedef struct PsnrHvsBackendOps {
    const char *name;
    enum PsnrHvsBackend id;
    /* Set c->backend; returns 0 or a PSNRHVS_ERR code (after logging why). */
    int (*open)(PsnrHvsContext *c);
    /* Queue one pair (copying what it needs); PSNRHVS_ERR(EAGAIN) when full. */
    int (*send)(PsnrHvsContext *c, const PsnrHvsPicture *ref, const PsnrHvsPicture *dist,
                uint64_t tag);
    /* The oldest queued pair's raw plane scores, waiting for them. */
    int (*receive)(PsnrHvsContext *c, float raw[3], uint64_t *tag);
    void (*close)(PsnrHvsContext *c);
    /* Optional: describe the devices, one per line. */
    int (*list_devices)(int verbose, char *buf, size_t size);
    /* Optional: name of the instruction set in use (CPU only). */
    const char *(*isa_name)(const PsnrHvsContext *c);
} PsnrHvsBackendOps;

/* The registry (lib.c) lists those built in, by HAVE_CUDA etc. */
extern const PsnrHvsBackendOps psnrhvs_backend_cpu;
extern const PsnrHvsBackendOps psnrhvs_backend_cuda;
extern const PsnrHvsBackendOps psnrhvs_backend_opencl;
extern const PsnrHvsBackendOps psnrhvs_backend_hip;

#endif /* PSNRHVS_SRC_BACKEND_H */
