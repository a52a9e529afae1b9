/*
 * The CPU backend: a row scheduler on the thread pool; how its sums keep
 * libvmaf's order: docs/architecture.md, "The CPU backend".
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/block.h"
#include "cpu.h"
#include "dsp.h"
#include "internal.h"
#include "plane.h"
#include "sum/exact_sum.h"
#include "test_hooks.h"

/* Stored rows waiting for the chain at which a finishing task walks them
 * (on many threads rows get done faster than carried, one per kernel call). */
#define CHAIN_LAG_ROWS 8
/* The engine for a frame scored alone from this many threads on: with
 * fewer, the chain hides under the row work (bench/cpu). */
#define ENGINE_MIN_THREADS 8
/* Row buffers made at open, per thread, beyond the lag rows of each plane
 * of each slot: rows wait for the chain while earlier ones are still being
 * computed, and a thread that finds none free has to wait in turn. */
#define ROWS_PER_THREAD 8

typedef struct CpuRow {
    float *terms; ///< a stored buffer waiting for the chain; NULL once walked
    int count;
    int done;      ///< terms computed (and, without a buffer, added)
    double approx; ///< engine: the terms' approximate sum
} CpuRow;

typedef struct CpuPlane {
    PsnrHvsPlanePair pair;
    CpuRow *rows;
    PsnrHvsSumPlan **plans; ///< engine: one per row
    int started;            ///< row tasks started
    int stored;             ///< rows done
    int next_row;           ///< the chain has added rows [0, next_row)
    int walking;            ///< a thread is adding rows to the chain
    int engine;
    int front;        ///< engine: rows [0, front) are done
    double front_sum; ///< and their approx summed
    float sum;
} CpuPlane;

typedef struct CpuBackend CpuBackend;

typedef struct CpuSlot {
    CpuBackend *b;
    unsigned char *pix; ///< the packed frame, for frames queued behind others
    CpuPlane plane[PSNRHVS_MAX_RENDITIONS][3]; ///< [rendition][plane]
    PsnrHvsThreadJob job;
    int read;                ///< tasks that have read their samples
    PsnrHvsRangeError range; ///< a sample above the bit depth's maximum
} CpuSlot;

struct CpuBackend {
    PsnrHvsDspContext dsp;
    int use_ref; ///< the scalar reference, one task per plane
    int nthreads;
    int renditions;          ///< distorted pictures a frame (a ladder's, or 1)
    PsnrHvsThreadPool *pool; ///< NULL with one thread
    int task_base[4];        ///< plane p's tasks are [task_base[p], task_base[p + 1])
    size_t row_floats;       ///< a row buffer
    pthread_mutex_t lock;    ///< the rows and chains of every slot, the buffer store
    pthread_cond_t read;     ///< a frame's tasks have all read their samples
    pthread_cond_t progress; ///< for tasks without a buffer: a chain moved, a row was stored
    int waiting;             ///< tasks waiting on progress
    float **own;   ///< per pool worker, renditions each: terms of rows that found no buffer
    float **store; ///< free row buffers
    int nstore;
    enum PsnrHvsTestCpuSum sum_mode;
    int engine_ok; ///< plans allocated: the engine may be picked
    unsigned max;  ///< the largest valid sample
    void *mem;     ///< every buffer, in one allocation
    CpuSlot slot[];
};

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
                                             psh_blocks_along(p->w), p->table, p->mask_product,
                                             chain);
}

static void plan_row(const CpuBackend *b, CpuPlane *pl, const int by, const float *t, const int n,
                     const double approx, const PsnrHvsSumStart start) {
    psh_sum_plan(pl->plans[by], t, (size_t)n, approx, start, b->dsp.sum_lanes);
}

static float walk_row(const CpuPlane *pl, const int by, const float r, const float *t) {
    psh_test_count_cpu_engine_row();
    return psh_sum_walk(r, pl->plans[by], t, NULL);
}

/* One thread: row by's terms go to one buffer while the previous row's, in
 * the other, are added to the chain (or, engine, planned from the exact
 * prefix and walked). */
