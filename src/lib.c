/*
 * Public entry points: settings checks, backend choice, the frame queue and
 * the final step from plane sums to scores. Backends only fill slots.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "module.h"
#include "test_hooks.h"
#include "thread_pool.h"

const char *psnrhvs_version(void) {
    return PSNRHVS_VERSION_STRING;
}

unsigned psnrhvs_version_api(void) {
    return (PSNRHVS_API_VERSION_MAJOR << 16) | (PSNRHVS_API_VERSION_MINOR << 8) |
           PSNRHVS_API_VERSION_PATCH;
}

void psnrhvs_default_settings(PsnrHvsSettings *const s) {
    if (!s) return;
    memset(s, 0, sizeof(*s));
    s->layout = PSNRHVS_PIXEL_LAYOUT_I420;
    s->bitdepth = 8;
    s->enable_chroma = 1;
    s->mask_product = PSNRHVS_MASK_PRODUCT_FLOAT;
    s->backend = PSNRHVS_BACKEND_AUTO;
    s->isa = PSNRHVS_ISA_AUTO;
}

static int check_settings(const PsnrHvsSettings *s) {
    if (s->width < 1 || s->height < 1 || s->width > PSNRHVS_MAX_DIMENSION ||
        s->height > PSNRHVS_MAX_DIMENSION) {
        psh_log_settings(s, "frame size %dx%d is out of range (1..%d per side)", s->width,
                         s->height, PSNRHVS_MAX_DIMENSION);
        return PSNRHVS_ERR(EINVAL);
    }
    if ((unsigned)s->layout > PSNRHVS_PIXEL_LAYOUT_I400) {
        psh_log_settings(s, "unknown pixel layout %d", (int)s->layout);
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->bitdepth > 12 && s->bitdepth <= 16) {
        psh_log_settings(s,
                         "bit depth %d is not supported: libvmaf's psnr_hvs accepts at most "
                         "12 bits (its f32 numerics are defined only up to 12)",
                         s->bitdepth);
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->bitdepth != 8 && s->bitdepth != 10 && s->bitdepth != 12) {
        psh_log_settings(s, "bit depth %d is not supported (8, 10 or 12)", s->bitdepth);
        return PSNRHVS_ERR(EINVAL);
    }
    if ((unsigned)s->mask_product > PSNRHVS_MASK_PRODUCT_EXACT) {
        psh_log_settings(s, "unknown mask_product %d", (int)s->mask_product);
        return PSNRHVS_ERR(EINVAL);
    }
    if ((unsigned)s->isa > PSNRHVS_ISA_NEON) {
        psh_log_settings(s, "unknown isa %d", (int)s->isa);
        return PSNRHVS_ERR(EINVAL);
    }
    if (psnrhvs_backend_kind(s->backend) == PSNRHVS_KIND_NONE) {
        psh_log_settings(s, "unknown backend %d", (int)s->backend);
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->threads < 0 || s->threads > PSNRHVS_MAX_THREADS) {
        psh_log_settings(s, "threads %d is out of range (0..%d, 0 = all cores)", s->threads,
                         PSNRHVS_MAX_THREADS);
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->frames_in_flight < 0 || s->frames_in_flight > PSNRHVS_MAX_FRAMES_IN_FLIGHT) {
        psh_log_settings(s, "frames_in_flight %d is out of range (0..%d, 0 = the backend's)",
                         s->frames_in_flight, PSNRHVS_MAX_FRAMES_IN_FLIGHT);
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->renditions < 0 || s->renditions > PSNRHVS_MAX_RENDITIONS) {
        psh_log_settings(s, "renditions %d is out of range (0..%d)", s->renditions,
                         PSNRHVS_MAX_RENDITIONS);
        return PSNRHVS_ERR(EINVAL);
    }
    if ((unsigned)s->memory > PSNRHVS_MEMORY_HOST_RETAINED) {
        psh_log_settings(s, "unknown memory %d", (int)s->memory);
        return PSNRHVS_ERR(EINVAL);
    }
    if ((s->chroma_interleaved || s->msb_aligned) && s->memory != PSNRHVS_MEMORY_DEVICE) {
        psh_log_settings(s, "chroma_interleaved and msb_aligned describe device pictures "
                            "(memory = device): host pictures are planar, low-aligned");
        return PSNRHVS_ERR(EINVAL);
    }
    if ((unsigned)s->chroma_interleaved > 1 || (unsigned)s->msb_aligned > 1 ||
        (unsigned)s->reference_on_host > 1) {
        psh_log_settings(s, "chroma_interleaved, msb_aligned and reference_on_host are 0 or 1");
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->reference_on_host && s->memory != PSNRHVS_MEMORY_DEVICE) {
        psh_log_settings(s, "reference_on_host goes with memory = device (the distorted "
                            "pictures on the device): with host memory every picture is");
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->msb_aligned && s->bitdepth == 8) {
        psh_log_settings(s, "msb_aligned needs samples above 8 bits (8-bit samples are bytes)");
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->device < 0) {
        psh_log_settings(s, "device %d is negative", s->device);
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->num_devices < 0 || s->num_devices > PSNRHVS_MAX_DEVICES ||
        (s->num_devices && !s->devices)) {
        psh_log_settings(s, "num_devices %d is out of range (0..%d, with devices[] given)",
                         s->num_devices, PSNRHVS_MAX_DEVICES);
        return PSNRHVS_ERR(EINVAL);
    }
    for (int i = 0; i < s->num_devices; i++) {
        const PsnrHvsDevice *const d = &s->devices[i];
        const int kind = psnrhvs_backend_kind(d->backend);
        if (kind == PSNRHVS_KIND_NONE || kind == PSNRHVS_KIND_AUTO || d->device < 0) {
            psh_log_settings(s,
                             "devices[%d] is backend %d, device %d: a backend other than "
                             "auto and a device index from 0",
                             i, (int)d->backend, d->device);
            return PSNRHVS_ERR(EINVAL);
        }
    }
    if (s->memory == PSNRHVS_MEMORY_DEVICE && s->num_devices > 1) {
        psh_log_settings(s,
                         "device pictures are scored on the device that holds them: "
                         "give one device, not %d",
                         s->num_devices);
        return PSNRHVS_ERR(EINVAL);
    }
    return 0;
}

static int open_backend(PsnrHvsContext *const c, const PsnrHvsBackendOps *const ops) {
    if (c->s.memory == PSNRHVS_MEMORY_DEVICE && !ops->device_pictures) {
        psh_log(c, "backend %s takes no device pictures (memory = device needs cuda or hip)",
                ops->name);
        return PSNRHVS_ERR(ENOSYS);
    }
    c->ops = ops;
    c->s.backend = ops->id;
    c->slots = c->s.frames_in_flight ? c->s.frames_in_flight : ops->default_slots;
    c->profile = psh_test_profile(ops->id);
    /* The threads a backend starts (its pool, a GPU runtime's) inherit every
     * signal blocked: the caller's signals are its own threads' to take. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int err = 0;
    if (ops->copies_frames && !c->copy_pool) {
        c->own_copy_pool = !!(c->copy_pool = psh_copy_pool_create(c->s.threads));
        if (!c->copy_pool) err = PSNRHVS_ERR(ENOMEM);
    }
    if (!err) err = ops->open(c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err && c->own_copy_pool) {
        psh_thread_pool_destroy(c->copy_pool);
        c->copy_pool = NULL, c->own_copy_pool = 0;
    }
    return err;
}

/* Copying a frame is memory-bound: more than 16 threads gain nothing. */
#define MAX_COPY_THREADS 16

