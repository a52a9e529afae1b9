/*
 * The CPU backend: the scalar reference, or the DSP kernels (C, AVX2,
 * AVX-512) over block rows, on worker threads with frames in flight.
 *
 * Bit-identity (spec section 3): a plane's score is ONE f32 chain over its
 * terms in block raster order. Block rows are tasks, scored in parallel into
 * buffers of their non-zero terms; each plane's chain adds the rows strictly
 * in row order as they become ready, so it is exactly the reference's
 * sequence of f32 additions, zero terms left out (r + 0 = r). The chain is
 * not a separate pass: a row task carries the next ready row's terms into
 * its kernel, which adds them between its vector steps (see run_task).
 *
 * Threads: settings.threads = N computing threads, N - 1 workers plus the
 * caller's thread, which runs tasks while it waits in send or receive. With
 * nothing queued, send scores straight from the caller's pictures and
 * returns once every task has read its samples; otherwise it copies them
 * (frames in flight) and returns at once. One thread needs no worker and no
 * copy: send scores the frame on the caller's thread.
 *
 * Plane sums: the carried chain above is one dependent addition per non-zero
 * term, about 1.5 ms per 4K frame; on many threads with one frame at a time
 * it becomes the critical path. Then a frame's planes go through the
 * exact-sum algebra instead (cpu_sum.c): each row task also computes its
 * terms' maps (binades guessed from the rows known so far), and ready rows
 * are walked in order applying them, a few ns per segment of 256 terms, so
 * the plane's sum keeps up with any number of threads. Same bits either way.
 * The policy (auto): the engine for a frame sent with no other queued, from
 * PSNRHVS_CPU_ENGINE_MIN_THREADS threads on and with a SIMD lane kernel; the
 * chain otherwise (queued frames keep every thread busy and hide the
 * chains). The environment variable PSNRHVS_CPU_SUM = chain | engine | auto,
 * read at open, forces a mode for tests and benchmarks (isa = scalar always
 * runs the reference).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/block.h"
#include "cpu.h"
#include "cpu_sum.h"
#include "dsp.h"
#include "internal.h"
#include "plane.h"

enum { SLOT_FREE, SLOT_QUEUED, SLOT_DONE };

/* Stored rows waiting for the chain at which a finishing task walks them. */
#define PSNRHVS_CPU_CHAIN_LAG_ROWS 8

typedef struct CpuRow {
    float *terms; ///< a pooled buffer, waiting for the chain or the engine
    int count;
    int done;
    double approx; ///< engine mode: the terms' approximate sum
} CpuRow;

typedef struct CpuPlane {
    PsnrHvsPlanePair pair;
    CpuRow *rows;
    int next_row;     ///< the chain has added rows [0, next_row)
    int walking;      ///< a thread is adding rows to the chain
    int stored;       ///< rows whose terms were stored (added or waiting)
    int engine;       ///< rows are added through their maps (cpu_sum.c)
    int front;        ///< engine mode: rows [0, front) are done
    double front_sum; ///< their approx summed
    float sum;
} CpuPlane;

typedef struct CpuSlot {
    uint8_t *pix[2]; ///< copies of the reference and distorted planes
    CpuPlane plane[3];
    int next_task, tasks_done, planes_left;
    int state;
    float raw[3];
    uint64_t tag;
    PsnrHvsCpuSum sum; ///< engine mode: the rows' maps
} CpuSlot;

typedef struct CpuBackend {
    PsnrHvsDspContext dsp;
    int use_ref; ///< the scalar reference, one task per plane
    int nthreads, nbufs;
    int nbx[3], nby[3]; ///< blocks along each plane
    int task_base[4];   ///< task t of a frame belongs to plane p when base[p] <= t < base[p+1]
    size_t plane_off[3], pix_size;
    size_t row_floats; ///< a worker's row buffer

    CpuSlot *ring;
    int capacity, head, count;

    pthread_t *threads;
    float **bufs; ///< one row buffer per thread (when the pool has none)
    float **free_bufs;
    int nfree, nfree_cap, nfree_max; ///< pooled row buffers: free, room, made
    int started, started_workers;
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    int quit;

    enum PsnrHvsCpuSumMode sum_mode;
    int engine_ok; ///< the mode may pick the engine: maps allocated
} CpuBackend;