static float plane_sum_alone(const CpuBackend *b, CpuPlane *pl, float *const buf[2]) {
    const PsnrHvsPlanePair *const p = &pl->pair;
    if (b->use_ref) return psh_plane_sum_scalar(p);
    const int nby = psh_blocks_along(p->h);
    if (pl->engine) {
        double prefix = 0.0;
        float sum = 0.0f;
        for (int by = 0; by < nby; by++) {
            const int n = row_terms(b, p, by, buf[0], NULL);
            const double approx = psh_sum_approx(buf[0], (size_t)n);
            plan_row(b, pl, by, buf[0], n, approx, (PsnrHvsSumStart){prefix, prefix, prefix});
            sum = walk_row(pl, by, sum, buf[0]);
            prefix += approx;
        }
        return sum;
    }
    PsnrHvsChain chain = {buf[1], 0, 0.0f};
    for (int by = 0; by < nby; by++) {
        const int n = row_terms(b, p, by, buf[by & 1], &chain);
        chain.terms = buf[by & 1];
        chain.count = n;
    }
    return add_chain(chain.sum, chain.terms, chain.count);
}

/* Called with the lock held: wakes the tasks without a buffer, if any. */
static void wake_waiting(CpuBackend *b) {
    if (b->waiting) pthread_cond_broadcast(&b->progress);
}

/* Called with the lock held and pl->walking set: add every ready row. */
static void walk_rows(CpuBackend *b, CpuPlane *pl, const int nby) {
    while (pl->next_row < nby && pl->rows[pl->next_row].terms) {
        CpuRow *const r = &pl->rows[pl->next_row];
        float *const t = r->terms;
        pthread_mutex_unlock(&b->lock);
        pl->sum =
            pl->engine ? walk_row(pl, pl->next_row, pl->sum, t) : add_chain(pl->sum, t, r->count);
        pthread_mutex_lock(&b->lock);
        r->terms = NULL;
        b->store[b->nstore++] = t;
        pl->next_row++;
        wake_waiting(b);
    }
    pl->walking = 0;
}

/* Called with the lock held as engine row by starts: the f64 sum of the
 * done rows before it and their count. */
static double engine_known(CpuPlane *pl, const int by, int *known) {
    while (pl->front < by && pl->rows[pl->front].done)
        pl->front_sum += pl->rows[pl->front++].approx;
    double sum = pl->front_sum;
    *known = pl->front;
    for (int r = pl->front; r < by; r++)
        if (pl->rows[r].done) sum += pl->rows[r].approx, ++*known;
    return sum;
}

/* Samples above the maximum in rows [y0, y1) of both sides of a plane
 * (the distorted side of rendition r). */
static int rows_out_of_range(const CpuBackend *b, const PsnrHvsPlanePair *p, const int r,
                             const int y0, const int y1, PsnrHvsRangeError *e) {
    if (p->bitdepth == 8) return 0;
    const int bad = psh_range_find(e, 0, p->table, p->ref, p->ref_stride, p->w, y0, y1, b->max);
    return psh_range_find(e, 1 + r, p->table, p->dist, p->dist_stride, p->w, y0, y1, b->max) || bad;
}

/* The rows block row by reads. */
static int row_out_of_range(const CpuBackend *b, const PsnrHvsPlanePair *p, const int by,
                            PsnrHvsRangeError *e) {
    return rows_out_of_range(b, p, 0, by * 7, by * 7 + 8, e);
}

static int plane_out_of_range(const CpuBackend *b, const PsnrHvsPlanePair *p, const int r,
                              PsnrHvsRangeError *e) {
    return rows_out_of_range(b, p, r, 0, p->h, e);
}

/* Called with the lock held: the sample reads of a task are over. */
static void samples_read(CpuBackend *b, CpuSlot *s) {
    if (++s->read == b->task_base[3]) pthread_cond_broadcast(&b->read);
}

/* One block row (see the top). */
/* Called with the lock held: row by of a plane's chain is done, its terms
 * in buf (a stored buffer, or NULL when the task found none and holds them
 * in its own scratch, terms). Stores it, or waits to add it, and walks. */
