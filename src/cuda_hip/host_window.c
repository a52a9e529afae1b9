/*
 * See host_window.h. cudaHostRegister locks memory several times faster in
 * large pieces than a frame at a time, and the upload from locked memory
 * runs at the pinned buffer's rate (bench/cuda/hostreg_bench.c,
 * bench/RESULTS.md). Only anonymous memory comes here (lib.c): mapped
 * files stalled in their first cudaHostRegister, for good.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "cuda_hip/host_window.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "thread_start.h"

/* Locked in pieces this large: few calls (each costs a fixed time), and a
 * 4K 10-bit picture (25 MB) spans at most two. */
#define CHUNK ((uintptr_t)128 << 20)
/* Pieces locked past the one frames are sent from: 20 frames of 4K 8-bit. */
#define AHEAD      2
#define MAX_RANGES 64
#define MAX_CHUNKS 64
/* One thread locks at the driver's pace; two compete for its locks. */
#define THREADS 1

enum { FREE, LOCKING, LOCKED, UNLOCKING };

typedef struct Range {
    uintptr_t base, end;    ///< as registered
    uintptr_t lock, unlock; ///< whole pages around it: the chunks' bounds
    uintptr_t cursor;       ///< where the latest picture sent from it starts
    int live, failed, device;
} Range;

typedef struct Chunk {
    uintptr_t start, end;
    int range, state, uses;
    uint64_t id;
} Chunk;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work;    ///< the registering threads: something to do
    pthread_cond_t changed; ///< a chunk locked or unlocked
    Range range[MAX_RANGES];
    Chunk chunk[MAX_CHUNKS];
    size_t locked, budget;
    pthread_t thread[THREADS];
    int threads, stop;
    uint64_t next_id;
} W = {.lock = PTHREAD_MUTEX_INITIALIZER,
       .work = PTHREAD_COND_INITIALIZER,
       .changed = PTHREAD_COND_INITIALIZER};

static uintptr_t chunk_at(const Range *const r, const uintptr_t p) {
    return r->lock + (p - r->lock) / CHUNK * CHUNK;
}

static int find_chunk(const int range, const uintptr_t start) {
    for (int i = 0; i < MAX_CHUNKS; i++)
        if (W.chunk[i].state != FREE && W.chunk[i].range == range && W.chunk[i].start == start)
            return i;
    return -1;
}

/* Under the lock: a chunk no frame holds, behind its range's frames or of a
 * range gone; else -1. */
static int to_unlock(void) {
    for (int i = 0; i < MAX_CHUNKS; i++) {
        const Chunk *const k = &W.chunk[i];
        if (k->state != LOCKED || k->uses) continue;
        const Range *const r = &W.range[k->range];
        if (!r->live || k->end <= chunk_at(r, r->cursor)) return i;
    }
    return -1;
}

/* Under the lock: the next chunk to lock, its slot taken (LOCKING); -1 if none. */
static int to_lock(void) {
    for (int ahead = 0; ahead <= AHEAD; ahead++) {
        for (int ri = 0; ri < MAX_RANGES; ri++) {
            const Range *const r = &W.range[ri];
            if (!r->live || r->failed) continue;
            const uintptr_t start = chunk_at(r, r->cursor) + (uintptr_t)ahead * CHUNK;
            if (start >= r->unlock || find_chunk(ri, start) >= 0) continue;
            const uintptr_t end = r->unlock - start < CHUNK ? r->unlock : start + CHUNK;
            if (W.locked + (end - start) > W.budget) return -1;
            for (int i = 0; i < MAX_CHUNKS; i++) {
                if (W.chunk[i].state != FREE) continue;
                W.chunk[i] = (Chunk){start, end, ri, LOCKING, 0, 0};
                W.locked += end - start;
                return i;
            }
            return -1;
        }
    }
    return -1;
}

static void *registrar(void *const arg) {
    (void)arg;
    pthread_mutex_lock(&W.lock);
    while (!W.stop) {
        int i = to_unlock();
        if (i >= 0) {
            Chunk *const k = &W.chunk[i];
            k->state = UNLOCKING;
            pthread_mutex_unlock(&W.lock);
            cudaHostUnregister((void *)k->start);
            pthread_mutex_lock(&W.lock);
            W.locked -= k->end - k->start;
            k->state = FREE;
            pthread_cond_broadcast(&W.changed);
            pthread_cond_broadcast(&W.work); /* room for another */
            continue;
        }
        if ((i = to_lock()) >= 0) {
            Chunk *const k = &W.chunk[i];
            const int device = W.range[k->range].device;
            pthread_mutex_unlock(&W.lock);
            cudaError_t e = cudaSetDevice(device);
            if (e == cudaSuccess)
                e = cudaHostRegister((void *)k->start, k->end - k->start,
                                     cudaHostRegisterPortable | cudaHostRegisterReadOnly);
            if (e != cudaSuccess) cudaGetLastError(); /* not sticky: clear it */
            pthread_mutex_lock(&W.lock);
            if (e == cudaSuccess) {
                k->state = LOCKED;
                k->id = ++W.next_id;
            } else { /* not lockable (no read-only registration, no memory): copied */
                W.range[k->range].failed = 1;
                W.locked -= k->end - k->start;
                k->state = FREE;
            }
            pthread_cond_broadcast(&W.changed);
            continue;
        }
        pthread_cond_wait(&W.work, &W.lock);
    }
    pthread_mutex_unlock(&W.lock);
    return NULL;
}