static int pixel_bytes(const PsnrHvsContext *c) {
    return c->s.bitdepth > 8 ? 2 : 1;
}

static float add_chain(float sum, const float *t, const int n) {
    for (int i = 0; i < n; i++) sum += t[i];
    return sum;
}

static int row_terms(const CpuBackend *b, const PsnrHvsPlanePair *p, const int by, float *buf,
                     PsnrHvsChain *chain) {
    const ptrdiff_t y = (ptrdiff_t)by * 7;
    const uint8_t *ref = (const uint8_t *)p->ref + y * p->ref_stride;
    const uint8_t *dist = (const uint8_t *)p->dist + y * p->dist_stride;
    return b->dsp.row_terms[p->bitdepth > 8](buf, ref, p->ref_stride, dist, p->dist_stride,
                                             psnrhvs_blocks_along(p->w), p->table, p->mask_product,
                                             chain);
}

/* The whole plane on the calling thread: row by's terms go to one buffer
 * while the previous row's, in the other, are added to the chain. */
static float plane_score(const CpuBackend *b, const PsnrHvsPlanePair *p, float *const buf[2]) {
    if (b->use_ref) return psnrhvs_plane_score_ref(p);
    PsnrHvsChain chain = {buf[1], 0, 0.0f};
    const int nby = psnrhvs_blocks_along(p->h);
    for (int by = 0; by < nby; by++) {
        const int n = row_terms(b, p, by, buf[by & 1], &chain);
        chain.terms = buf[by & 1];
        chain.count = n;
    }
    return psnrhvs_plane_finish(add_chain(chain.sum, chain.terms, chain.count), p->w, p->h,
                                p->bitdepth);
}

static PsnrHvsPlanePair make_pair(const PsnrHvsContext *c, const int p, const void *ref,
                                  const ptrdiff_t ref_stride, const void *dist,
                                  const ptrdiff_t dist_stride) {
    const PsnrHvsPlanePair pair = {
        .ref = ref,
        .dist = dist,
        .ref_stride = ref_stride,
        .dist_stride = dist_stride,
        .w = c->plane_w[p],
        .h = c->plane_h[p],
        .table = p,
        .bitdepth = c->s.bitdepth,
        .mask_product = c->s.mask_product == PSNRHVS_MASK_PRODUCT_EXACT ? PSH_MASK_PRODUCT_EXACT
                                                                        : PSH_MASK_PRODUCT_FLOAT,
    };
    return pair;
}

/* Called with the lock held: the plane's last row is in the chain. */
static void plane_complete(CpuBackend *b, CpuSlot *s, const int p, const float raw) {
    s->raw[p] = raw;
    if (!--s->planes_left) {
        s->state = SLOT_DONE;
        pthread_cond_broadcast(&b->done);
    }
}

/* Called with the lock held: a task has read all the samples it needs. */
static void task_done(CpuBackend *b, CpuSlot *s) {
    if (++s->tasks_done == b->task_base[3]) pthread_cond_broadcast(&b->done);
}

/* Row buffers (row_floats each) handed from the row that fills them to the
 * chain that adds them, then back; called with the lock held. */
static float *pool_get(CpuBackend *b) {
    if (b->nfree) return b->free_bufs[--b->nfree];
    if (b->nfree_cap == b->nfree_max) {
        const int cap = b->nfree_cap ? 2 * b->nfree_cap : 16;
        float **const f = realloc(b->free_bufs, (size_t)cap * sizeof(*f));
        if (!f) return NULL;
        b->free_bufs = f;
        b->nfree_cap = cap;
    }
    float *const buf = malloc(b->row_floats * sizeof(float));
    if (buf) b->nfree_max++;
    return buf;
}