static void finish_row(CpuBackend *b, CpuPlane *pl, const int by, const int nby, float *buf,
                       const float *terms, const int n, const double approx) {
    CpuRow *const row = &pl->rows[by];
    row->count = n;
    row->approx = approx;
    row->done = 1;
    pl->stored++;
    wake_waiting(b); /* a task without a buffer may walk this row */
    if (buf) {
        row->terms = buf;
        /* Walk when no task of the plane is left to carry the chain, when it
         * lags, or always for plans (a walk step is cheap). */
        if (!pl->walking &&
            (pl->engine || pl->started == nby || pl->stored - pl->next_row >= CHAIN_LAG_ROWS)) {
            pl->walking = 1;
            walk_rows(b, pl, nby);
        }
        return;
    }
    /* No buffer: add this row from the thread's own when the chain reaches
     * it; every row before it was started earlier, so it does. */
    for (;;) {
        if (!pl->walking && pl->next_row == by) break;
        if (!pl->walking && pl->rows[pl->next_row].terms) {
            pl->walking = 1;
            walk_rows(b, pl, nby);
        } else {
            b->waiting++;
            pthread_cond_wait(&b->progress, &b->lock);
            b->waiting--;
        }
    }
    psh_test_count_cpu_unbuffered_row();
    pl->walking = 1;
    pthread_mutex_unlock(&b->lock);
    pl->sum = pl->engine ? walk_row(pl, by, pl->sum, terms) : add_chain(pl->sum, terms, n);
    pthread_mutex_lock(&b->lock);
    pl->next_row++;
    wake_waiting(b);
    walk_rows(b, pl, nby);
}

/* A ladder's block row: the reference row against every rendition's, the
 * reference blocks transformed once (dsp.h). Lock held on entry and exit. */
static void ladder_row(CpuBackend *b, CpuSlot *s, const int p, const int by, const int worker) {
    const int nr = b->renditions, nby = b->task_base[p + 1] - b->task_base[p];
    float *bufs[PSNRHVS_MAX_RENDITIONS], *terms[PSNRHVS_MAX_RENDITIONS];
    /* All of the rendition rows get stored buffers, or none (the rows then
     * wait in the thread's own scratch, one rendition after the other). */
    const int have = b->nstore >= nr;
    for (int r = 0; r < nr; r++) {
        s->plane[r][p].started++;
        bufs[r] = have ? b->store[--b->nstore] : NULL;
        terms[r] = have ? bufs[r] : b->own[worker * nr + r];
    }
    pthread_mutex_unlock(&b->lock);

    const PsnrHvsPlanePair *const pair = &s->plane[0][p].pair;
    const ptrdiff_t y = (ptrdiff_t)by * 7;
    const void *dist[PSNRHVS_MAX_RENDITIONS];
    ptrdiff_t dist_stride[PSNRHVS_MAX_RENDITIONS];
    int count[PSNRHVS_MAX_RENDITIONS] = {0};
    PsnrHvsRangeError range = {0};
    int bad = pair->bitdepth > 8 && psh_range_find(&range, 0, p, pair->ref, pair->ref_stride,
                                                   pair->w, by * 7, by * 7 + 8, b->max);
    for (int r = 0; r < nr; r++) {
        const PsnrHvsPlanePair *const pr = &s->plane[r][p].pair;
        dist[r] = (const uint8_t *)pr->dist + y * pr->dist_stride;
        dist_stride[r] = pr->dist_stride;
        if (pr->bitdepth > 8)
            bad |= psh_range_find(&range, 1 + r, p, pr->dist, pr->dist_stride, pr->w, by * 7,
                                  by * 7 + 8, b->max);
    }
    if (!bad)
        b->dsp.row_terms_ladder[pair->bitdepth > 8](
            terms, count, (const uint8_t *)pair->ref + y * pair->ref_stride, pair->ref_stride, dist,
            dist_stride, nr, psh_blocks_along(pair->w), pair->table, pair->mask_product);

    pthread_mutex_lock(&b->lock);
    samples_read(b, s);
    if (bad) psh_range_merge(&s->range, &range);
    for (int r = 0; r < nr; r++)
        finish_row(b, &s->plane[r][p], by, nby, bufs[r], terms[r], count[r], 0.0);
}

