/*
 * The AArch64 kernels and their init: one level, NEON (Advanced SIMD, which
 * every AArch64 Linux CPU has; the CPU flag still says so). Included by
 * src/dsp.c only.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_ARM_DSP_INIT_H
#define PSNRHVS_SRC_ARM_DSP_INIT_H

#include "cpu.h"
#include "dsp.h"

#if HAVE_NEON
decl_row_terms_fn(psh_row_terms_8bpc_neon);
decl_row_terms_fn(psh_row_terms_16bpc_neon);
decl_row_terms_ladder_fn(psh_row_terms_ladder_8bpc_neon);
decl_row_terms_ladder_fn(psh_row_terms_ladder_16bpc_neon);
decl_sum_lanes_fn(psh_sum_lanes_neon);
#endif

static inline void psh_dsp_init_arm(PsnrHvsDspContext *const dsp, const unsigned flags) {
    if (!(flags & PSNRHVS_CPU_FLAG_NEON)) return;
#if HAVE_NEON
    dsp->row_terms[0] = psh_row_terms_8bpc_neon;
    dsp->row_terms[1] = psh_row_terms_16bpc_neon;
    dsp->row_terms_ladder[0] = psh_row_terms_ladder_8bpc_neon;
    dsp->row_terms_ladder[1] = psh_row_terms_ladder_16bpc_neon;
    dsp->sum_lanes = psh_sum_lanes_neon;
    dsp->isa = "neon";
#endif
}

#endif /* PSNRHVS_SRC_ARM_DSP_INIT_H */