static void pool_put(CpuBackend *b, float *buf) {
    b->free_bufs[b->nfree++] = buf; /* room for every buffer made */
}

/* The engine for the frame being sent, or the chain (see the top). */
static int engine_for_next(const CpuBackend *b) {
    if (!b->engine_ok) return 0;
    return b->sum_mode == PSNRHVS_CPU_SUM_ENGINE ||
           (b->nthreads >= PSNRHVS_CPU_ENGINE_MIN_THREADS && b->count == 0);
}

/* Called with the lock held as row by of an engine plane starts: the f64
 * sum of the done rows before it and their count. The row's maps are for a
 * prefix estimated from these (engine_row). */
static double engine_known(CpuPlane *pl, const int by, int *known) {
    while (pl->front < by && pl->rows[pl->front].done)
        pl->front_sum += pl->rows[pl->front++].approx;
    double sum = pl->front_sum;
    *known = pl->front;
    for (int r = pl->front; r < by; r++)
        if (pl->rows[r].done) sum += pl->rows[r].approx, ++*known;
    return sum;
}

/* One thread, engine mode (for tests: the carried chain is faster here):
 * each row's maps from the exact prefix, then applied. */
static float plane_score_engine(CpuBackend *b, CpuSlot *s, const PsnrHvsPlanePair *pair) {
    PsnrHvsCpuRowMaps *const maps = s->sum.rows[pair->table];
    float *const buf = b->bufs[0];
    double prefix = 0.0;
    float sum = 0.0f;
    for (int by = 0; by < b->nby[pair->table]; by++) {
        const int n = row_terms(b, pair, by, buf, NULL);
        const double approx = psnrhvs_cpu_sum_approx(buf, n);
        psnrhvs_cpu_sum_row_maps(&maps[by], buf, n, approx, prefix, 0.0);
        sum = psnrhvs_cpu_sum_walk_row(sum, &maps[by], buf, n);
        prefix += approx;
    }
    return psnrhvs_plane_finish(sum, pair->w, pair->h, pair->bitdepth);
}

/* Called with the lock held and pl->walking set: add every ready row (in
 * engine mode through its maps). */
static void walk_rows(CpuBackend *b, CpuSlot *s, const int p) {
    CpuPlane *const pl = &s->plane[p];
    const int nby = b->nby[p];
    while (pl->next_row < nby && pl->rows[pl->next_row].done) {
        CpuRow *const r = &pl->rows[pl->next_row];
        const PsnrHvsCpuRowMaps *const maps = pl->engine ? &s->sum.rows[p][pl->next_row] : NULL;
        float *const t = r->terms;
        r->terms = NULL;
        pthread_mutex_unlock(&b->lock);
        pl->sum = maps ? psnrhvs_cpu_sum_walk_row(pl->sum, maps, t, r->count)
                       : add_chain(pl->sum, t, r->count);
        pthread_mutex_lock(&b->lock);
        pool_put(b, t);
        pl->next_row++;
    }
    pl->walking = 0;
    if (pl->next_row == nby)
        plane_complete(b, s, p,
                       psnrhvs_plane_finish(pl->sum, pl->pair.w, pl->pair.h, pl->pair.bitdepth));
}

/*
 * One block row. Its terms go to a pooled buffer and wait there; a row task
 * of the same plane that starts while the chain's next row is ready carries
 * that row's terms into its kernel (PsnrHvsChain), which adds them under its
 * vector work. Once no task of the plane is left to start, finishing tasks
 * walk the rest. In engine mode the row computes its terms' maps, and the
 * rows are walked through their maps as soon as they are ready (a few ns
 * per segment). Called with the lock held; returns with it held.
 */
