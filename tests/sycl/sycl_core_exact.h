/*
 * The SYCL bit-exactness experiment's interface between the C11 driver (and
 * its plain-C reference of src/core) and the SYCL kernels: plain structs with
 * no padding, compared with memcmp. Each function exists twice: suffix
 * _native (the device's own IEEE division and square root) and _exact
 * (PSH_EXACT_HELPERS=1: the integer versions of int_math.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_SYCL_CORE_EXACT_H
#define PSNRHVS_TESTS_SYCL_CORE_EXACT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One block pair: the samples of the reference and the distorted block. */
typedef struct ScxBlockIn {
    int32_t s[64], d[64];
} ScxBlockIn;

/* psh_block_terms: the 64 terms and both blocks' DCT coefficients. */
typedef struct ScxBlockOut {
    float terms[64];
    int32_t cs[64], cd[64];
} ScxBlockOut;

/* A run of n terms (at offset in the terms array) added to r; approx stands
 * for a device's approximation of r (the prefix before the run). */
typedef struct ScxSumCase {
    uint32_t offset, n;
    float r, approx;
} ScxSumCase;

/* What the exact-sum algebra gives for one run (maps as their two entries). */
typedef struct ScxSumOut {
    int64_t m_seq[2];  /* psh_sum_reduce for e = binade(r) */
    int64_t m_tree[2]; /* the per-term maps composed in chunks of 8, then chunk by chunk */
    int64_t m_dn[2];   /* psh_sum_reduce for e - 1 */
    int64_t m_up[2];   /* psh_sum_reduce for e + 1 */
    float r_apply;     /* psh_sum_map_apply(m_seq, e, r) */
    float r_chain;     /* psh_sum_chain(r, t, n) */
    float r_walk;      /* psh_sum_step with the maps of approx's candidates, else the chain */
    float r_apply_up;  /* psh_sum_map_apply(m_up, e + 1, r): fails unless r is there */
    int32_t ok, ok_up; /* the two applies' return values */
    int32_t e, guess, alt, lo, hi; /* binade(r); psh_sum_candidates at approx (guess, alt)
                                      and over approx +-10 % (lo, hi) */
    int32_t walk_maps;             /* which candidate the walk used: 0, 1, or 2 (the chain) */
} ScxSumOut;

/* Primitives: a, b, c are random floats of every class (no input gives a NaN
 * result: NaN payloads differ between x86 and NVIDIA, and psnr_hvs never
 * makes one); i is a random 32-bit integer. */
typedef struct ScxPrimIn {
    float a, b, c;
    int32_t i;
} ScxPrimIn;

typedef struct ScxPrimOut {
    float sqrt_rn;   /* psh_sqrt_rn(|a|) */
    float sqrt_int;  /* psh_sqrt_rn_int(a) */
    float sqrt_prod; /* psh_sqrt_prod_rn(a, b) */
    float div;       /* PSH_DIV_RN(a, b) (native or integer, per variant) */
    float div_int;   /* psh_div_rn_int(a, b) */
    float mad;       /* a * b + c, two roundings (a contraction canary) */
    float i2f;       /* (float)i */
    int32_t half;    /* psh_half(i) */
    int32_t mul;     /* psh_mul_shift(i, 13573, 15) */
    int32_t pad;
} ScxPrimOut;

#define SCX_DECLARE(v)                                                                             \
    void scx_ref_blocks_##v(const ScxBlockIn *in, ScxBlockOut *out, size_t n, int plane,           \
                            int mask_product);                                                     \
    void scx_ref_sums_##v(const float *terms, const ScxSumCase *in, ScxSumOut *out, size_t n);     \
    void scx_ref_prims_##v(const ScxPrimIn *in, ScxPrimOut *out, size_t n);                        \
    int scx_sycl_blocks_##v(int device, const ScxBlockIn *in, ScxBlockOut *out, size_t n,          \
                            int plane, int mask_product);                                          \
    int scx_sycl_sums_##v(int device, const float *terms, size_t n_terms, const ScxSumCase *in,    \
                          ScxSumOut *out, size_t n);                                               \
    int scx_sycl_prims_##v(int device, const ScxPrimIn *in, ScxPrimOut *out, size_t n);

SCX_DECLARE(native)
SCX_DECLARE(exact)

/* Devices (the same list for both variants): count, and a description. */
int scx_sycl_device_count(void);
/* Writes "name (backend)" into buf; returns 1 for a GPU, 0 otherwise. */
int scx_sycl_device_describe(int device, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_TESTS_SYCL_CORE_EXACT_H */