int psh_hw_register(const void *const data, const size_t size, const int device) {
    const uintptr_t a = (uintptr_t)data;
    pthread_mutex_lock(&W.lock);
    int slot = -1;
    for (int i = 0; i < MAX_RANGES; i++) {
        const Range *const r = &W.range[i];
        if (r->base && a < r->end && r->base < a + size) { /* live, or still unlocking */
            pthread_mutex_unlock(&W.lock);
            return -1;
        }
        if (!r->live && slot < 0 && !r->base) slot = i;
    }
    if (slot < 0) {
        pthread_mutex_unlock(&W.lock);
        return -1;
    }
    if (!W.budget) {
        /* 1 GiB, at most an eighth of the memory */
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        const double eighth = pages > 0 && page > 0 ? (double)pages * (double)page / 8 : 0;
        W.budget = (size_t)1 << 30;
        if (eighth > 0 && eighth < (double)W.budget) W.budget = (size_t)eighth;
        if (W.budget < 2 * CHUNK) W.budget = 2 * CHUNK;
    }
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t lock = a / page * page, end = a + size;
    const uintptr_t unlock = end > UINTPTR_MAX - page ? end : (end + page - 1) / page * page;
    W.range[slot] = (Range){a, end, lock, unlock, a, 1, 0, device};
    while (W.threads < THREADS && !psh_thread_create(&W.thread[W.threads], registrar, NULL))
        W.threads++;
    if (!W.threads) W.range[slot].failed = 1; /* no thread: copied */
    pthread_cond_broadcast(&W.work);
    pthread_mutex_unlock(&W.lock);
    return 0;
}

void psh_hw_unregister(const void *const data) {
    pthread_mutex_lock(&W.lock);
    int ri = -1;
    for (int i = 0; i < MAX_RANGES && ri < 0; i++)
        if (W.range[i].live && W.range[i].base == (uintptr_t)data) ri = i;
    if (ri < 0) {
        pthread_mutex_unlock(&W.lock);
        return;
    }
    W.range[ri].live = 0;
    pthread_cond_broadcast(&W.work);
    for (;;) {
        int left = 0;
        for (int i = 0; i < MAX_CHUNKS; i++) {
            Chunk *const k = &W.chunk[i];
            if (k->state == FREE || k->range != ri) continue;
            k->uses = 0; /* the caller's uploads are complete */
            left = 1;
        }
        if (!left || !W.threads) break;
        pthread_cond_broadcast(&W.work);
        pthread_cond_wait(&W.changed, &W.lock);
    }
    memset(&W.range[ri], 0, sizeof(W.range[ri]));
    int live = 0;
    for (int i = 0; i < MAX_RANGES; i++) live |= W.range[i].live;
    if (live || !W.threads) {
        pthread_mutex_unlock(&W.lock);
        return;
    }
    /* the last range: the threads end (the module may be unloaded next) */
    W.stop = 1;
    pthread_cond_broadcast(&W.work);
    const int n = W.threads;
    W.threads = 0;
    pthread_mutex_unlock(&W.lock);
    for (int i = 0; i < n; i++) pthread_join(W.thread[i], NULL);
    pthread_mutex_lock(&W.lock);
    W.stop = 0;
    pthread_mutex_unlock(&W.lock);
}

int psh_hw_hold(PshHostHold *const hold, const void *const p, const size_t n) {
    const uintptr_t a = (uintptr_t)p;
    pthread_mutex_lock(&W.lock);
    int ri = -1;
    for (int i = 0; i < MAX_RANGES && ri < 0; i++)
        if (W.range[i].live && a >= W.range[i].base && n <= W.range[i].end - a) ri = i;
    if (ri < 0 || W.range[ri].failed) {
        pthread_mutex_unlock(&W.lock);
        return 0;
    }
    Range *const r = &W.range[ri];
    if (a > r->cursor) {
        const int moved = chunk_at(r, a) != chunk_at(r, r->cursor);
        r->cursor = a;
        if (moved) pthread_cond_broadcast(&W.work);
    }
    int ks[PSH_HW_MAX_HOLD], nk = 0;
    for (uintptr_t c = chunk_at(r, a); c < a + n; c += CHUNK) {
        const int k = find_chunk(ri, c);
        if (k < 0 || W.chunk[k].state != LOCKED || hold->n + nk >= PSH_HW_MAX_HOLD) {
            pthread_mutex_unlock(&W.lock);
            return 0;
        }
        ks[nk++] = k;
    }
    for (int i = 0; i < nk; i++) {
        W.chunk[ks[i]].uses++;
        hold->id[hold->n++] = W.chunk[ks[i]].id;
    }
    pthread_mutex_unlock(&W.lock);
    return 1;
}

void psh_hw_release(PshHostHold *const hold) {
    if (!hold->n) return;
    pthread_mutex_lock(&W.lock);
    int freed = 0;
    for (int h = 0; h < hold->n; h++)
        for (int i = 0; i < MAX_CHUNKS; i++)
            if (W.chunk[i].state == LOCKED && W.chunk[i].id == hold->id[h] && W.chunk[i].uses) {
                freed |= !--W.chunk[i].uses;
                break;
            }
    hold->n = 0;
    if (freed) pthread_cond_broadcast(&W.work);
    pthread_mutex_unlock(&W.lock);
}

uintptr_t psh_hw_piece_end(const void *const p) {
    const uintptr_t a = (uintptr_t)p;
    uintptr_t end = 0;
    pthread_mutex_lock(&W.lock);
    for (int i = 0; i < MAX_CHUNKS && !end; i++)
        if (W.chunk[i].state == LOCKED && a >= W.chunk[i].start && a < W.chunk[i].end)
            end = W.chunk[i].end;
    pthread_mutex_unlock(&W.lock);
    return end;
}
