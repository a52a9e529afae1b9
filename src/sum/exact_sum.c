/*
 * psnrhvs: the CPU exact-sum engine.
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * The term stream (numerics spec section 3) is cut into groups of up to
 * 8 x 256 terms that never straddle a producer chunk; each of a group's 8
 * lanes is one segment. Phase 1 (threads, SIMD lanes) computes every
 * segment's map for one or two candidate binades taken from the approximate
 * prefix sums, and each group's composed map where its lanes agree on the
 * binade. Phase 2 (the calling thread) walks the groups in order from r = 0:
 * a group's map if it fits the binade r is really in and does not cross,
 * otherwise lane by lane, otherwise the plain chain over that segment.
 * Correctness never depends on the guesses (docs/exact-sum.md).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/exact_sum.h"
#include "sum/exact_sum.h"
#include "sum/exact_sum_kernel.h"

#define LANES   PSNRHVS_SUM_LANES
#define SEGMENT 256
#define GROUP   (LANES * SEGMENT)
/* groups per phase-1 task */
#define TASK_GROUPS 16
/* terms per chunk in psnrhvs_sum_exact */
#define EXACT_CHUNK 16384

typedef struct SumGroup {
    const float *terms;
    uint32_t count, stride;
    double prefix;   /* approximate sum before the chunk */
    double density;  /* chunk approx / chunk count */
    uint32_t offset; /* of the group in its chunk */
    int single;      /* binade of the whole chunk, or PSH_SUM_NO_BINADE */
    int32_t e[2][LANES];
    uint32_t d[2][LANES][2];
    int32_t ge[2];
    uint32_t gd[2][2];
} SumGroup;

typedef struct SumJob {
    SumGroup *groups;
    size_t ngroups;
    PsnrHvsSumLanesFn lanes;
} SumJob;

float psnrhvs_sum_sequential(const float *const t, const size_t n) {
    float r = 0.0f;
    for (size_t i = 0; i < n; i++) r = r + t[i];
    return r;
}

/* Chosen once, lazily; atomic because engine calls may race to set it. */
static _Atomic int sum_isa = -1;

/* Walk statistics of the calling thread's last psnrhvs_sum_chunks() call
 * (the walk runs on the caller; concurrent callers keep their own). */
static _Thread_local PsnrHvsSumStats last_stats;

static int cpu_isa(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return PSNRHVS_SUM_ISA_AVX2;
#endif
    return PSNRHVS_SUM_ISA_C;
}

int psnrhvs_sum_set_max_isa(const int max_isa) {
    const int cpu = cpu_isa();
    sum_isa = max_isa < cpu ? max_isa : cpu;
    return sum_isa;
}

PsnrHvsSumLanesFn psnrhvs_sum_lanes_fn(void) {
    if (sum_isa < 0) sum_isa = cpu_isa();
#if PSNRHVS_SUM_HAVE_AVX2
    if (sum_isa >= PSNRHVS_SUM_ISA_AVX2) return psnrhvs_sum_lanes_avx2;
#endif
    return psnrhvs_sum_lanes_c;
}

