/*
 * Library-internal context and helpers shared by lib.c and the backends.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_INTERNAL_H
#define PSNRHVS_SRC_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "psnrhvs.h"
#include "backend.h"
#include "frame.h"

/* Host ranges registered with one context, at most. */
#define PSH_MAX_HOST_RANGES 16

struct PsnrHvsContext {
    PsnrHvsSettings s;
    PsnrHvsFrameGeometry geom;
    const PsnrHvsBackendOps *ops;
    void *backend;    ///< the backend's own state
    int auto_backend; ///< opened by backend auto: a device backend takes only GPUs
    /* The frame queue: slots [head, head + queued) (mod slots) hold frames
     * sent and not yet received, oldest first. */
    int slots;
    int head, queued;
    uint64_t tags[PSNRHVS_MAX_FRAMES_IN_FLIGHT];
    pthread_mutex_t lock; ///< one public call on the context at a time
    int profile;          ///< log per-stage device times at close (test_hooks.h)
    /* psnrhvs_host_register()'s ranges, in order (the backends are told). */
    const void *host_data[PSH_MAX_HOST_RANGES];
    size_t host_size[PSH_MAX_HOST_RANGES];
    int num_host;
    /* Threads that copy host frames to staging (ops->copies_frames): one
     * pool a context, shared by a mix's scorers. */
    struct PsnrHvsThreadPool *copy_pool;
    int own_copy_pool;
};

#if defined(__GNUC__)
#define PSNRHVS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PSNRHVS_PRINTF(a, b)
#endif

/* One scorer (psnrhvs_open's single path, settings' list ignored), and its
 * queue without the final step: the mix's way to its scorers. copy_pool:
 * the parent's pool for copying frames, or NULL (one of its own if needed). */
int psh_open_scorer(PsnrHvsContext **out, const PsnrHvsSettings *s,
                    struct PsnrHvsThreadPool *copy_pool);
/* The pool for copying frames of a context opened with threads = t (0:
 * the library's choice); NULL on failure. */
struct PsnrHvsThreadPool *psh_copy_pool_create(int threads);
int psh_scorer_room(const PsnrHvsContext *c);
int psh_scorer_submit(PsnrHvsContext *c, const PsnrHvsPicture *ref, const PsnrHvsPicture *dist);
int psh_scorer_collect(PsnrHvsContext *c, float (*sums)[3]);
/* The backends, best first for auto (registry.c): each one's ops if it
 * opens (a module loaded), else NULL with the reason in why. */
enum {
    PSH_REG_HOST = 1 << 0,         ///< the host CPU: auto always opens it
    PSH_REG_AUTO_GPUS = 1 << 1,    ///< auto scores on its GPUs
    PSH_REG_AUTO_IF_NONE = 1 << 2, ///< ... only where no backend before it found one
};
int psh_registry_size(void);
unsigned psh_registry_flags(int i);
unsigned psh_registry_pci_vendor(int i);
const PsnrHvsBackendOps *psh_registry_ops(int i, const PsnrHvsSettings *s, char *why,
                                          size_t why_size);
const PsnrHvsBackendOps *psh_find_backend(enum PsnrHvsBackend id, const PsnrHvsSettings *s,
                                          char *why, size_t why_size);
enum PsnrHvsBackend psh_host_backend(void);
const char *psh_backend_id_name(enum PsnrHvsBackend b);
/* Every device in list order (devices.c); every = 0: auto's walk, which
 * asks only as far as it must. */
void psh_devices_walk(const PsnrHvsSettings *s, int every,
                      void (*visit)(void *arg, const PsnrHvsDeviceEntry *e), void *arg);

/* Formats one message and hands it to the settings' logger. */
void psh_log(const PsnrHvsContext *c, const char *fmt, ...) PSNRHVS_PRINTF(2, 3);
void psh_log_settings(const PsnrHvsSettings *s, const char *fmt, ...) PSNRHVS_PRINTF(2, 3);

/* Appends to buf (device lists), keeping it terminated; *used may pass size
 * (truncated). */
void psh_buf_put(char *buf, size_t size, size_t *used, const char *fmt, ...) PSNRHVS_PRINTF(4, 5);

#endif /* PSNRHVS_SRC_INTERNAL_H */
