/*
 * psnrhvs: the CPU exact-sum engine (see exact_sum.h).
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * A chunk is cut into groups of up to 8 x 256 terms; each of a group's 8
 * lanes is one segment (a short last group spreads its terms evenly over the
 * lanes). The lane kernel (dsp.h) computes every segment's map for the
 * candidates psh_sum_candidates() gives at the segment's interpolated start;
 * a group's map and the chunk's map are composed from them where every lane
 * has a map for the same binade.
 */
#include "sum/exact_sum.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/exact_sum.h"

#define LANES   PSNRHVS_SUM_LANES
#define SEGMENT 256
#define GROUP   (LANES * SEGMENT)
/* groups per task of psh_sum_chunks */
#define TASK_GROUPS 16
/* terms per chunk in psh_sum_exact */
#define EXACT_CHUNK 16384

typedef struct SumGroup {
    int32_t e[2][LANES]; ///< candidate binades of each lane, PSH_SUM_NO_BINADE where none
    uint32_t d[2][LANES][2];
    int32_t ge[2]; ///< the group's composed maps
    uint32_t gd[2][2];
} SumGroup;

struct PsnrHvsSumPlan {
    uint32_t count, ngroups;
    int32_t ce[2]; ///< the whole chunk's composed maps
    uint32_t cd[2][2];
    SumGroup groups[];
};

float psh_sum_sequential(const float *const t, const size_t n) {
    float r = 0.0f;
    for (size_t i = 0; i < n; i++) r = r + t[i];
    return r;
}

double psh_sum_approx(const float *const t, const size_t n) {
    double acc[8] = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) acc[j] += t[i + j];
    for (; i < n; i++) acc[0] += t[i];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

decl_sum_lanes_fn(psh_sum_lanes_c) {
    for (int j = 0; j < LANES; j++) {
        const uint64_t start = (uint64_t)j * stride;
        const uint32_t len = start >= count           ? 0
                             : count - start < stride ? (uint32_t)(count - start)
                                                      : stride;
        const PshSumMap m = psh_sum_reduce(len ? terms + start : terms, len, e[j]);
        /* n >= 2^23 above binade -126: an entry of 2^23 or more crosses */
        const psh_i64 lim = e[j] > PSH_SUM_BINADE_MIN ? (psh_i64)1 << 23 : PSH_SUM_CROSS;
        for (int p = 0; p < 2; p++)
            d[j][p] = m.d[p] >= lim ? PSNRHVS_SUM_KERNEL_CROSS : (uint32_t)m.d[p];
    }
}

static size_t groups_of(const size_t count) {
    return (count + GROUP - 1) / GROUP;
}

size_t psh_sum_plan_size(const size_t count) {
    return sizeof(PsnrHvsSumPlan) + groups_of(count) * sizeof(SumGroup);
}

/* Terms and lane stride of group g of a chunk of count terms. */
static uint32_t group_count(const uint32_t count, const uint32_t g, uint32_t *const stride) {
    const uint32_t rest = count - g * GROUP;
    *stride = rest < GROUP ? (rest + 8 * LANES - 1) / (8 * LANES) * 8 : SEGMENT;
    return rest < GROUP ? rest : GROUP;
}

static PshSumChunkMaps maps_of(const int32_t e[2], const uint32_t d0[2], const uint32_t d1[2]) {
    PshSumChunkMaps m;
    m.e[0] = e[0];
    m.e[1] = e[1];
    m.pad[0] = m.pad[1] = 0;
    m.m[0].d[0] = d0[0];
    m.m[0].d[1] = d0[1];
    m.m[1].d[0] = d1[0];
    m.m[1].d[1] = d1[1];
    return m;
}

/* The lane kernel handles binades from PSNRHVS_SUM_KERNEL_EMIN up; below,
 * no map (only sums under 2^-101 live there). */
static int32_t usable(const int32_t e) {
    return e >= PSNRHVS_SUM_KERNEL_EMIN && e <= PSH_SUM_BINADE_MAX ? e : PSH_SUM_NO_BINADE;
}

/* Maps of groups [g0, g1) of a chunk. A segment's start is interpolated
 * from the chunk's: its range runs from the chunk's lowest start to its
 * highest end. */