/* One block row (see the top). */
static void row_task(void *const arg, const int task, const int worker) {
    CpuSlot *const s = arg;
    CpuBackend *const b = s->b;
    int p = 0;
    while (task >= b->task_base[p + 1]) p++;
    if (b->use_ref) {
        for (int r = 0; r < b->renditions; r++) {
            CpuPlane *const pr = &s->plane[r][p];
            PsnrHvsRangeError range = {0};
            const int bad = plane_out_of_range(b, &pr->pair, r, &range);
            pr->sum = bad ? 0.0f : psh_plane_sum_scalar(&pr->pair);
            pthread_mutex_lock(&b->lock);
            if (bad) psh_range_merge(&s->range, &range);
            pthread_mutex_unlock(&b->lock);
        }
        pthread_mutex_lock(&b->lock);
        samples_read(b, s);
        pthread_mutex_unlock(&b->lock);
        return;
    }
    const int by = task - b->task_base[p], nby = b->task_base[p + 1] - b->task_base[p];
    if (b->renditions > 1) {
        pthread_mutex_lock(&b->lock);
        ladder_row(b, s, p, by, worker);
        pthread_mutex_unlock(&b->lock);
        return;
    }
    CpuPlane *const pl = &s->plane[0][p];
    PsnrHvsChain carry = {NULL, 0, 0.0f};
    float *carried = NULL;
    double known_sum = 0.0;
    int known = 0;

    pthread_mutex_lock(&b->lock);
    pl->started++;
    float *const buf = b->nstore ? b->store[--b->nstore] : NULL;
    if (pl->engine) {
        known_sum = engine_known(pl, by, &known);
    } else if (!pl->walking && pl->next_row < by && pl->rows[pl->next_row].terms &&
               pl->stored - pl->next_row < CHAIN_LAG_ROWS) {
        /* Carry one row through this task's kernel while the chain keeps
         * up; once rows pile up, leave the chain to a finishing task that
         * walks them all (a carrier holds it for a whole kernel). */
        CpuRow *const r = &pl->rows[pl->next_row];
        pl->walking = 1;
        carried = r->terms;
        carry = (PsnrHvsChain){carried, r->count, pl->sum};
    }
    pthread_mutex_unlock(&b->lock);

    float *const terms = buf ? buf : b->own[worker];
    /* A row with a sample out of range is not computed (its products would
     * overflow); the frame is reported by collect. */
    PsnrHvsRangeError range = {0};
    const int bad = row_out_of_range(b, &pl->pair, by, &range);
    const int n = bad ? 0 : row_terms(b, &pl->pair, by, terms, carried ? &carry : NULL);
    if (bad && carried)
        pl->sum = add_chain(carry.sum, carry.terms, carry.count), carry.sum = pl->sum;
    double approx = 0.0;
    if (pl->engine) {
        /* Rows before this one still running count at the mean of the done
         * ones (or at this row's sum); their share is the uncertainty of
         * where the chain starts this row. */
        approx = psh_sum_approx(terms, (size_t)n);
        const double slack = (by - known) * (known ? known_sum / known : approx);
        plan_row(b, pl, by, terms, n, approx,
                 (PsnrHvsSumStart){known_sum + slack, known_sum, known_sum + 2 * slack});
    }

    pthread_mutex_lock(&b->lock);
    samples_read(b, s);
    if (bad) psh_range_merge(&s->range, &range);
    if (carried) {
        pl->sum = carry.sum;
        pl->rows[pl->next_row++].terms = NULL;
        b->store[b->nstore++] = carried;
        pl->walking = 0;
        wake_waiting(b);
    }
    finish_row(b, pl, by, nby, buf, terms, n, approx);
    pthread_mutex_unlock(&b->lock);
}

