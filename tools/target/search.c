/*
 * psnrhvs: target's search: the cheapest setting whose pooled score
 * reaches the target, and the pooling of a probe's frames.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "target/search.h"

int target_pool_parse(const char *const arg, TargetPool *const p) {
    memset(p, 0, sizeof(*p));
    if (strlen(arg) >= sizeof(p->name)) return -1;
    strcpy(p->name, arg);
    if (!strcmp(arg, "mean"))
        p->kind = POOL_MEAN;
    else if (!strcmp(arg, "harmonic_mean"))
        p->kind = POOL_HARMONIC;
    else if (!strcmp(arg, "min"))
        p->kind = POOL_MIN;
    else if (arg[0] == 'p' && arg[1]) {
        char *end;
        p->kind = POOL_PERCENTILE;
        p->percentile = strtod(arg + 1, &end);
        if (*end || !(p->percentile > 0 && p->percentile <= 100)) return -1;
    } else
        return -1;
    return 0;
}

static int cmp_double(const void *const a, const void *const b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Mean, harmonic mean and minimum as libvmaf pools (psnrhvs_pool); a
 * percentile by nearest rank: the ceil(N/100 * n)-th smallest value, so
 * that at most N % of the frames score below it. */
double target_pool(const TargetPool *const p, double *const values, const size_t n) {
    if (!n) return NAN;
    if (p->kind == POOL_PERCENTILE) {
        qsort(values, n, sizeof(*values), cmp_double);
        size_t rank = (size_t)ceil(p->percentile / 100.0 * (double)n);
        if (rank < 1) rank = 1;
        if (rank > n) rank = n;
        return values[rank - 1];
    }
    PsnrHvsPool pool;
    psnrhvs_pool(values, n, 0, &pool);
    return p->kind == POOL_MEAN       ? pool.mean
           : p->kind == POOL_HARMONIC ? pool.harmonic_mean
                                      : pool.min;
}

/* Probe index i once; the probes keep the order they were made in. */
static const Probe *probe_at(const SearchFns *const fn, TargetResult *const r, int *const slot,
                             const int i) {
    if (slot[i] >= 0) return &r->probe[slot[i]];
    if (r->num_probes >= TARGET_MAX_PROBES) return NULL;
    Probe *const p = &r->probe[r->num_probes];
    memset(p, 0, sizeof(*p));
    p->index = i;
    if (fn->probe(fn->ctx, i, p) < 0) return NULL;
    slot[i] = r->num_probes++;
    if (r->best < 0 || p->score > r->probe[r->best].score) r->best = slot[i];
    return p;
}

static int reaches(const Probe *const p, const double target) {
    return p->score >= target; /* NaN never reaches */
}

/* Binary search in (lo, hi): lo reaches the target (or is -1), hi does
 * not (or is n). @return 0 or -1. */
static int bisect(const SearchFns *const fn, TargetResult *const r, int *const slot,
                  const double target, int *const lo, int *const hi) {
    while (*hi - *lo > 1) {
        const int mid = *lo + (*hi - *lo) / 2;
        const Probe *const p = probe_at(fn, r, slot, mid);
        if (!p) return -1;
        if (reaches(p, target))
            *lo = mid;
        else
            *hi = mid;
    }
    return 0;
}

/*
 * Indices 0..n-1 run from the best quality to the cheapest; the score is
 * taken to fall as the index rises, but on short clips it wobbles by a few
 * hundredths of a dB from one setting to the next. So after the binary
 * search the CHECK_ABOVE settings past its boundary are probed too; one
 * that reaches the target moves the search up from there.
 */
#define CHECK_ABOVE 2

int target_search(const SearchFns *const fn, const int n, const double target, const int sweep,
                  TargetResult *const r) {
    int *const slot = malloc(sizeof(int) * (size_t)n);
    if (!slot) return -1;
    for (int i = 0; i < n; i++) slot[i] = -1;
    r->num_probes = 0;
    r->best = -1;
    r->chosen = -1;
    int lo = -1, hi = n, ret = 0;
    for (int i = 0; sweep && i < n && ret == 0; i++) {
        const Probe *const p = probe_at(fn, r, slot, i);
        if (!p)
            ret = -1;
        else if (reaches(p, target))
            lo = i;
    }
    while (!sweep && ret == 0 && (ret = bisect(fn, r, slot, target, &lo, &hi)) == 0) {
        int above = -1;
        for (int i = hi + 1; i <= hi + CHECK_ABOVE && i < n && above < 0; i++) {
            const Probe *const p = probe_at(fn, r, slot, i);
            if (!p)
                ret = -1;
            else if (reaches(p, target))
                above = i;
        }
        if (above < 0) break;
        lo = above;
        /* The next setting up known to fall short bounds the search again. */
        for (hi = above + 1; hi < n && (slot[hi] < 0 || reaches(&r->probe[slot[hi]], target));)
            hi++;
    }
    if (ret == 0 && lo >= 0) r->chosen = slot[lo];
    free(slot);
    return ret;
}
