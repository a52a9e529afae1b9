/*
 * Several scorers as one context: the CPU from the first frame, every GPU as
 * it opens (auto), or the scorers a settings list names. Every backend gives
 * the same bits, so a frame may go to any of them; lib.c's queue returns the
 * scores in send order. Which scorers take frames is measured, not guessed:
 * once the devices are open and warm, their rate alone is measured, then
 * with the CPU beside them; the CPU keeps a share only if the mix is
 * faster, and takes every frame if it alone is the fastest.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "test_hooks.h"
#include "thread_pool.h"
#include "thread_start.h"

#define MAX_CHILDREN PSNRHVS_MAX_DEVICES

/* Frames in flight of a device in a mix with the CPU: cuda's own default.
 * More, to run further ahead of the CPU's older frames, made 4K default
 * runs slower (bench/RESULTS.md); the CPU rarely keeps a share beside a GPU
 * anyway (MIX_CPU_MIN_SHARE). */
#define MIX_DEVICE_SLOTS 4
/* A CPU slower than this share of the devices is not worth measuring: a
 * trial with a small share costs more than it can gain (its threads slow
 * the devices' packing; bench/RESULTS.md). */
#define MIX_CPU_MIN_SHARE 0.25
/* The mix must beat the devices alone by this much to keep the CPU: its
 * frames take cores from the devices' packing too. */
#define MIX_GAIN 1.05
/* Frames between two measurements once settled: a rate taken while a device
 * was still warming up (first uses of its pinned buffers) must not decide
 * for the whole clip. */
#define MIX_RECHECK 2048
/* The devices' rate is taken again while a window beats the last by this
 * much, at most this many times. */
#define MIX_STABLE      1.1
#define MIX_MAX_WINDOWS 6
/* With frames_hint: the CPU's rate is taken on this many frames before any
 * GPU opens, and a clip it scores in less than MIX_CPU_ALONE_S opens none:
 * a GPU's driver that starts for nothing costs its start-up and its
 * teardown at exit. The bar is where CUDA alone, start and exit included,
 * matched the CPU alone (bench/RESULTS.md). */
#define MIX_RATE_FRAMES 4
#define MIX_CPU_ALONE_S 0.4
/* A few frames a millisecond apart (1080p) rate the CPU badly, and its
 * first frames are slower than the rest (threads waking, pages touched
 * first): a clip just past the bar was read as over it, and opened a GPU
 * whose teardown at exit cost more than it gained. A clip within a factor
 * of MIX_CLEAR of the bar is decided on the rate after the first
 * MIX_RATE_FRAMES, once those frames span MIX_RATE_SPAN_S (or
 * MIX_RATE_MAX_FRAMES came). */
#define MIX_CLEAR           1.5
#define MIX_RATE_SPAN_S     0.05
#define MIX_RATE_MAX_FRAMES 64

enum Phase {
    PHASE_OPENING,      ///< devices still opening: the CPU, and any device that joined
    PHASE_DEVICES_RATE, ///< the devices alone, measured
    PHASE_MIX_RATE,     ///< the devices and the CPU's share, measured
    PHASE_SETTLED,      ///< the choice made: cpu_share is final
};

typedef struct Child {
    PsnrHvsContext *ctx;
    int is_cpu;
    char label[24];  ///< "cuda:0"
    uint64_t frames; ///< scored (received)
} Child;