PsnrHvsThreadPool *psh_copy_pool_create(const int threads) {
    const int n = psh_cpu_count();
    return psh_thread_pool_create(threads > 0            ? threads
                                  : n > MAX_COPY_THREADS ? MAX_COPY_THREADS
                                                         : n);
}

/* One scorer: c->s.backend (auto: the first that opens, for device
 * pictures) on c->s.device. */
static int open_one(PsnrHvsContext *const c) {
    char why[1024];
    int err = PSNRHVS_ERR(ENOSYS);
    if (psnrhvs_backend_kind(c->s.backend) == PSNRHVS_KIND_AUTO) {
        /* Each device backend in registry order, then the CPU. */
        c->auto_backend = 1;
        for (int i = 0; i < psh_registry_size(); i++) {
            const unsigned flags = psh_registry_flags(i);
            if (flags & PSH_REG_AUTO_IF_NONE) continue;
            const PsnrHvsBackendOps *const ops = psh_registry_ops(i, &c->s, why, sizeof(why));
            if (!ops) {
                psh_log(c, "%s, trying the next backend", why);
                err = PSNRHVS_ERR(ENOSYS);
                continue;
            }
            if (!(err = open_backend(c, ops))) break;
            if (!(flags & PSH_REG_HOST))
                psh_log(c, "backend %s unavailable, trying the next one", ops->name);
        }
        return err;
    }
    const PsnrHvsBackendOps *const ops = psh_find_backend(c->s.backend, &c->s, why, sizeof(why));
    if (!ops) {
        psh_log(c, "%s", why);
        return PSNRHVS_ERR(ENOSYS);
    }
    return open_backend(c, ops);
}