static void plan_groups(PsnrHvsSumPlan *const plan, const float *const t, const double approx,
                        const PsnrHvsSumStart start, const PsnrHvsSumLanesFn lanes,
                        const uint32_t g0, const uint32_t g1) {
    const float lo = (float)start.lo, hi = (float)(start.hi + approx);
    const double density = plan->count ? approx / plan->count : 0.0;
    for (uint32_t gi = g0; gi < g1; gi++) {
        SumGroup *const g = &plan->groups[gi];
        uint32_t stride;
        const uint32_t n = group_count(plan->count, gi, &stride);
        for (int j = 0; j < LANES; j++) {
            const uint64_t off = (uint64_t)gi * GROUP + (uint64_t)j * stride;
            const int active = (uint64_t)j * stride < n;
            const PshSumCandidates c =
                psh_sum_candidates((float)(start.at + density * (double)off), lo, hi);
            g->e[0][j] = active ? usable(c.e[0]) : PSH_SUM_NO_BINADE;
            g->e[1][j] = active ? usable(c.e[1]) : PSH_SUM_NO_BINADE;
        }
        for (int c = 0; c < 2; c++) {
            int32_t e[LANES];
            int any = 0, uniform = g->e[c][0] != PSH_SUM_NO_BINADE;
            for (int j = 0; j < LANES; j++) {
                any |= g->e[c][j] != PSH_SUM_NO_BINADE;
                if ((uint64_t)j * stride < n && g->e[c][j] != g->e[c][0]) uniform = 0;
                /* lanes without a candidate run with any valid binade, unused */
                e[j] = g->e[c][j] != PSH_SUM_NO_BINADE ? g->e[c][j] : PSH_SUM_BINADE_MAX;
            }
            g->ge[c] = PSH_SUM_NO_BINADE;
            if (!any) continue;
            lanes(t + (size_t)gi * GROUP, n, stride, e, g->d[c]);
            if (!uniform) continue;
            PshSumMap m = psh_sum_map_identity();
            for (int j = 0; j < LANES && (uint64_t)j * stride < n; j++) {
                PshSumMap l;
                l.d[0] = g->d[c][j][0];
                l.d[1] = g->d[c][j][1];
                m = psh_sum_map_compose(m, l);
            }
            g->ge[c] = g->e[c][0];
            g->gd[c][0] = (uint32_t)m.d[0];
            g->gd[c][1] = (uint32_t)m.d[1];
        }
    }
}

static void plan_init(PsnrHvsSumPlan *const plan, const size_t count) {
    plan->count = (uint32_t)count;
    plan->ngroups = (uint32_t)groups_of(count);
    plan->ce[0] = plan->ce[1] = PSH_SUM_NO_BINADE;
}

/* The chunk's map for each candidate of its first segment, where every
 * group has a map for that binade. */
static void plan_chunk_map(PsnrHvsSumPlan *const plan) {
    for (int c = 0; c < 2 && plan->ngroups; c++) {
        const int32_t be = plan->groups[0].ge[c];
        PshSumMap acc = psh_sum_map_identity();
        uint32_t g = 0;
        for (; be != PSH_SUM_NO_BINADE && g < plan->ngroups; g++) {
            const SumGroup *const gr = &plan->groups[g];
            const int slot = gr->ge[0] == be ? 0 : gr->ge[1] == be ? 1 : -1;
            if (slot < 0) break;
            PshSumMap m;
            m.d[0] = gr->gd[slot][0];
            m.d[1] = gr->gd[slot][1];
            acc = psh_sum_map_compose(acc, m);
        }
        plan->ce[c] = be != PSH_SUM_NO_BINADE && g == plan->ngroups ? be : PSH_SUM_NO_BINADE;
        plan->cd[c][0] = (uint32_t)acc.d[0];
        plan->cd[c][1] = (uint32_t)acc.d[1];
    }
}

void psh_sum_plan(PsnrHvsSumPlan *const plan, const float *const t, const size_t count,
                  const double approx, const PsnrHvsSumStart start, const PsnrHvsSumLanesFn lanes) {
    plan_init(plan, count);
    plan_groups(plan, t, approx, start, lanes, 0, plan->ngroups);
    plan_chunk_map(plan);
}