typedef struct Mix {
    pthread_mutex_t lock; ///< children joining (the opener) against submit
    Child child[MAX_CHILDREN];
    _Atomic int nchild; ///< joined, in order; only grows
    int cpu;            ///< index of the CPU scorer, or -1
    int slot_child[PSNRHVS_MAX_FRAMES_IN_FLIGHT];

    /* The opener thread (auto): discovery, then each device, stopping
     * between steps once the context closes (close waits for the step under
     * way: a driver's start-up cannot be interrupted). */
    pthread_t opener;
    int opener_started;
    _Atomic int opening;  ///< the opener has work left
    int closed;           ///< under lock: the context is closing
    PsnrHvsSettings base; ///< for the scorers (no list, no module_dir change)
    PsnrHvsDevice list[MAX_CHILDREN];
    int nlist;
    int discover;

    /* The policy (under the context's lock: submit and collect). */
    enum Phase phase;
    double cpu_share, credit;
    double t_first; ///< the phase's first frame received
    int received;   ///< frames received in the phase (sent in it)
    int warm;       ///< of which the first are not measured: the pipeline filling
    int window;
    uint64_t settled_at; ///< sent_total when the phase became PHASE_SETTLED
    uint64_t sent_total;
    uint64_t phase_first_frame; ///< frames sent from here on count for the phase
    uint64_t slot_frame[PSNRHVS_MAX_FRAMES_IN_FLIGHT];
    double cpu_rate, device_rate;
    int windows; ///< of the devices' rate, measured so far
    int cpu_received;
    double cpu_t0, cpu_tw; ///< its first frame received, its MIX_RATE_FRAMES-th
    int deferred;          ///< frames_hint: the opener waits for the CPU's rate
    double t_cpu_sent;     ///< the CPU's first frame sent

    PsnrHvsThreadPool *copy_pool; ///< the scorers' one pool for copying frames (under lock)
    char name[MAX_CHILDREN * 24];
    /* psnrhvs_host_register()'s ranges (under lock), for scorers that join later. */
    const void *host_data[PSH_MAX_HOST_RANGES];
    size_t host_size[PSH_MAX_HOST_RANGES];
    int num_host;
} Mix;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void label(char *const out, const size_t size, const PsnrHvsContext *const c) {
    if (c->ops->host)
        snprintf(out, size, "cpu");
    else
        snprintf(out, size, "%s:%d", c->ops->name, c->s.device);
}

/* Children's settings: the context's, one scorer each. */
static PsnrHvsSettings scorer_settings(const Mix *const m, const enum PsnrHvsBackend b,
                                       const int device, const int with_cpu) {
    PsnrHvsSettings s = m->base;
    s.backend = b, s.device = device;
    s.num_devices = 0, s.devices = NULL;
    if (!s.frames_in_flight && with_cpu && psnrhvs_backend_kind(b) != PSNRHVS_KIND_HOST)
        s.frames_in_flight = MIX_DEVICE_SLOTS;
    return s;
}

static void join(Mix *const m, PsnrHvsContext *c) {
    pthread_mutex_lock(&m->lock);
    const int n = atomic_load(&m->nchild);
    if (n < MAX_CHILDREN && !m->closed) {
        /* what the caller registered so far (a failure: its frames are copied) */
        for (int i = 0; c->ops->host_register && i < m->num_host; i++)
            c->ops->host_register(c, m->host_data[i], m->host_size[i]);
        m->child[n].ctx = c;
        m->child[n].is_cpu = c->ops->host;
        label(m->child[n].label, sizeof(m->child[n].label), c);
        if (m->child[n].is_cpu) m->cpu = n;
        atomic_store(&m->nchild, n + 1);
        c = NULL;
    }
    pthread_mutex_unlock(&m->lock);
    if (c) psnrhvs_close(&c);
}

/* The pool, made when the first device scorer opens (a CPU-only mix needs
 * none); NULL if it cannot be: each scorer then makes its own. */
static PsnrHvsThreadPool *copy_pool(Mix *const m) {
    pthread_mutex_lock(&m->lock);
    if (!m->copy_pool) m->copy_pool = psh_copy_pool_create(m->base.threads);
    PsnrHvsThreadPool *const pool = m->copy_pool;
    pthread_mutex_unlock(&m->lock);
    return pool;
}

static int is_closed(Mix *const m) {
    pthread_mutex_lock(&m->lock);
    const int closed = m->closed;
    pthread_mutex_unlock(&m->lock);
    return closed;
}