/* A context with c->s set: one scorer, or several under the mix. */
static int new_context(PsnrHvsContext **const out, const PsnrHvsSettings *const s,
                       const int several, PsnrHvsThreadPool *const copy_pool) {
    PsnrHvsContext *const c = calloc(1, sizeof(*c));
    if (!c) return PSNRHVS_ERR(ENOMEM);
    c->s = *s;
    c->copy_pool = copy_pool;
    int err = psh_frame_geometry(&c->geom, &c->s);
    if (!err) err = several ? open_backend(c, &psh_backend_mix) : open_one(c);
    if (!err && pthread_mutex_init(&c->lock, NULL)) {
        c->ops->close(c);
        if (c->own_copy_pool) psh_thread_pool_destroy(c->copy_pool);
        err = PSNRHVS_ERR(ENOMEM);
    }
    if (err) {
        free(c);
        return err;
    }
    *out = c;
    return 0;
}

int psh_open_scorer(PsnrHvsContext **const out, const PsnrHvsSettings *const s,
                    PsnrHvsThreadPool *const copy_pool) {
    PsnrHvsSettings one = *s;
    one.num_devices = 0, one.devices = NULL;
    return new_context(out, &one, 0, copy_pool);
}

int psnrhvs_open(PsnrHvsContext **const out, const PsnrHvsSettings *const s) {
    if (!out) return PSNRHVS_ERR(EINVAL);
    *out = NULL;
    if (!s) return PSNRHVS_ERR(EINVAL);
    const int err = check_settings(s);
    if (err) return err;
    /* Device pictures stay on their device: one scorer there. */
    const int device_pictures = s->memory == PSNRHVS_MEMORY_DEVICE;
    if (s->num_devices == 1 || (device_pictures && s->num_devices)) {
        PsnrHvsSettings one = *s;
        one.backend = s->devices[0].backend, one.device = s->devices[0].device;
        return psh_open_scorer(out, &one, NULL);
    }
    const int several = !device_pictures && (s->num_devices > 1 ||
                                             psnrhvs_backend_kind(s->backend) == PSNRHVS_KIND_AUTO);
    return several ? new_context(out, s, 1, NULL) : psh_open_scorer(out, s, NULL);
}

void psnrhvs_raw_to_db(PsnrHvsScore *const o) {
    /* libvmaf's expressions, in its order (spec section 4). */
    const double y = o->raw[0], cb = o->raw[1], cr = o->raw[2];
    o->psnr_hvs_y = 10 * (-1 * log10(1.0 * y));
    if (o->num_planes == 1) {
        o->psnr_hvs_cb = o->psnr_hvs_cr = 0.0;
        o->psnr_hvs = o->psnr_hvs_y;
        return;
    }
    o->psnr_hvs_cb = 10 * (-1 * log10(1.0 * cb));
    o->psnr_hvs_cr = 10 * (-1 * log10(1.0 * cr));
    o->psnr_hvs = 10 * (-1 * log10(1.0 * (y * 0.8 + 0.1 * (cb + cr))));
}

static int check_picture(const PsnrHvsContext *c, const PsnrHvsPicture *p) {
    if (!p) return 0;
    for (int i = 0; i < c->geom.num_planes; i++)
        if (!p->data[i] || p->stride[i] < (ptrdiff_t)c->geom.plane[i].row_bytes) return 0;
    return 1;
}

int psh_scorer_room(const PsnrHvsContext *const c) {
    return c->slots - c->queued;
}