float psh_sum_walk(float r, const PsnrHvsSumPlan *const plan, const float *const t,
                   PsnrHvsSumStats *const stats) {
    PsnrHvsSumStats st = {.terms = plan->count};
    if (psh_sum_step(maps_of(plan->ce, plan->cd[0], plan->cd[1]), &r)) {
        st.chunk_maps = 1;
        goto done;
    }
    for (uint32_t gi = 0; gi < plan->ngroups; gi++) {
        const SumGroup *const g = &plan->groups[gi];
        if (psh_sum_step(maps_of(g->ge, g->gd[0], g->gd[1]), &r)) {
            st.group_maps++;
            continue;
        }
        uint32_t stride;
        const uint32_t n = group_count(plan->count, gi, &stride);
        const float *const base = t + (size_t)gi * GROUP;
        for (int j = 0; j < LANES && (uint32_t)j * stride < n; j++) {
            const int32_t e[2] = {g->e[0][j], g->e[1][j]};
            if (psh_sum_step(maps_of(e, g->d[0][j], g->d[1][j]), &r)) {
                st.lane_maps++;
                continue;
            }
            uint32_t len = n - (uint32_t)j * stride < stride ? n - (uint32_t)j * stride : stride;
            const float *seg = base + (size_t)j * stride;
            if (r == 0.0f) {
                /* Before the first non-zero term: skip zeros (r + 0 = r), and
                 * the first non-zero term sets r exactly. */
                while (len && *seg == 0.0f) seg++, len--;
                if (!len) continue;
                r = *seg++;
                len--;
            }
            r = psh_sum_chain(r, seg, len);
            st.chain_terms += len;
        }
    }
done:
    if (stats) {
        stats->terms += st.terms;
        stats->chunk_maps += st.chunk_maps;
        stats->group_maps += st.group_maps;
        stats->lane_maps += st.lane_maps;
        stats->chain_terms += st.chain_terms;
    }
    return r;
}

/* psh_sum_chunks: the scratch holds each chunk's plan (16-byte aligned),
 * then the plan of tasks (chunk, first group). */
typedef struct SumTask {
    uint32_t chunk, group;
} SumTask;

typedef struct SumJob {
    const PsnrHvsSumChunk *chunks;
    uint32_t nchunks;
    PsnrHvsSumPlan **plans;
    const PsnrHvsSumStart *starts;
    const SumTask *tasks;
    PsnrHvsSumLanesFn lanes;
} SumJob;

static size_t align16(const size_t n) {
    return (n + 15) & ~(size_t)15;
}

/* TASK_GROUPS consecutive groups of the stream, from the task's first one
 * on, across chunk boundaries. */
static void plan_task(void *const arg, const int task, const int worker) {
    const SumJob *const job = arg;
    uint32_t c = job->tasks[task].chunk, g = job->tasks[task].group;
    for (int left = TASK_GROUPS; left > 0 && c < job->nchunks;) {
        PsnrHvsSumPlan *const plan = job->plans[c];
        const uint32_t g1 = g + (uint32_t)left < plan->ngroups ? g + (uint32_t)left : plan->ngroups;
        plan_groups(plan, job->chunks[c].terms, job->chunks[c].approx, job->starts[c], job->lanes,
                    g, g1);
        left -= (int)(g1 - g);
        c++, g = 0;
    }
}

/* Bytes for the plans, the plan pointers, the starts and the tasks. */
static size_t scratch_layout(const PsnrHvsSumChunk *const chunks, const size_t nchunks,
                             size_t *const ntasks) {
    size_t bytes = 0, groups = 0;
    if (nchunks > UINT32_MAX) return 0;
    for (size_t c = 0; c < nchunks; c++) {
        if (chunks[c].count > UINT32_MAX) return 0;
        bytes += align16(psh_sum_plan_size(chunks[c].count));
        groups += groups_of(chunks[c].count);
    }
    const size_t tasks = (groups + TASK_GROUPS - 1) / TASK_GROUPS;
    *ntasks = tasks;
    if (tasks > INT32_MAX) return 0;
    return bytes + align16(nchunks * sizeof(PsnrHvsSumPlan *)) +
           align16(nchunks * sizeof(PsnrHvsSumStart)) + align16(tasks * sizeof(SumTask));
}

size_t psh_sum_scratch_size(const PsnrHvsSumChunk *const chunks, const size_t nchunks) {
    size_t ntasks;
    return scratch_layout(chunks, nchunks, &ntasks);
}