/* Opens one device scorer and joins it; a failure is logged, the others go on. */
static void open_device(Mix *const m, const PsnrHvsDevice *const d) {
    const int delay = psh_test_mix_open_delay_ms();
    if (delay > 0) {
        const struct timespec ts = {delay / 1000, (long)(delay % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (is_closed(m)) return;
    const PsnrHvsSettings s = scorer_settings(m, d->backend, d->device, 1);
    PsnrHvsContext *c = NULL;
    if (!psh_open_scorer(&c, &s, copy_pool(m)))
        join(m, c);
    else if (!is_closed(m))
        psh_log_settings(&m->base, "%s:%d did not open: scoring without it",
                         psh_backend_id_name(d->backend), d->device);
}

/* auto: the devices the list (devices.c) marks automatic, each opened as
 * soon as the walk finds it, so that CUDA's scores while OpenCL's and
 * Vulkan's drivers load to be asked. The list is walked once a process
 * (probing loads drivers); later contexts open from what it found. */
typedef struct Found {
    Mix *m;
    PsnrHvsDevice dev[MAX_CHILDREN];
    int n;
} Found;

static void found_one(void *const arg, const PsnrHvsDeviceEntry *const e) {
    Found *const f = arg;
    if (!e->automatic || !e->gpu || f->n == MAX_CHILDREN) return;
    f->dev[f->n++] = (PsnrHvsDevice){e->backend, e->device};
    if (!is_closed(f->m)) open_device(f->m, &f->dev[f->n - 1]);
}

static void discover_and_open(Mix *const m) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int done;
    static Found found;
    pthread_mutex_lock(&lock);
    if (done) {
        pthread_mutex_unlock(&lock);
        for (int i = 0; i < found.n && !is_closed(m); i++) open_device(m, &found.dev[i]);
        return;
    }
    found.m = m;
    psh_devices_walk(&m->base, 0, found_one, &found);
    found.m = NULL;
    done = 1;
    pthread_mutex_unlock(&lock);
}

static void *opener_main(void *const arg) {
    Mix *const m = arg;
    if (m->discover && !psh_test_mix_devices(m->list, &m->nlist, MAX_CHILDREN)) {
        if (!is_closed(m)) discover_and_open(m);
    } else {
        for (int i = 0; i < m->nlist && !is_closed(m); i++) open_device(m, &m->list[i]);
    }
    atomic_store(&m->opening, 0);
    return NULL;
}

static void start_opener(Mix *const m) {
    m->opener_started = !psh_thread_create(&m->opener, opener_main, m);
    if (!m->opener_started) opener_main(m);
}

static int mix_host_register(PsnrHvsContext *const c, const void *const data, const size_t size) {
    Mix *const m = c->backend;
    pthread_mutex_lock(&m->lock);
    m->host_data[m->num_host] = data;
    m->host_size[m->num_host++] = size;
    for (int i = 0; i < atomic_load(&m->nchild); i++) {
        PsnrHvsContext *const k = m->child[i].ctx;
        if (k->ops->host_register) k->ops->host_register(k, data, size);
    }
    pthread_mutex_unlock(&m->lock);
    return 0;
}

static int mix_host_unregister(PsnrHvsContext *const c, const void *const data) {
    Mix *const m = c->backend;
    pthread_mutex_lock(&m->lock);
    for (int i = 0; i < atomic_load(&m->nchild); i++) {
        PsnrHvsContext *const k = m->child[i].ctx;
        if (k->ops->host_unregister) k->ops->host_unregister(k, data);
    }
    int n = 0;
    for (int i = 0; i < m->num_host; i++)
        if (m->host_data[i] != data)
            m->host_data[n] = m->host_data[i], m->host_size[n++] = m->host_size[i];
    m->num_host = n;
    pthread_mutex_unlock(&m->lock);
    return 0;
}

static void mix_close(PsnrHvsContext *const c) {
    Mix *const m = c->backend;
    if (!m) return;
    pthread_mutex_lock(&m->lock);
    m->closed = 1;
    pthread_mutex_unlock(&m->lock);
    if (m->opener_started) pthread_join(m->opener, NULL);
    for (int i = 0; i < atomic_load(&m->nchild); i++) psnrhvs_close(&m->child[i].ctx);
    psh_thread_pool_destroy(m->copy_pool);
    pthread_mutex_destroy(&m->lock);
    free(m);
    c->backend = NULL;
}

static int mix_open(PsnrHvsContext *const c) {
    Mix *const m = calloc(1, sizeof(*m));
    if (!m) return PSNRHVS_ERR(ENOMEM);
    if (pthread_mutex_init(&m->lock, NULL)) {
        free(m);
        return PSNRHVS_ERR(ENOMEM);
    }
    c->backend = m;
    m->base = c->s;
    m->cpu = -1;
    m->phase = PHASE_OPENING;
    /* The parent's queue holds what its scorers hold. */
    c->slots = PSNRHVS_MAX_FRAMES_IN_FLIGHT;
    int err = 0;
    if (!c->s.num_devices) {
        /* auto: the CPU now, the devices on the opener's thread. */
        m->discover = 1;
        const PsnrHvsSettings s = scorer_settings(m, psh_host_backend(), 0, 1);
        PsnrHvsContext *cpu = NULL;
        if ((err = psh_open_scorer(&cpu, &s, NULL))) goto error;
        join(m, cpu);
        atomic_store(&m->opening, 1);
        if (c->s.frames_hint) {
            m->deferred = 1; /* measure() decides */
            return 0;
        }
        start_opener(m);
        return 0;
    }
    /* A list: every scorer opens here, or the context does not. */
    int with_cpu = 0;
    for (int i = 0; i < c->s.num_devices; i++)
        with_cpu |= psnrhvs_backend_kind(c->s.devices[i].backend) == PSNRHVS_KIND_HOST;
    for (int i = 0; i < c->s.num_devices; i++) {
        const PsnrHvsSettings s =
            scorer_settings(m, c->s.devices[i].backend, c->s.devices[i].device, with_cpu);
        PsnrHvsContext *sc = NULL;
        if ((err = psh_open_scorer(&sc, &s, copy_pool(m)))) goto error;
        join(m, sc);
    }
    return 0;
error:
    mix_close(c);
    return err;
}

/* The device with the most room, or -1. */
static int roomiest_device(const Mix *const m, const int n) {
    int best = -1, room = 0;
    for (int i = 0; i < n; i++) {
        if (m->child[i].is_cpu) continue;
        const int r = psh_scorer_room(m->child[i].ctx);
        if (r > room) best = i, room = r;
    }
    return best;
}

static int has_devices(const Mix *const m, const int n) {
    for (int i = 0; i < n; i++)
        if (!m->child[i].is_cpu) return 1;
    return 0;
}

static void start_phase(Mix *const m, const enum Phase p, const int n) {
    m->phase = p;
    m->received = 0;
    m->phase_first_frame = m->sent_total;
    int slots = 0;
    for (int i = 0; i < n; i++)
        if (!m->child[i].is_cpu) slots += m->child[i].ctx->slots;
    m->warm = 2 * slots;
    m->window = 8 * slots > 64 ? 8 * slots : 64;
}

static void start_rating(Mix *const m, const int n) {
    m->windows = 0;
    m->device_rate = 0.0;
    start_phase(m, PHASE_DEVICES_RATE, n);
}

static void settle(Mix *const m, const double cpu_share) {
    m->phase = PHASE_SETTLED;
    m->cpu_share = cpu_share;
    m->settled_at = m->sent_total;
}

/* Which scorer takes the next frame, or -1 (wait: receive first). */
static int choose(Mix *const m) {
    const int n = atomic_load(&m->nchild);
    const int cpu = m->cpu;
    if (m->phase == PHASE_OPENING && !atomic_load(&m->opening) && has_devices(m, n) && cpu >= 0)
        start_rating(m, n);
    if (m->phase == PHASE_OPENING && !atomic_load(&m->opening) && (!has_devices(m, n) || cpu < 0))
        settle(m, cpu >= 0 && !has_devices(m, n) ? 1.0 : 0.0), m->settled_at = UINT64_MAX;
    if (m->phase == PHASE_SETTLED && m->sent_total - m->settled_at > MIX_RECHECK &&
        m->settled_at != UINT64_MAX)
        start_rating(m, n);
    const int dev = roomiest_device(m, n);
    const int cpu_room = cpu >= 0 && psh_scorer_room(m->child[cpu].ctx) > 0;
    switch (m->phase) {
    case PHASE_OPENING:
        /* The devices that joined first, the CPU while none has room. */
        if (dev >= 0) return dev;
        return cpu_room && !has_devices(m, n) ? cpu : -1;
    case PHASE_DEVICES_RATE:
        return dev;
    case PHASE_MIX_RATE:
    case PHASE_SETTLED:
        if (cpu >= 0 && m->cpu_share > 0.0) {
            if (m->cpu_share >= 1.0) return cpu_room ? cpu : -1;
            m->credit += m->cpu_share;
            if (m->credit >= 1.0 && cpu_room) {
                m->credit -= 1.0;
                return cpu;
            }
        }
        return dev;
    }
    return -1;
}

static int mix_submit(PsnrHvsContext *const c, const int slot, const PsnrHvsPicture *const ref,
                      const PsnrHvsPicture *const dist) {
    Mix *const m = c->backend;
    const int k = choose(m);
    if (k < 0) return PSNRHVS_ERR(EAGAIN);
    const int err = psh_scorer_submit(m->child[k].ctx, ref, dist);
    if (err) return err;
    if (k == m->cpu && !m->t_cpu_sent) m->t_cpu_sent = now_s();
    m->slot_child[slot] = k;
    m->slot_frame[slot] = m->sent_total++;
    return 0;
}

/* The rates behind the policy, from the frames received. */
static void measure(Mix *const m, const int k, const uint64_t frame) {
    const double t = now_s();
    const int n = atomic_load(&m->nchild);
    if (m->phase == PHASE_OPENING && m->child[k].is_cpu) {
        if (!m->cpu_received++) m->cpu_t0 = t;
        if (m->cpu_received == MIX_RATE_FRAMES) m->cpu_tw = t;
        /* The steady rate once there is one, the first frames left out. */
        if (m->cpu_received > MIX_RATE_FRAMES + 1 && t > m->cpu_tw)
            m->cpu_rate = (m->cpu_received - MIX_RATE_FRAMES) / (t - m->cpu_tw);
        else if (m->cpu_received > 1 && t > m->cpu_t0)
            m->cpu_rate = (m->cpu_received - 1) / (t - m->cpu_t0);
        if (m->deferred && m->cpu_received >= MIX_RATE_FRAMES && m->cpu_rate > 0) {
            /* The time so far and the rest at the rate above (a row
             * scheduler: frames come out evenly). */
            const double rest = (double)m->base.frames_hint - m->cpu_received;
            const double alone = rest <= 0 ? 0 : t - m->t_cpu_sent + rest / m->cpu_rate;
            const int sure =
                t - m->cpu_tw >= MIX_RATE_SPAN_S || m->cpu_received >= MIX_RATE_MAX_FRAMES;
            if (alone < MIX_CPU_ALONE_S / (sure ? 1 : MIX_CLEAR)) {
                m->deferred = 0;
                atomic_store(&m->opening, 0);
                settle(m, 1.0);
                m->settled_at = UINT64_MAX;
            } else if (sure || alone > MIX_CPU_ALONE_S * MIX_CLEAR) {
                m->deferred = 0;
                start_opener(m);
            }
        }
        return;
    }
    if (m->phase == PHASE_OPENING || m->phase == PHASE_SETTLED || frame < m->phase_first_frame)
        return;
    if (++m->received == m->warm + 1) m->t_first = t;
    if (m->received < m->warm + 1 + m->window) return;
    double rate = (m->received - m->warm - 1) / (t - m->t_first);
    if (m->phase == PHASE_DEVICES_RATE) {
        /* Again until a window is no faster than the one before: a GPU's
         * first frames are its warm-up (buffers pinned, kernels loaded). */
        if (m->windows++ < MIX_MAX_WINDOWS && rate > m->device_rate * MIX_STABLE) {
            m->device_rate = rate;
            start_phase(m, PHASE_DEVICES_RATE, n);
            return;
        }
        if (rate > m->device_rate) m->device_rate = rate;
        rate = m->device_rate;
        /* The CPU's own rate, measured before the devices came (none: try it). */
        const double share = m->cpu_rate > 0 ? m->cpu_rate / (m->cpu_rate + rate) : 0.5;
        if (m->cpu_received > 1 && share < MIX_CPU_MIN_SHARE) {
            settle(m, 0.0);
            return;
        }
        m->cpu_share = share;
        m->credit = 0.0;
        start_phase(m, PHASE_MIX_RATE, n);
        return;
    }
    /* The best of three: the CPU alone (its rate before the devices came),
     * the devices alone, the mix; a GPU slower than the CPU (a software
     * Vulkan device, a small GPU) is left idle. */
    if (m->cpu_rate > rate && m->cpu_rate > m->device_rate)
        settle(m, 1.0);
    else
        settle(m, rate < m->device_rate * MIX_GAIN ? 0.0 : m->cpu_share);
}

static int mix_collect(PsnrHvsContext *const c, const int slot, float (*const sums)[3]) {
    Mix *const m = c->backend;
    const int k = m->slot_child[slot];
    const int err = psh_scorer_collect(m->child[k].ctx, sums);
    if (!err) measure(m, k, m->slot_frame[slot]);
    m->child[k].frames++;
    return err;
}

int psh_test_mix_children(const PsnrHvsContext *const c, char (*const labels)[24],
                          uint64_t *const frames, const int max) {
    if (!c || c->ops != &psh_backend_mix) return -1;
    Mix *const m = c->backend;
    pthread_mutex_lock(&m->lock);
    const int n = atomic_load(&m->nchild);
    for (int i = 0; i < n && i < max; i++) {
        memcpy(labels[i], m->child[i].label, sizeof(labels[i]));
        frames[i] = m->child[i].frames;
    }
    pthread_mutex_unlock(&m->lock);
    return n;
}

static const char *mix_name(const PsnrHvsContext *const c) {
    Mix *const m = c->backend;
    pthread_mutex_lock(&m->lock);
    size_t used = 0;
    m->name[0] = '\0';
    for (int i = 0; i < atomic_load(&m->nchild); i++)
        used += (size_t)snprintf(m->name + used, sizeof(m->name) - used, "%s%s", i ? "+" : "",
                                 m->child[i].label);
    pthread_mutex_unlock(&m->lock);
    return m->name;
}

static int mix_opening(const PsnrHvsContext *const c) {
    Mix *const m = c->backend;
    return atomic_load(&m->opening);
}

static const char *mix_isa(const PsnrHvsContext *const c) {
    const Mix *const m = c->backend;
    return m->cpu >= 0 ? psnrhvs_isa_name(m->child[m->cpu].ctx) : NULL;
}

const PsnrHvsBackendOps psh_backend_mix = {
    .name = "mix",
    .id = PSNRHVS_BACKEND_AUTO,
    .default_slots = PSNRHVS_MAX_FRAMES_IN_FLIGHT,
    .open = mix_open,
    .submit = mix_submit,
    .collect = mix_collect,
    .close = mix_close,
    .isa_name = mix_isa,
    .context_name = mix_name,
    .opening = mix_opening,
    .host_register = mix_host_register,
    .host_unregister = mix_host_unregister,
};