int psh_scorer_submit(PsnrHvsContext *const c, const PsnrHvsPicture *const ref,
                      const PsnrHvsPicture *const dist) {
    if (c->queued == c->slots) return PSNRHVS_ERR(EAGAIN);
    const int slot = (c->head + c->queued) % c->slots;
    const int err = c->ops->submit(c, slot, ref, dist);
    if (err) return err;
    c->queued++;
    return 0;
}

int psh_scorer_collect(PsnrHvsContext *const c, float (*const sums)[3]) {
    if (!c->queued) return PSNRHVS_ERR(EAGAIN);
    const int err = c->ops->collect(c, c->head, sums);
    c->head = (c->head + 1) % c->slots;
    c->queued--;
    return err;
}

static int send_locked(PsnrHvsContext *const c, const PsnrHvsPicture *const ref,
                       const PsnrHvsPicture *const dist, const uint64_t tag) {
    if (!check_picture(c, ref) || !dist) return PSNRHVS_ERR(EINVAL);
    for (int r = 0; r < c->geom.renditions; r++)
        if (!check_picture(c, &dist[r])) return PSNRHVS_ERR(EINVAL);
    const int slot = (c->head + c->queued) % c->slots;
    const int err = psh_scorer_submit(c, ref, dist);
    if (!err) c->tags[slot] = tag;
    return err;
}

static int receive_locked(PsnrHvsContext *const c, PsnrHvsScore *const out) {
    const int slot = c->head;
    float sums[PSNRHVS_MAX_RENDITIONS][3] = {{0.0f}};
    const int err = psh_scorer_collect(c, sums);
    if (err) return err;
    for (int r = 0; r < c->geom.renditions; r++) {
        PsnrHvsScore *const o = &out[r];
        memset(o, 0, sizeof(*o));
        o->num_planes = c->geom.num_planes;
        o->tag = c->tags[slot];
        for (int p = 0; p < c->geom.num_planes; p++)
            o->raw[p] = psh_frame_finish(&c->geom, p, sums[r][p]);
        psnrhvs_raw_to_db(o);
    }
    return 0;
}

/* psnrhvs_send/receive/score take one distorted picture a frame. */
static int one_rendition(PsnrHvsContext *const c) {
    if (c->geom.renditions == 1) return 1;
    psh_log(c, "a context of %d renditions takes psnrhvs_send_ladder()", c->geom.renditions);
    return 0;
}

int psnrhvs_send(PsnrHvsContext *const c, const PsnrHvsPicture *const ref,
                 const PsnrHvsPicture *const dist, const uint64_t tag) {
    if (!c || !one_rendition(c)) return PSNRHVS_ERR(EINVAL);
    pthread_mutex_lock(&c->lock);
    const int err = send_locked(c, ref, dist, tag);
    pthread_mutex_unlock(&c->lock);
    return err;
}

int psnrhvs_send_ladder(PsnrHvsContext *const c, const PsnrHvsPicture *const ref,
                        const PsnrHvsPicture *const dist, const uint64_t tag) {
    if (!c) return PSNRHVS_ERR(EINVAL);
    pthread_mutex_lock(&c->lock);
    const int err = send_locked(c, ref, dist, tag);
    pthread_mutex_unlock(&c->lock);
    return err;
}

int psnrhvs_receive(PsnrHvsContext *const c, PsnrHvsScore *const out) {
    if (!c || !out || !one_rendition(c)) return PSNRHVS_ERR(EINVAL);
    pthread_mutex_lock(&c->lock);
    const int err = receive_locked(c, out);
    pthread_mutex_unlock(&c->lock);
    return err;
}

int psnrhvs_receive_ladder(PsnrHvsContext *const c, PsnrHvsScore *const out) {
    if (!c || !out) return PSNRHVS_ERR(EINVAL);
    pthread_mutex_lock(&c->lock);
    const int err = receive_locked(c, out);
    pthread_mutex_unlock(&c->lock);
    return err;
}

int psnrhvs_score(PsnrHvsContext *const c, const PsnrHvsPicture *const ref,
                  const PsnrHvsPicture *const dist, PsnrHvsScore *const out) {
    if (!c || !out || !one_rendition(c)) return PSNRHVS_ERR(EINVAL);
    pthread_mutex_lock(&c->lock);
    int err = c->queued ? PSNRHVS_ERR(EBUSY) : send_locked(c, ref, dist, 0);
    if (!err) err = receive_locked(c, out);
    pthread_mutex_unlock(&c->lock);
    return err;
}