static void run_task(CpuBackend *b, CpuSlot *s, const int task, float *own) {
    int p = 0;
    while (task >= b->task_base[p + 1]) p++;
    CpuPlane *const pl = &s->plane[p];
    if (b->use_ref) {
        pthread_mutex_unlock(&b->lock);
        const float raw = psnrhvs_plane_score_ref(&pl->pair);
        pthread_mutex_lock(&b->lock);
        task_done(b, s);
        plane_complete(b, s, p, raw);
        return;
    }
    const int by = task - b->task_base[p];
    float *const buf = pool_get(b);
    /* Out of memory the plane goes back to the chain, which needs no more
     * buffers (rows kept so far are walked like any ready row). */
    if (!buf) pl->engine = 0;
    if (pl->engine) {
        int known;
        const double known_sum = engine_known(pl, by, &known);
        pthread_mutex_unlock(&b->lock);
        const int n = row_terms(b, &pl->pair, by, buf, NULL);
        const double approx = psnrhvs_cpu_sum_approx(buf, n);
        /* Rows before this one still running count at the mean of the done
         * ones (or at this row's sum); their share is the uncertainty. */
        const double slack = (by - known) * (known ? known_sum / known : approx);
        psnrhvs_cpu_sum_row_maps(&s->sum.rows[p][by], buf, n, approx, known_sum + slack, slack);
        pthread_mutex_lock(&b->lock);
        pl->rows[by] = (CpuRow){buf, n, 1, approx};
        pl->stored++;
        task_done(b, s);
        if (!pl->walking) {
            pl->walking = 1;
            walk_rows(b, s, p);
        }
        return;
    }
    PsnrHvsChain carry = {NULL, 0, 0.0f};
    float *carried = NULL;
    /* Rows up to by are not done, so next_row <= by is a valid row. */
    if (!pl->walking && pl->rows[pl->next_row].done) {
        CpuRow *const r = &pl->rows[pl->next_row];
        pl->walking = 1;
        carried = r->terms;
        r->terms = NULL;
        carry.terms = carried;
        carry.count = r->count;
        carry.sum = pl->sum;
    }
    pthread_mutex_unlock(&b->lock);
    const int n = row_terms(b, &pl->pair, by, buf ? buf : own, carried ? &carry : NULL);
    pthread_mutex_lock(&b->lock);
    task_done(b, s);
    if (carried) {
        pl->sum = carry.sum;
        pl->next_row++;
        pl->walking = 0;
        pool_put(b, carried);
    }
    if (!buf) {
        /* Out of memory: add this row from the thread's own buffer when the
         * chain reaches it, walking ready rows meanwhile (every earlier row
         * was taken before this one, so the chain gets here). */
        for (;;) {
            if (!pl->walking && pl->next_row == by) break;
            if (!pl->walking && pl->rows[pl->next_row].done) {
                pl->walking = 1;
                walk_rows(b, s, p);
                continue;
            }
            pthread_mutex_unlock(&b->lock);
            sched_yield();
            pthread_mutex_lock(&b->lock);
        }
        pl->walking = 1;
        pthread_mutex_unlock(&b->lock);
        pl->sum = add_chain(pl->sum, own, n);
        pthread_mutex_lock(&b->lock);
        pl->next_row++;
        walk_rows(b, s, p);
        return;
    }
    pl->rows[by].terms = buf;
    pl->rows[by].count = n;
    pl->rows[by].done = 1;
    pl->stored++;
    /* Walk now when no task of the plane is left to carry the chain, or when
     * it lags: on many threads rows get done faster than carried, one per
     * kernel call, and a thread that walks keeps the chain off the frame's
     * critical path. */
    if (!pl->walking && (s->next_task >= b->task_base[p + 1] ||
                         pl->stored - pl->next_row >= PSNRHVS_CPU_CHAIN_LAG_ROWS)) {
        pl->walking = 1;
        walk_rows(b, s, p);
    }
}

/* Called with the lock held: runs the oldest task waiting, if any. */
static int run_next_task(CpuBackend *b, float *buf) {
    for (int i = 0; i < b->count; i++) {
        CpuSlot *const s = &b->ring[(b->head + i) % b->capacity];
        if (s->state == SLOT_QUEUED && s->next_task < b->task_base[3]) {
            run_task(b, s, s->next_task++, buf);
            return 1;
        }
    }
    return 0;
}

