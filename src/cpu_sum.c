/*
 * The CPU backend's plane sum through the exact-sum algebra (see cpu_sum.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "cpu_sum.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/exact_sum.h"
#include "sum/exact_sum_kernel.h"

#define SEG   PSNRHVS_CPU_SUM_SEG
#define LANES PSNRHVS_SUM_LANES

static atomic_size_t rows_walked;

size_t psnrhvs_cpu_sum_rows_walked(void) {
    return atomic_load_explicit(&rows_walked, memory_order_relaxed);
}

enum PsnrHvsCpuSumMode psnrhvs_cpu_sum_mode(const PsnrHvsContext *c) {
    const char *const v = getenv("PSNRHVS_CPU_SUM");
    if (!v || !*v || !strcmp(v, "auto")) return PSNRHVS_CPU_SUM_AUTO;
    if (!strcmp(v, "chain")) return PSNRHVS_CPU_SUM_CHAIN;
    if (!strcmp(v, "engine")) return PSNRHVS_CPU_SUM_ENGINE;
    psnrhvs_log(c, "PSNRHVS_CPU_SUM=%s: not chain, engine or auto; using auto", v);
    return PSNRHVS_CPU_SUM_AUTO;
}

double psnrhvs_cpu_sum_approx(const float *const t, const int n) {
    double acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) acc[j] += t[i + j];
    for (; i < n; i++) acc[0] += t[i];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

int psnrhvs_cpu_sum_init(PsnrHvsCpuSum *const s, const int *const nbx, const int *const nby,
                         const int num_planes) {
    size_t rows = 0, segs = 0;
    for (int p = 0; p < num_planes; p++) {
        rows += (size_t)nby[p];
        segs += (size_t)nby[p] * (((size_t)nbx[p] * 64 + SEG - 1) / SEG);
    }
    const size_t seg_bytes = sizeof(int32_t[2]) + sizeof(uint32_t[2][2]);
    s->mem = calloc(1, rows * sizeof(PsnrHvsCpuRowMaps) + segs * seg_bytes + 1);
    if (!s->mem) return PSNRHVS_ERR(ENOMEM);
    psnrhvs_sum_lanes_fn(); /* picks the kernel now, before threads use it */
    PsnrHvsCpuRowMaps *m = s->mem;
    uint32_t(*d)[2][2] = (void *)(m + rows);
    int32_t(*e)[2] = (void *)(d + segs);
    for (int p = 0; p < num_planes; p++) {
        const int nseg = (nbx[p] * 64 + SEG - 1) / SEG;
        s->rows[p] = m;
        for (int r = 0; r < nby[p]; r++, m++, d += nseg, e += nseg) {
            m->d = d;
            m->e = e;
        }
    }
    return 0;
}

void psnrhvs_cpu_sum_free(PsnrHvsCpuSum *const s) {
    free(s->mem);
    memset(s, 0, sizeof(*s));
}

int psnrhvs_cpu_sum_simd(void) {
    return psnrhvs_sum_lanes_fn() != psnrhvs_sum_lanes_c;
}

static int usable(const int e) {
    return e >= PSNRHVS_SUM_KERNEL_EMIN && e <= PSH_SUM_BINADE_MAX;
}

/* Candidate binades of the chain at a segment that starts at about p, give
 * or take slack (plus the chain's drift from the exact sum): the nearest,
 * and its neighbour where the range reaches across. */
static void candidates(const double p, const double slack, int32_t e[2]) {
    const double lo = p > slack ? p - slack : 0.0;
    const int e0 = psh_sum_binade((float)p);
    const int elo = psh_sum_binade((float)(lo * (1.0 - PSH_SUM_DRIFT)));
    const int ehi = psh_sum_binade((float)((p + slack) * (1.0 + PSH_SUM_DRIFT)));
    int e1 = PSH_SUM_NO_BINADE;
    if (elo < e0 && ehi > e0) /* both sides: the nearer one (significand vs sqrt 2) */
        e1 = (psh_float_as_u32((float)p) & 0x7fffffu) >= 0x3504f3u ? e0 + 1 : e0 - 1;
    else if (elo < e0)
        e1 = e0 - 1;
    else if (ehi > e0)
        e1 = e0 + 1;
    e[0] = usable(e0) ? e0 : PSH_SUM_NO_BINADE;
    e[1] = usable(e1) ? e1 : PSH_SUM_NO_BINADE;
}