static int find_host(const PsnrHvsContext *const c, const void *const data) {
    for (int i = 0; i < c->num_host; i++)
        if (c->host_data[i] == data) return i;
    return -1;
}

/* Does [a, a + size) touch a mapped file's pages (or can that not be told)?
 * Page-locking them hung in NVIDIA's driver and the run never ended
 * (bench/RESULTS.md); so only anonymous memory is registered. */
static int file_backed(const uintptr_t a, const size_t size) {
#if defined(__linux__)
    FILE *const f = fopen("/proc/self/maps", "r");
    if (!f) return 1;
    char line[512];
    int found = 0, at_start = 1;
    while (!found && fgets(line, sizeof(line), f)) {
        const int whole = at_start;
        at_start = strchr(line, '\n') != NULL; /* a long path's rest is no line of its own */
        unsigned long lo, hi, off, inode;
        unsigned major, minor;
        char perms[8];
        if (whole &&
            sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &lo, &hi, perms, &off, &major, &minor,
                   &inode) == 7 &&
            lo < a + size && a < hi && inode)
            found = 1;
    }
    fclose(f);
    return found;
#else
    (void)a, (void)size;
    return 0;
#endif
}

int psnrhvs_host_register(PsnrHvsContext *const c, const void *const data, const size_t size) {
    if (!c || !data || !size) return PSNRHVS_ERR(EINVAL);
    pthread_mutex_lock(&c->lock);
    const uintptr_t a = (uintptr_t)data;
    int err = c->s.memory != PSNRHVS_MEMORY_HOST_RETAINED || size > UINTPTR_MAX - a
                  ? PSNRHVS_ERR(EINVAL)
              : c->num_host == PSH_MAX_HOST_RANGES ? PSNRHVS_ERR(ENOMEM)
              : file_backed(a, size)               ? PSNRHVS_ERR(ENOTSUP)
                                                   : 0;
    for (int i = 0; !err && i < c->num_host; i++) { /* overlapping one registered */
        const uintptr_t b = (uintptr_t)c->host_data[i];
        if (a < b + c->host_size[i] && b < a + size) err = PSNRHVS_ERR(EINVAL);
    }
    if (!err && c->ops->host_register) err = c->ops->host_register(c, data, size);
    if (!err) {
        c->host_data[c->num_host] = data;
        c->host_size[c->num_host++] = size;
    }
    pthread_mutex_unlock(&c->lock);
    return err;
}

static void host_unregister_locked(PsnrHvsContext *const c, const int i) {
    if (c->ops->host_unregister) c->ops->host_unregister(c, c->host_data[i]);
    for (int k = i + 1; k < c->num_host; k++) {
        c->host_data[k - 1] = c->host_data[k];
        c->host_size[k - 1] = c->host_size[k];
    }
    c->num_host--;
}

int psnrhvs_host_unregister(PsnrHvsContext *const c, const void *const data) {
    if (!c) return PSNRHVS_ERR(EINVAL);
    pthread_mutex_lock(&c->lock);
    const int i = find_host(c, data);
    if (i >= 0) host_unregister_locked(c, i);
    pthread_mutex_unlock(&c->lock);
    return i >= 0 ? 0 : PSNRHVS_ERR(EINVAL);
}

void psnrhvs_close(PsnrHvsContext **const pc) {
    if (!pc || !*pc) return;
    PsnrHvsContext *c = *pc;
    while (c->num_host) host_unregister_locked(c, c->num_host - 1);
    c->ops->close(c);
    if (c->own_copy_pool) psh_thread_pool_destroy(c->copy_pool);
    pthread_mutex_destroy(&c->lock);
    free(c);
    *pc = NULL;
}

const char *psnrhvs_backend_name(const PsnrHvsContext *c) {
    return !c ? NULL : c->ops->context_name ? c->ops->context_name(c) : c->ops->name;
}

int psnrhvs_opening(const PsnrHvsContext *c) {
    return c && c->ops->opening ? c->ops->opening(c) : 0;
}

const char *psnrhvs_isa_name(const PsnrHvsContext *c) {
    return c && c->ops->isa_name ? c->ops->isa_name(c) : NULL;
}