static void *worker(void *arg) {
    CpuBackend *const b = arg;
    pthread_mutex_lock(&b->lock);
    float *const buf = b->bufs[b->started_workers++];
    while (!b->quit)
        if (!run_next_task(b, buf)) pthread_cond_wait(&b->work, &b->lock);
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

static void cpu_close(PsnrHvsContext *c) {
    CpuBackend *const b = c->backend;
    if (!b) return;
    if (b->started) {
        pthread_mutex_lock(&b->lock);
        b->quit = 1;
        pthread_cond_broadcast(&b->work);
        pthread_mutex_unlock(&b->lock);
    }
    for (int i = 0; i < b->started; i++) pthread_join(b->threads[i], NULL);
    if (b->threads) {
        pthread_mutex_destroy(&b->lock);
        pthread_cond_destroy(&b->work);
        pthread_cond_destroy(&b->done);
    }
    for (int i = 0; b->ring && i < b->capacity; i++) {
        CpuSlot *const s = &b->ring[i];
        free(s->pix[0]);
        free(s->pix[1]);
        for (int p = 0; p < 3; p++) {
            for (int r = 0; s->plane[p].rows && r < b->nby[p]; r++) free(s->plane[p].rows[r].terms);
            free(s->plane[p].rows);
        }
        psnrhvs_cpu_sum_free(&s->sum);
    }
    for (int i = 0; b->bufs && i < b->nbufs; i++) free(b->bufs[i]);
    for (int i = 0; i < b->nfree; i++) free(b->free_bufs[i]);
    free(b->free_bufs);
    free(b->bufs);
    free(b->ring);
    free(b->threads);
    free(b);
    c->backend = NULL;
}

static int choose_isa(PsnrHvsContext *c, CpuBackend *b) {
    static const char *const names[] = {"auto", "scalar", "avx2", "avx512"};
    const unsigned have = psnrhvs_get_cpu_flags();
    unsigned flags = have;
    switch (c->s.isa) {
    case PSNRHVS_ISA_SCALAR:
        b->use_ref = 1;
        return 0;
    case PSNRHVS_ISA_AVX2:
    case PSNRHVS_ISA_AVX512: {
        const unsigned need = c->s.isa == PSNRHVS_ISA_AVX2
                                  ? PSNRHVS_CPU_FLAG_AVX2
                                  : PSNRHVS_CPU_FLAG_AVX2 | PSNRHVS_CPU_FLAG_AVX512;
        const int built = c->s.isa == PSNRHVS_ISA_AVX2 ? HAVE_AVX2 : HAVE_AVX512;
        if (!built) {
            psnrhvs_log(c, "isa %s is not built into this library", names[c->s.isa]);
            return PSNRHVS_ERR(ENOSYS);
        }
        if ((have & need) != need) {
            PsnrHvsDspContext best;
            psnrhvs_dsp_init(&best, have);
            psnrhvs_log(c, "isa %s is not supported by this CPU (the best it has is %s)",
                        names[c->s.isa], strcmp(best.isa, "c") ? best.isa : "scalar");
            return PSNRHVS_ERR(ENOSYS);
        }
        flags = need;
        break;
    }
    default:
        break;
    }
    psnrhvs_dsp_init(&b->dsp, flags);
    return 0;
}

static int cpu_open(PsnrHvsContext *c) {
    CpuBackend *const b = calloc(1, sizeof(*b));
    if (!b) return PSNRHVS_ERR(ENOMEM);
    c->backend = b;
    int err = choose_isa(c, b);
    if (err) goto error;

    const int bps = pixel_bytes(c);
    size_t row_blocks = 0;
    for (int p = 0; p < c->num_planes; p++) {
        b->nbx[p] = psnrhvs_blocks_along(c->plane_w[p]);
        b->nby[p] = psnrhvs_blocks_along(c->plane_h[p]);
        b->task_base[p + 1] = b->task_base[p] + (b->use_ref ? 1 : b->nby[p]);
        b->plane_off[p] = b->pix_size;
        b->pix_size += (size_t)c->plane_w[p] * c->plane_h[p] * bps;
        if ((size_t)b->nbx[p] > row_blocks) row_blocks = (size_t)b->nbx[p];
    }
    for (int p = c->num_planes; p < 3; p++) b->task_base[p + 1] = b->task_base[p];
    b->row_floats = row_blocks * 64 + PSNRHVS_ROW_TERMS_PAD;

    long n = c->s.threads;
    if (n <= 0) {
        /* All cores, but not more threads than 8 block rows each keeps busy. */
        n = sysconf(_SC_NPROCESSORS_ONLN);
        const long useful = b->task_base[3] / 8;
        if (!b->use_ref && n > useful) n = useful;
    }
    b->nthreads = n < 1 ? 1 : n > 256 ? 256 : (int)n;
    /* One thread scores on the caller's thread, straight from its pictures. */
    b->capacity = c->s.frames_in_flight > 0 ? c->s.frames_in_flight : b->nthreads > 1 ? 3 : 1;

    err = PSNRHVS_ERR(ENOMEM);
    b->ring = calloc((size_t)b->capacity, sizeof(*b->ring));
    if (!b->ring) goto error;
    /* One row buffer per thread; one thread alternates between two. */
    b->nbufs = b->nthreads > 1 ? b->nthreads : 2;
    b->bufs = calloc((size_t)b->nbufs, sizeof(*b->bufs));
    if (!b->bufs) goto error;
    for (int i = 0; i < b->nbufs; i++)
        if (!(b->bufs[i] = malloc(b->row_floats * sizeof(float)))) goto error;

    b->sum_mode = psnrhvs_cpu_sum_mode(c);
    b->engine_ok =
        !b->use_ref && (b->sum_mode == PSNRHVS_CPU_SUM_ENGINE ||
                        (b->sum_mode == PSNRHVS_CPU_SUM_AUTO &&
                         b->nthreads >= PSNRHVS_CPU_ENGINE_MIN_THREADS && psnrhvs_cpu_sum_simd()));
    for (int i = 0; i < b->capacity && !b->use_ref; i++) {
        CpuSlot *const s = &b->ring[i];
        for (int p = 0; p < c->num_planes && b->nthreads > 1; p++) {
            s->plane[p].rows = calloc((size_t)b->nby[p], sizeof(CpuRow));
            if (!s->plane[p].rows) goto error;
        }
        if (b->engine_ok && psnrhvs_cpu_sum_init(&s->sum, b->nbx, b->nby, c->num_planes))
            goto error;
    }
    if (b->nthreads == 1) return 0;

    b->threads = calloc((size_t)b->nthreads, sizeof(*b->threads));
    if (!b->threads) goto error;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->work, NULL);
    pthread_cond_init(&b->done, NULL);
    err = PSNRHVS_ERR(EAGAIN);
    /* The caller's thread is the last of the N: it scores while it waits. */
    for (; b->started < b->nthreads - 1; b->started++)
        if (pthread_create(&b->threads[b->started], NULL, worker, b)) {
            psnrhvs_log(c, "cannot start worker threads");
            goto error;
        }
    return 0;

error:
    cpu_close(c);
    return err;
}