/* One thread scores plane p of a frame in submit. */
static void score_alone(CpuBackend *b, CpuSlot *s, const int p) {
    const int nr = b->renditions;
    for (int r = 0; r < nr; r++)
        if (plane_out_of_range(b, &s->plane[r][p].pair, r, &s->range)) return;
    if (nr == 1 || b->use_ref) {
        for (int r = 0; r < nr; r++)
            s->plane[r][p].sum = plane_sum_alone(b, &s->plane[r][p], b->own);
        return;
    }
    /* A ladder: each row of every rendition from one pass over the
     * reference row, added to its chain at once. */
    const PsnrHvsPlanePair *const pair = &s->plane[0][p].pair;
    const void *dist[PSNRHVS_MAX_RENDITIONS];
    ptrdiff_t stride[PSNRHVS_MAX_RENDITIONS];
    int count[PSNRHVS_MAX_RENDITIONS];
    float sum[PSNRHVS_MAX_RENDITIONS] = {0.0f};
    for (int y = 0; y < psh_blocks_along(pair->h); y++) {
        const ptrdiff_t row = (ptrdiff_t)y * 7;
        for (int r = 0; r < nr; r++) {
            const PsnrHvsPlanePair *const pr = &s->plane[r][p].pair;
            dist[r] = (const uint8_t *)pr->dist + row * pr->dist_stride;
            stride[r] = pr->dist_stride;
        }
        b->dsp.row_terms_ladder[pair->bitdepth > 8](
            b->own, count, (const uint8_t *)pair->ref + row * pair->ref_stride, pair->ref_stride,
            dist, stride, nr, psh_blocks_along(pair->w), pair->table, pair->mask_product);
        for (int r = 0; r < nr; r++) sum[r] = add_chain(sum[r], b->own[r], count[r]);
    }
    for (int r = 0; r < nr; r++) s->plane[r][p].sum = sum[r];
}

static void cpu_close(PsnrHvsContext *c) {
    CpuBackend *const b = c->backend;
    if (!b) return;
    psh_thread_pool_destroy(b->pool);
    pthread_cond_destroy(&b->progress);
    pthread_cond_destroy(&b->read);
    pthread_mutex_destroy(&b->lock);
    free(b->mem);
    free(b);
    c->backend = NULL;
}

static int choose_isa(PsnrHvsContext *c, CpuBackend *b) {
    static const char *const names[] = {"auto", "scalar", "avx2", "avx512", "neon"};
    const unsigned have = psh_get_cpu_flags();
    unsigned flags = have;
    switch (c->s.isa) {
    case PSNRHVS_ISA_SCALAR:
        b->use_ref = 1;
        flags = 0;
        break;
    case PSNRHVS_ISA_AVX2:
    case PSNRHVS_ISA_AVX512:
    case PSNRHVS_ISA_NEON: {
        const unsigned need = c->s.isa == PSNRHVS_ISA_AVX2 ? PSNRHVS_CPU_FLAG_AVX2
                              : c->s.isa == PSNRHVS_ISA_AVX512
                                  ? PSNRHVS_CPU_FLAG_AVX2 | PSNRHVS_CPU_FLAG_AVX512
                                  : PSNRHVS_CPU_FLAG_NEON;
        const int built = c->s.isa == PSNRHVS_ISA_AVX2     ? HAVE_AVX2
                          : c->s.isa == PSNRHVS_ISA_AVX512 ? HAVE_AVX512
                                                           : HAVE_NEON;
        if (!built) {
            psh_log(c, "isa %s is not built into this library", names[c->s.isa]);
            return PSNRHVS_ERR(ENOSYS);
        }
        if ((have & need) != need) {
            PsnrHvsDspContext best;
            psh_dsp_init(&best, have);
            psh_log(c, "isa %s is not supported by this CPU (the best it has is %s)",
                    names[c->s.isa], strcmp(best.isa, "c") ? best.isa : "scalar");
            return PSNRHVS_ERR(ENOSYS);
        }
        flags = need;
        break;
    }
    default:
        break;
    }
    psh_dsp_init(&b->dsp, flags);
    return 0;
}

static int thread_count(const PsnrHvsContext *c, const CpuBackend *b) {
    if (c->s.threads > 0) return c->s.threads;
    /* All cores, but not more threads than 8 block rows each keeps busy. */
    long n = psh_cpu_count();
    const long useful = b->task_base[3] / 8;
    if (!b->use_ref && n > useful) n = useful;
    return n < 1 ? 1 : n > PSNRHVS_MAX_THREADS ? PSNRHVS_MAX_THREADS : (int)n;
}

/* Carves every buffer of the backend out of one allocation (sizes first,
 * with mem NULL, then for real). */
