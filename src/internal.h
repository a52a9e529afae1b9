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
};

#if defined(__GNUC__)
#define PSNRHVS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PSNRHVS_PRINTF(a, b)
#endif

/* One scorer (psnrhvs_open's single path, settings' list ignored), and its
 * queue without the final step: the mix's way to its scorers. */
int psh_open_scorer(PsnrHvsContext **out, const PsnrHvsSettings *s);
int psh_scorer_room(const PsnrHvsContext *c);
int psh_scorer_submit(PsnrHvsContext *c, const PsnrHvsPicture *ref, const PsnrHvsPicture *dist);
int psh_scorer_collect(PsnrHvsContext *c, float (*sums)[3]);
/* The backends auto may open, best first (lib.c's registry): each one's ops
 * if it opens (a module loaded), else NULL. */
int psh_registry_size(void);
enum PsnrHvsBackend psh_registry_id(int i);
const PsnrHvsBackendOps *psh_registry_ops(int i, const PsnrHvsSettings *s);
const char *psh_backend_id_name(enum PsnrHvsBackend b);

/* Formats one message and hands it to the settings' logger. */
void psh_log(const PsnrHvsContext *c, const char *fmt, ...) PSNRHVS_PRINTF(2, 3);
void psh_log_settings(const PsnrHvsSettings *s, const char *fmt, ...) PSNRHVS_PRINTF(2, 3);

/* Appends to buf (device lists), keeping it terminated; *used may pass size
 * (truncated). */
void psh_buf_put(char *buf, size_t size, size_t *used, const char *fmt, ...) PSNRHVS_PRINTF(4, 5);

#endif /* PSNRHVS_SRC_INTERNAL_H */