static int cpu_send(PsnrHvsContext *c, const PsnrHvsPicture *ref, const PsnrHvsPicture *dist,
                    uint64_t tag) {
    CpuBackend *const b = c->backend;
    if (b->count == b->capacity) return PSNRHVS_ERR(EAGAIN);
    CpuSlot *const s = &b->ring[(b->head + b->count) % b->capacity];
    s->raw[0] = s->raw[1] = s->raw[2] = 0.0f;
    s->tag = tag;

    const int engine = engine_for_next(b);
    if (b->nthreads == 1) {
        for (int p = 0; p < c->num_planes; p++) {
            const PsnrHvsPlanePair pair =
                make_pair(c, p, ref->data[p], ref->stride[p], dist->data[p], dist->stride[p]);
            s->raw[p] = engine ? plane_score_engine(b, s, &pair) : plane_score(b, &pair, b->bufs);
        }
        s->state = SLOT_DONE;
        b->count++;
        return 0;
    }

    /* With nothing queued the workers are idle: score straight from the
     * caller's pictures and return once every task has read its samples
     * (the chains may still be adding). Otherwise copy the scored area, so
     * that the caller may reuse its buffers at once while the workers are
     * busy with earlier frames. */
    const int zero_copy = b->count == 0;
    const int bps = pixel_bytes(c);
    if (!zero_copy)
        for (int k = 0; k < 2; k++)
            if (!s->pix[k] && !(s->pix[k] = malloc(b->pix_size))) return PSNRHVS_ERR(ENOMEM);
    for (int p = 0; p < c->num_planes; p++) {
        CpuPlane *const pl = &s->plane[p];
        if (zero_copy) {
            pl->pair =
                make_pair(c, p, ref->data[p], ref->stride[p], dist->data[p], dist->stride[p]);
        } else {
            const size_t row = (size_t)c->plane_w[p] * bps;
            const PsnrHvsPicture *const pics[2] = {ref, dist};
            for (int k = 0; k < 2; k++) {
                const uint8_t *src = pics[k]->data[p];
                uint8_t *dst = s->pix[k] + b->plane_off[p];
                for (int y = 0; y < c->plane_h[p]; y++, src += pics[k]->stride[p], dst += row)
                    memcpy(dst, src, row);
            }
            pl->pair = make_pair(c, p, s->pix[0] + b->plane_off[p], (ptrdiff_t)row,
                                 s->pix[1] + b->plane_off[p], (ptrdiff_t)row);
        }
        pl->next_row = 0;
        pl->walking = 0;
        pl->stored = 0;
        pl->engine = engine;
        pl->front = 0;
        pl->front_sum = 0.0;
        pl->sum = 0.0f;
        if (pl->rows) memset(pl->rows, 0, (size_t)b->nby[p] * sizeof(*pl->rows));
    }
    pthread_mutex_lock(&b->lock);
    s->next_task = 0;
    s->tasks_done = 0;
    s->planes_left = c->num_planes;
    s->state = SLOT_QUEUED;
    b->count++;
    pthread_cond_broadcast(&b->work);
    if (zero_copy)
        while (s->tasks_done < b->task_base[3])
            if (!run_next_task(b, b->bufs[b->nthreads - 1])) pthread_cond_wait(&b->done, &b->lock);
    pthread_mutex_unlock(&b->lock);
    return 0;
}