static size_t carve(CpuBackend *b, const PsnrHvsContext *c, unsigned char *mem) {
    size_t at = 0;
#define TAKE(ptr, bytes)                                                                           \
    do {                                                                                           \
        if (mem) (ptr) = (void *)(mem + at);                                                       \
        at += ((bytes) + 63) & ~(size_t)63;                                                        \
    } while (0)
    const PsnrHvsFrameGeometry *const g = &c->geom;
    const int alone = b->nthreads == 1, nr = b->renditions;
    const int nbuf =
        alone ? 0
              : nr * (ROWS_PER_THREAD * b->nthreads + CHAIN_LAG_ROWS * g->num_planes * c->slots);
    /* A thread's own scratch: a row per rendition (one thread: two, the row
     * computed and the one being added). */
    const int nown = alone ? (nr > 1 ? nr : 2) : b->nthreads * nr;
    TAKE(b->own, (size_t)nown * sizeof(float *));
    for (int i = 0; i < nown; i++) TAKE(b->own[i], b->row_floats * sizeof(float));
    TAKE(b->store, (size_t)nbuf * sizeof(float *));
    for (int i = 0; i < nbuf; i++) TAKE(b->store[i], b->row_floats * sizeof(float));
    if (mem) b->nstore = nbuf;
    for (int i = 0; i < c->slots; i++) {
        CpuSlot *const s = &b->slot[i];
        if (!alone) TAKE(s->pix, g->frame_bytes);
        for (int r = 0; r < nr && !b->use_ref; r++)
            for (int p = 0; p < g->num_planes; p++) {
                CpuPlane *const pl = &s->plane[r][p];
                const int nby = g->plane[p].bh;
                if (!alone) TAKE(pl->rows, (size_t)nby * sizeof(CpuRow));
                if (!b->engine_ok) continue;
                TAKE(pl->plans, (size_t)nby * sizeof(PsnrHvsSumPlan *));
                const size_t plan = psh_sum_plan_size((size_t)g->plane[p].bw * 64);
                for (int y = 0; y < nby; y++) TAKE(pl->plans[y], plan);
            }
    }
#undef TAKE
    return at;
}

static int cpu_open(PsnrHvsContext *c) {
    CpuBackend *const b = calloc(1, sizeof(*b) + (size_t)c->slots * sizeof(CpuSlot));
    if (!b) return PSNRHVS_ERR(ENOMEM);
    c->backend = b;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->read, NULL);
    pthread_cond_init(&b->progress, NULL);
    int err = choose_isa(c, b);
    if (err) goto error;

    const PsnrHvsFrameGeometry *const g = &c->geom;
    size_t row_blocks = 0;
    for (int p = 0; p < 3; p++) {
        const int tasks = p >= g->num_planes ? 0 : b->use_ref ? 1 : g->plane[p].bh;
        b->task_base[p + 1] = b->task_base[p] + tasks;
        if (p < g->num_planes && (size_t)g->plane[p].bw > row_blocks) row_blocks = g->plane[p].bw;
    }
    b->row_floats = row_blocks * 64 + PSNRHVS_ROW_TERMS_PAD;
    b->max = (1u << g->bitdepth) - 1;
    b->nthreads = thread_count(c, b);
    b->renditions = g->renditions;
    b->sum_mode = psh_test_cpu_sum();
    /* Ladders sum their chains plainly: each row holds every rendition's
     * work, which hides the chains. */
    b->engine_ok = !b->use_ref && b->renditions == 1 &&
                   (b->sum_mode == PSNRHVS_TEST_CPU_SUM_ENGINE ||
                    (b->sum_mode == PSNRHVS_TEST_CPU_SUM_AUTO &&
                     b->nthreads >= ENGINE_MIN_THREADS && b->dsp.sum_lanes != psh_sum_lanes_c));

    err = PSNRHVS_ERR(ENOMEM);
    if (!(b->mem = malloc(carve(b, c, NULL)))) goto error;
    carve(b, c, b->mem);
    for (int i = 0; i < c->slots; i++) b->slot[i].b = b;
    if (b->nthreads > 1 && !(b->pool = psh_thread_pool_create(b->nthreads))) {
        psh_log(c, "cannot start %d worker threads", b->nthreads - 1);
        err = PSNRHVS_ERR(EAGAIN);
        goto error;
    }
    return 0;

error:
    cpu_close(c);
    return err;
}

