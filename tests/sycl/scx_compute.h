/*
 * One element of each experiment, written once over src/core and compiled
 * twice: as plain C11 on the host (scx_ref.c) and inside SYCL kernels
 * (scx_kernels.cpp). Only the portable subset is used here too.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_SYCL_SCX_COMPUTE_H
#define PSNRHVS_TESTS_SYCL_SCX_COMPUTE_H

#include "core/block.h"
#include "core/exact_sum.h"
#include "core/int_math.h"
#include "sycl_core_exact.h"

/* psh_block_terms on one block pair, as a device kernel would call it: the
 * samples copied into private arrays, the terms and coefficients stored. */
PSH_INLINE void scx_block_one(const ScxBlockIn *in, ScxBlockOut *out, const int plane,
                              const int mask_product) {
    psh_i32 s[64], d[64];
    float t[64];
    PSH_UNROLL
    for (int k = 0; k < 64; k++) {
        s[k] = in->s[k];
        d[k] = in->d[k];
    }
    psh_block_terms(s, d, plane, mask_product, t);
    PSH_UNROLL
    for (int k = 0; k < 64; k++) {
        out->terms[k] = t[k];
        out->cs[k] = s[k];
        out->cd[k] = d[k];
    }
}

/* The same maps associated differently: chunks of 8 terms folded, then the
 * chunk maps folded (the algebra is associative, so this equals the fold). */
PSH_INLINE PshSumMap scx_map_chunked(const float *t, const psh_u32 n, const int e) {
    PshSumMap m = psh_sum_map_identity();
    for (psh_u32 i = 0; i < n; i += 8) {
        PshSumMap c = psh_sum_map_identity();
        for (psh_u32 j = i; j < n && j < i + 8; j++) c = psh_sum_map_push(c, t[j], e);
        m = psh_sum_map_compose(m, c);
    }
    return m;
}

PSH_INLINE void scx_store_map(int64_t *dst, const PshSumMap m) {
    dst[0] = m.d[0];
    dst[1] = m.d[1];
}

PSH_INLINE void scx_sum_one(const float *terms, const ScxSumCase *c, ScxSumOut *out) {
    const float *t = terms + c->offset;
    const psh_u32 n = c->n;
    const float r = c->r;
    const int e = psh_sum_binade(r);
    const PshSumMap m_seq = psh_sum_reduce(t, n, e);
    const PshSumMap m_up = psh_sum_reduce(t, n, e + 1);
    scx_store_map(out->m_seq, m_seq);
    scx_store_map(out->m_tree, scx_map_chunked(t, n, e));
    scx_store_map(out->m_dn, psh_sum_reduce(t, n, e - 1));
    scx_store_map(out->m_up, m_up);
    float ra = r;
    out->ok = psh_sum_map_apply(m_seq, e, &ra);
    out->r_apply = ra;
    float ru = r;
    out->ok_up = psh_sum_map_apply(m_up, e + 1, &ru);
    out->r_apply_up = ru;
    out->r_chain = psh_sum_chain(r, t, n);
    /* The sum plan, as a device walks a run: maps for the candidates of the
     * approximate start (psh_sum_candidates), one psh_sum_step, the chain
     * where it fails. */
    const PshSumCandidates cand = psh_sum_candidates(c->approx, c->approx, c->approx);
    PshSumChunkMaps cm;
    cm.e[0] = cand.e[0];
    cm.e[1] = cand.e[1];
    cm.pad[0] = 0;
    cm.pad[1] = 0;
    cm.m[0] = psh_sum_reduce(t, n, cm.e[0]);
    cm.m[1] = cm.e[1] != PSH_SUM_NO_BINADE ? psh_sum_reduce(t, n, cm.e[1]) : psh_sum_map_identity();
    float rw = r;
    if (!psh_sum_step(cm, &rw)) rw = psh_sum_chain(r, t, n);
    out->r_walk = rw;
    float r0 = r, r1 = r;
    if (cm.e[0] == e && psh_sum_map_apply(cm.m[0], e, &r0))
        out->walk_maps = 0;
    else if (cm.e[1] == e && psh_sum_map_apply(cm.m[1], e, &r1))
        out->walk_maps = 1;
    else
        out->walk_maps = 2;
    out->e = e;
    out->guess = cm.e[0];
    out->alt = cm.e[1];
    /* The candidates for a start known only within +-10 % (the CPU rows'
     * uncertain prefixes). */
    const PshSumCandidates wide = psh_sum_candidates(c->approx, c->approx * 0.9f, c->approx * 1.1f);
    out->lo = wide.e[0];
    out->hi = wide.e[1];
}

PSH_INLINE float scx_abs(const float x) {
    return psh_u32_as_float(psh_float_as_u32(x) & 0x7fffffffu);
}

PSH_INLINE void scx_prim_one(const ScxPrimIn *in, ScxPrimOut *out) {
    const float a = in->a, b = in->b, c = in->c;
    out->sqrt_rn = psh_sqrt_rn(scx_abs(a));
    out->sqrt_int = psh_sqrt_rn_int(scx_abs(a));
    out->sqrt_prod = psh_sqrt_prod_rn(scx_abs(a), scx_abs(b));
    out->div = PSH_DIV_RN(a, b);
    out->div_int = psh_div_rn_int(a, b);
    out->mad = a * b + c;
    out->i2f = (float)in->i;
    out->half = psh_half(in->i);
    out->mul = psh_mul_shift(in->i, 13573, 15);
    out->pad = 0;
}

#endif /* PSNRHVS_TESTS_SYCL_SCX_COMPUTE_H */