void psnrhvs_sum_lanes_c(const float *const terms, const uint32_t count, const uint32_t stride,
                         const int32_t e[LANES], uint32_t d[LANES][2]) {
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

static int usable(const int e) {
    return e >= PSNRHVS_SUM_KERNEL_EMIN && e <= PSH_SUM_BINADE_MAX;
}

/* Candidate binades of a segment starting at approximate prefix p. Inside a
 * chunk that spans binades the interpolated prefix can be well off, so there
 * both the nearest binade and its nearer neighbour are tried. */
static void candidates(const SumGroup *const g, const int lane, int32_t e[2]) {
    if (g->single != PSH_SUM_NO_BINADE) {
        e[0] = usable(g->single) ? g->single : PSH_SUM_NO_BINADE;
        e[1] = PSH_SUM_NO_BINADE;
        return;
    }
    const double off = (double)g->offset + (double)lane * g->stride;
    const float p = (float)(g->prefix + g->density * off);
    const int e0 = psh_sum_binade(p);
    const int up = (psh_float_as_u32(p) & 0x7fffffu) >= 0x3504f3u; /* significand >= sqrt 2 */
    const int e1 = up ? e0 + 1 : e0 - 1;
    e[0] = usable(e0) ? e0 : PSH_SUM_NO_BINADE;
    e[1] = usable(e1) ? e1 : PSH_SUM_NO_BINADE;
}

static void reduce_group(SumGroup *const g, const PsnrHvsSumLanesFn lanes) {
    int32_t cand[LANES][2];
    for (int j = 0; j < LANES; j++) candidates(g, j, cand[j]);
    for (int c = 0; c < 2; c++) {
        int32_t e[LANES];
        int any = 0, uniform = 1;
        for (int j = 0; j < LANES; j++) {
            const int active = (uint64_t)j * g->stride < g->count;
            g->e[c][j] = active ? cand[j][c] : PSH_SUM_NO_BINADE;
            any |= g->e[c][j] != PSH_SUM_NO_BINADE;
            if (active && g->e[c][j] != g->e[c][0]) uniform = 0;
            /* lanes without a candidate run with any valid binade, unused */
            e[j] = g->e[c][j] != PSH_SUM_NO_BINADE ? g->e[c][j] : PSH_SUM_BINADE_MAX;
        }
        g->ge[c] = PSH_SUM_NO_BINADE;
        if (!any) continue;
        lanes(g->terms, g->count, g->stride, e, g->d[c]);
        if (!uniform || g->e[c][0] == PSH_SUM_NO_BINADE) continue;
        PshSumMap m = psh_sum_map_identity();
        for (int j = 0; j < LANES && (uint64_t)j * g->stride < g->count; j++) {
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

static void reduce_task(void *const arg, const int task, const int worker) {
    const SumJob *const job = arg;
    const size_t a = (size_t)task * TASK_GROUPS;
    const size_t b = a + TASK_GROUPS < job->ngroups ? a + TASK_GROUPS : job->ngroups;
    for (size_t i = a; i < b; i++) reduce_group(&job->groups[i], job->lanes);
}

static int apply(const int32_t ge, const uint32_t d[2], float *const r) {
    PshSumMap m;
    if (ge == PSH_SUM_NO_BINADE || ge != psh_sum_binade(*r)) return 0;
    m.d[0] = d[0];
    m.d[1] = d[1];
    return psh_sum_map_apply(m, ge, r);
}

void psnrhvs_sum_last_stats(PsnrHvsSumStats *const stats) {
    *stats = last_stats;
}

static float walk(const SumGroup *const groups, const size_t ngroups) {
    PsnrHvsSumStats st = {0};
    float r = 0.0f;
    for (size_t i = 0; i < ngroups; i++) {
        const SumGroup *const g = &groups[i];
        st.terms += g->count;
        if (apply(g->ge[0], g->gd[0], &r) || apply(g->ge[1], g->gd[1], &r)) {
            st.group_maps++;
            continue;
        }
        for (int j = 0; j < LANES; j++) {
            const uint64_t start = (uint64_t)j * g->stride;
            if (start >= g->count) break;
            if (apply(g->e[0][j], g->d[0][j], &r) || apply(g->e[1][j], g->d[1][j], &r)) {
                st.lane_maps++;
                continue;
            }
            uint64_t len = g->count - start < g->stride ? g->count - start : g->stride;
            const float *seg = g->terms + start;
            if (r == 0.0f) {
                /* before the first non-zero term: skip zeros (r + 0 = r), and
                 * the first non-zero term sets r exactly */
                while (len && *seg == 0.0f) seg++, len--;
                if (!len) continue;
                r = psh_sum_chain(r, seg, 1);
                seg++, len--;
            }
            r = psh_sum_chain(r, seg, (psh_u32)len);
            st.chain_terms += len;
        }
    }
    st.groups = ngroups;
    last_stats = st;
    return r;
}

static size_t count_groups(const size_t n) {
    return (n + GROUP - 1) / GROUP;
}

static size_t scratch_groups(const PsnrHvsSumChunk *const chunks, const size_t nchunks) {
    size_t ngroups = 0;
    for (size_t c = 0; c < nchunks; c++) {
        if (chunks[c].count > UINT32_MAX) return SIZE_MAX;
        ngroups += count_groups(chunks[c].count);
    }
    return ngroups;
}

size_t psnrhvs_sum_scratch_size(const PsnrHvsSumChunk *const chunks, const size_t nchunks) {
    const size_t ngroups = scratch_groups(chunks, nchunks);
    return ngroups == SIZE_MAX ? 0 : ngroups * sizeof(SumGroup);
}

static float sum_chunks_sequential(const PsnrHvsSumChunk *const chunks, const size_t nchunks) {
    float s = 0.0f;
    for (size_t c = 0; c < nchunks; c++)
        for (size_t i = 0; i < chunks[c].count; i++) s = s + chunks[c].terms[i];
    return s;
}

float psnrhvs_sum_chunks_scratch(const PsnrHvsSumChunk *const chunks, const size_t nchunks,
                                 PsnrHvsThreadPool *const pool, void *const scratch,
                                 const size_t scratch_size) {
    last_stats = (PsnrHvsSumStats){0};
    const size_t ngroups = scratch_groups(chunks, nchunks);
    if (ngroups == 0) return 0.0f;
    if (ngroups == SIZE_MAX || !scratch || scratch_size < ngroups * sizeof(SumGroup) ||
        (uintptr_t)scratch % _Alignof(SumGroup))
        return sum_chunks_sequential(chunks, nchunks);
    SumGroup *const groups = scratch;

    size_t gi = 0;
    double prefix = 0.0;
    for (size_t c = 0; c < nchunks; c++) {
        const uint32_t n = (uint32_t)chunks[c].count;
        const double approx = chunks[c].approx;
        const int lo = psh_sum_binade((float)(prefix * (1.0 - PSH_SUM_DRIFT)));
        const int hi = psh_sum_binade((float)((prefix + approx) * (1.0 + PSH_SUM_DRIFT)));
        uint32_t off = 0;
        while (off < n) {
            SumGroup *const g = &groups[gi++];
            const uint32_t rest = n - off;
            g->terms = chunks[c].terms + off;
            g->count = rest < GROUP ? rest : GROUP;
            /* a short group spreads its terms evenly over the lanes */
            g->stride = rest < GROUP ? (rest + 8 * LANES - 1) / (8 * LANES) * 8 : SEGMENT;
            g->prefix = prefix;
            g->density = approx / n;
            g->offset = off;
            g->single = lo == hi ? lo : PSH_SUM_NO_BINADE;
            off += g->count;
        }
        prefix += approx;
    }

    SumJob job = {groups, ngroups, psnrhvs_sum_lanes_fn()};
    psnrhvs_thread_pool_run(pool, (int)((ngroups + TASK_GROUPS - 1) / TASK_GROUPS), reduce_task,
                            &job);
    return walk(groups, ngroups);
}

float psnrhvs_sum_chunks(const PsnrHvsSumChunk *const chunks, const size_t nchunks,
                         PsnrHvsThreadPool *const pool) {
    const size_t size = psnrhvs_sum_scratch_size(chunks, nchunks);
    void *const scratch = size ? malloc(size) : NULL;
    const float r = psnrhvs_sum_chunks_scratch(chunks, nchunks, pool, scratch, size);
    free(scratch);
    return r;
}

typedef struct ApproxJob {
    PsnrHvsSumChunk *chunks;
    size_t nchunks;
} ApproxJob;

/* f64 sums in 8 independent lanes: vectorises without reassociation. */
static double approx_sum(const float *const t, const size_t n) {
    double acc[8] = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) acc[j] += t[i + j];
    for (; i < n; i++) acc[0] += t[i];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

static void approx_task(void *const arg, const int task, const int worker) {
    const ApproxJob *const job = arg;
    const size_t a = (size_t)task * TASK_GROUPS;
    const size_t b = a + TASK_GROUPS < job->nchunks ? a + TASK_GROUPS : job->nchunks;
    for (size_t c = a; c < b; c++)
        job->chunks[c].approx = approx_sum(job->chunks[c].terms, job->chunks[c].count);
}

float psnrhvs_sum_exact(const float *const t, const size_t n, PsnrHvsThreadPool *const pool) {
    const size_t nchunks = (n + EXACT_CHUNK - 1) / EXACT_CHUNK;
    if (nchunks == 0) return 0.0f;
    PsnrHvsSumChunk *const chunks = malloc(sizeof(*chunks) * nchunks);
    if (!chunks) return psnrhvs_sum_sequential(t, n);
    for (size_t c = 0; c < nchunks; c++) {
        chunks[c].terms = t + c * EXACT_CHUNK;
        chunks[c].count = n - c * EXACT_CHUNK < EXACT_CHUNK ? n - c * EXACT_CHUNK : EXACT_CHUNK;
    }
    ApproxJob job = {chunks, nchunks};
    psnrhvs_thread_pool_run(pool, (int)((nchunks + TASK_GROUPS - 1) / TASK_GROUPS), approx_task,
                            &job);
    const float r = psnrhvs_sum_chunks(chunks, nchunks, pool);
    free(chunks);
    return r;
}