static PsnrHvsPlanePair make_pair(const PsnrHvsContext *c, const int p, const void *ref,
                                  const ptrdiff_t ref_stride, const void *dist,
                                  const ptrdiff_t dist_stride) {
    const PsnrHvsPlaneGeometry *const pl = &c->geom.plane[p];
    return (PsnrHvsPlanePair){
        .ref = ref,
        .dist = dist,
        .ref_stride = ref_stride,
        .dist_stride = dist_stride,
        .w = pl->w,
        .h = pl->h,
        .table = p,
        .bitdepth = c->geom.bitdepth,
        .mask_product = c->geom.mask_product,
    };
}

static int cpu_submit(PsnrHvsContext *c, const int slot, const PsnrHvsPicture *ref,
                      const PsnrHvsPicture *dist) {
    CpuBackend *const b = c->backend;
    CpuSlot *const s = &b->slot[slot];
    const PsnrHvsFrameGeometry *const g = &c->geom;
    /* The engine for a frame alone (queued ones keep every thread busy and
     * hide the chains), where plans were made at open. */
    const int engine = b->engine_ok && (b->sum_mode == PSNRHVS_TEST_CPU_SUM_ENGINE || !c->queued);
    /* With nothing queued the workers are idle: score straight from the
     * caller's pictures and return once every task has read its samples.
     * Otherwise copy, so the caller may reuse its buffers at once, unless
     * the caller keeps them until the frame is received. */
    const int retained = c->s.memory == PSNRHVS_MEMORY_HOST_RETAINED;
    const int zero_copy = !s->pix || !c->queued || retained;
    if (!zero_copy) psh_frame_pack(g, ref, dist, s->pix, NULL);
    for (int r = 0; r < g->renditions; r++)
        for (int p = 0; p < g->num_planes; p++) {
            CpuPlane *const pl = &s->plane[r][p];
            const PsnrHvsPlaneGeometry *const gp = &g->plane[p];
            const size_t dist_off = gp->dist_off + (size_t)r * g->picture_bytes;
            pl->pair = zero_copy ? make_pair(c, p, ref->data[p], ref->stride[p], dist[r].data[p],
                                             dist[r].stride[p])
                                 : make_pair(c, p, s->pix + gp->ref_off, (ptrdiff_t)gp->row_bytes,
                                             s->pix + dist_off, (ptrdiff_t)gp->row_bytes);
            pl->started = pl->stored = pl->next_row = pl->walking = pl->front = 0;
            pl->front_sum = 0.0;
            pl->sum = 0.0f;
            pl->engine = engine;
            if (pl->rows) memset(pl->rows, 0, (size_t)gp->bh * sizeof(*pl->rows));
        }
    s->range = (PsnrHvsRangeError){0};
    if (b->nthreads == 1) {
        for (int p = 0; p < g->num_planes; p++) score_alone(b, s, p);
        return 0;
    }
    s->read = 0;
    psh_thread_pool_submit(b->pool, &s->job, b->task_base[3], row_task, s);
    if (zero_copy && !retained) {
        pthread_mutex_lock(&b->lock);
        while (s->read < b->task_base[3]) {
            pthread_mutex_unlock(&b->lock);
            const int helped = psh_thread_pool_help(b->pool);
            pthread_mutex_lock(&b->lock);
            if (!helped && s->read < b->task_base[3]) pthread_cond_wait(&b->read, &b->lock);
        }
        pthread_mutex_unlock(&b->lock);
    }
    return 0;
}

static int cpu_collect(PsnrHvsContext *c, const int slot, float (*sums)[3]) {
    CpuBackend *const b = c->backend;
    CpuSlot *const s = &b->slot[slot];
    if (b->nthreads > 1) psh_thread_pool_wait(b->pool, &s->job);
    if (s->range.found) return psh_range_report(c, &s->range);
    for (int r = 0; r < c->geom.renditions; r++)
        for (int p = 0; p < c->geom.num_planes; p++) sums[r][p] = s->plane[r][p].sum;
    return 0;
}

static const char *cpu_isa_name(const PsnrHvsContext *c) {
    const CpuBackend *const b = c->backend;
    return b->use_ref ? "scalar" : b->dsp.isa;
}

const PsnrHvsBackendOps psh_backend_cpu = {
    .name = "cpu",
    .id = PSNRHVS_BACKEND_CPU,
    .default_slots = 3,
    .open = cpu_open,
    .submit = cpu_submit,
    .collect = cpu_collect,
    .close = cpu_close,
    .isa_name = cpu_isa_name,
    .host = 1,
};