static int cpu_receive(PsnrHvsContext *c, float raw[3], uint64_t *tag) {
    CpuBackend *const b = c->backend;
    if (!b->count) return PSNRHVS_ERR(EAGAIN);
    CpuSlot *const s = &b->ring[b->head];
    if (b->nthreads > 1) {
        pthread_mutex_lock(&b->lock);
        while (s->state != SLOT_DONE)
            if (!run_next_task(b, b->bufs[b->nthreads - 1])) pthread_cond_wait(&b->done, &b->lock);
    }
    for (int p = 0; p < 3; p++) raw[p] = s->raw[p];
    *tag = s->tag;
    s->state = SLOT_FREE;
    b->head = (b->head + 1) % b->capacity;
    b->count--;
    if (b->nthreads > 1) pthread_mutex_unlock(&b->lock);
    return 0;
}

static const char *cpu_isa_name(const PsnrHvsContext *c) {
    const CpuBackend *const b = c->backend;
    return b->use_ref ? "scalar" : b->dsp.isa;
}

const PsnrHvsBackendOps psnrhvs_backend_cpu = {
    .name = "cpu",
    .id = PSNRHVS_BACKEND_CPU,
    .open = cpu_open,
    .send = cpu_send,
    .receive = cpu_receive,
    .close = cpu_close,
    .isa_name = cpu_isa_name,
};