static float chain_chunks(const PsnrHvsSumChunk *const chunks, const size_t nchunks,
                          PsnrHvsSumStats *const stats) {
    float r = 0.0f;
    for (size_t c = 0; c < nchunks; c++) {
        for (size_t i = 0; i < chunks[c].count; i++) r = r + chunks[c].terms[i];
        if (stats) stats->terms += chunks[c].count, stats->chain_terms += chunks[c].count;
    }
    return r;
}

float psh_sum_chunks(const PsnrHvsSumChunk *const chunks, const size_t nchunks,
                     PsnrHvsThreadPool *const pool, const PsnrHvsSumLanesFn lanes, void *scratch,
                     size_t scratch_size, PsnrHvsSumStats *const stats) {
    size_t ntasks;
    const size_t need = scratch_layout(chunks, nchunks, &ntasks);
    void *owned = NULL;
    if (!need) return chain_chunks(chunks, nchunks, stats);
    if (!scratch || scratch_size < need) {
        scratch = owned = malloc(need);
        if (!scratch) return chain_chunks(chunks, nchunks, stats);
    }
    unsigned char *at = scratch;
    PsnrHvsSumPlan **const plans = (void *)at;
    at += align16(nchunks * sizeof(*plans));
    PsnrHvsSumStart *const starts = (void *)at;
    at += align16(nchunks * sizeof(*starts));
    SumTask *const tasks = (void *)at;
    at += ntasks * sizeof(*tasks);
    at = (unsigned char *)scratch + align16((size_t)(at - (unsigned char *)scratch));

    size_t groups = 0;
    double prefix = 0.0;
    for (size_t c = 0; c < nchunks; c++) {
        plans[c] = (PsnrHvsSumPlan *)(void *)at;
        at += align16(psh_sum_plan_size(chunks[c].count));
        plan_init(plans[c], chunks[c].count);
        starts[c] = (PsnrHvsSumStart){prefix, prefix, prefix};
        prefix += chunks[c].approx;
        /* tasks start every TASK_GROUPS groups of the whole stream */
        for (uint32_t g = 0; g < plans[c]->ngroups; g++, groups++)
            if (groups % TASK_GROUPS == 0) tasks[groups / TASK_GROUPS] = (SumTask){(uint32_t)c, g};
    }
    SumJob job = {chunks, (uint32_t)nchunks, plans, starts, tasks, lanes};
    psh_thread_pool_run(pool, (int)ntasks, plan_task, &job);
    float r = 0.0f;
    for (size_t c = 0; c < nchunks; c++) r = psh_sum_walk(r, plans[c], chunks[c].terms, stats);
    free(owned);
    return r;
}

typedef struct ApproxJob {
    PsnrHvsSumChunk *chunks;
    size_t nchunks;
} ApproxJob;

static void approx_task(void *const arg, const int task, const int worker) {
    const ApproxJob *const job = arg;
    const size_t a = (size_t)task * TASK_GROUPS;
    const size_t b = a + TASK_GROUPS < job->nchunks ? a + TASK_GROUPS : job->nchunks;
    for (size_t c = a; c < b; c++)
        job->chunks[c].approx = psh_sum_approx(job->chunks[c].terms, job->chunks[c].count);
}

float psh_sum_exact(const float *const t, const size_t n, PsnrHvsThreadPool *const pool,
                    const PsnrHvsSumLanesFn lanes, PsnrHvsSumStats *const stats) {
    const size_t nchunks = (n + EXACT_CHUNK - 1) / EXACT_CHUNK;
    if (nchunks == 0) return 0.0f;
    PsnrHvsSumChunk *const chunks = malloc(sizeof(*chunks) * nchunks);
    if (!chunks) {
        const PsnrHvsSumChunk all = {t, n, 0.0};
        return chain_chunks(&all, 1, stats);
    }
    for (size_t c = 0; c < nchunks; c++) {
        chunks[c].terms = t + c * EXACT_CHUNK;
        chunks[c].count = n - c * EXACT_CHUNK < EXACT_CHUNK ? n - c * EXACT_CHUNK : EXACT_CHUNK;
    }
    ApproxJob job = {chunks, nchunks};
    psh_thread_pool_run(pool, (int)((nchunks + TASK_GROUPS - 1) / TASK_GROUPS), approx_task, &job);
    const float r = psh_sum_chunks(chunks, nchunks, pool, lanes, NULL, 0, stats);
    free(chunks);
    return r;
}