void psnrhvs_cpu_sum_row_maps(PsnrHvsCpuRowMaps *const m, const float *const t, const int n,
                              const double approx, const double prefix, const double slack) {
    const PsnrHvsSumLanesFn lanes = psnrhvs_sum_lanes_fn();
    m->nseg = (n + SEG - 1) / SEG;
    for (int k = 0; k < m->nseg; k++)
        candidates(prefix + approx * ((double)k * SEG / n), slack, m->e[k]);
    /* The lane kernel reduces 8 consecutive segments per call. */
    for (int g = 0; g < m->nseg; g += LANES) {
        const int len = n - g * SEG < LANES * SEG ? n - g * SEG : LANES * SEG;
        for (int c = 0; c < 2; c++) {
            int32_t e[LANES];
            uint32_t d[LANES][2];
            int any = 0;
            for (int j = 0; j < LANES; j++) {
                const int k = g + j;
                const int have = k < m->nseg && m->e[k][c] != PSH_SUM_NO_BINADE;
                e[j] = have ? m->e[k][c] : PSH_SUM_BINADE_MAX; /* any valid binade, unused */
                any |= have;
            }
            if (!any) continue;
            lanes(t + (size_t)g * SEG, (uint32_t)len, SEG, e, d);
            for (int j = 0; j < LANES && g + j < m->nseg; j++)
                memcpy(m->d[g + j][c], d[j], sizeof(d[j]));
        }
    }
    /* Whole-row maps for the binades of the first segment's candidates. */
    for (int c = 0; c < 2; c++) {
        const int32_t be = m->nseg ? m->e[0][c] : PSH_SUM_NO_BINADE;
        PshSumMap acc = psh_sum_map_identity();
        int k = 0;
        for (; be != PSH_SUM_NO_BINADE && k < m->nseg; k++) {
            const int slot = m->e[k][0] == be ? 0 : m->e[k][1] == be ? 1 : -1;
            if (slot < 0) break;
            PshSumMap seg;
            seg.d[0] = m->d[k][slot][0];
            seg.d[1] = m->d[k][slot][1];
            acc = psh_sum_map_compose(acc, seg);
        }
        m->re[c] = be != PSH_SUM_NO_BINADE && k == m->nseg ? be : PSH_SUM_NO_BINADE;
        m->rd[c][0] = (uint32_t)acc.d[0];
        m->rd[c][1] = (uint32_t)acc.d[1];
    }
}

static int apply(const int32_t e, const uint32_t d[2], float *const r) {
    if (e == PSH_SUM_NO_BINADE || e != psh_sum_binade(*r)) return 0;
    PshSumMap m;
    m.d[0] = d[0];
    m.d[1] = d[1];
    return psh_sum_map_apply(m, e, r);
}

float psnrhvs_cpu_sum_walk_row(float r, const PsnrHvsCpuRowMaps *const m, const float *const t,
                               const int n) {
    atomic_fetch_add_explicit(&rows_walked, 1, memory_order_relaxed);
    if (apply(m->re[0], m->rd[0], &r) || apply(m->re[1], m->rd[1], &r)) return r;
    for (int k = 0; k < m->nseg; k++) {
        if (apply(m->e[k][0], m->d[k][0], &r) || apply(m->e[k][1], m->d[k][1], &r)) continue;
        const int len = n - k * SEG < SEG ? n - k * SEG : SEG;
        r = psh_sum_chain(r, t + (size_t)k * SEG, (psh_u32)len);
    }
    return r;
}
