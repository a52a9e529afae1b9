/*
 * The x86 kernels and their init: climbs the ISA levels, returning at the
 * first flag missing. Included by src/dsp.c only (compiled without AVX).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_X86_DSP_INIT_H
#define PSNRHVS_SRC_X86_DSP_INIT_H

#include "cpu.h"
#include "dsp.h"

#if HAVE_AVX2
void psh_avx2_init(void); /* tables of the AVX2 kernels, built once */
decl_row_terms_fn(psh_row_terms_8bpc_avx2);
decl_row_terms_fn(psh_row_terms_16bpc_avx2);
decl_row_terms_ladder_fn(psh_row_terms_ladder_8bpc_avx2);
decl_row_terms_ladder_fn(psh_row_terms_ladder_16bpc_avx2);
decl_sum_lanes_fn(psh_sum_lanes_avx2);
#endif
#if HAVE_AVX512
decl_row_terms_fn(psh_row_terms_8bpc_avx512);
decl_row_terms_fn(psh_row_terms_16bpc_avx512);
decl_row_terms_ladder_fn(psh_row_terms_ladder_8bpc_avx512);
decl_row_terms_ladder_fn(psh_row_terms_ladder_16bpc_avx512);
#endif

static inline void psh_dsp_init_x86(PsnrHvsDspContext *const dsp, const unsigned flags) {
    if (!(flags & PSNRHVS_CPU_FLAG_AVX2)) return;
#if HAVE_AVX2
    psh_avx2_init();
    dsp->row_terms[0] = psh_row_terms_8bpc_avx2;
    dsp->row_terms[1] = psh_row_terms_16bpc_avx2;
    dsp->row_terms_ladder[0] = psh_row_terms_ladder_8bpc_avx2;
    dsp->row_terms_ladder[1] = psh_row_terms_ladder_16bpc_avx2;
    dsp->sum_lanes = psh_sum_lanes_avx2;
    dsp->isa = "avx2";
#endif
    if (!(flags & PSNRHVS_CPU_FLAG_AVX512)) return;
#if HAVE_AVX512
    dsp->row_terms[0] = psh_row_terms_8bpc_avx512;
    dsp->row_terms[1] = psh_row_terms_16bpc_avx512;
    dsp->row_terms_ladder[0] = psh_row_terms_ladder_8bpc_avx512;
    dsp->row_terms_ladder[1] = psh_row_terms_ladder_16bpc_avx512;
    dsp->isa = "avx512";
#endif
}

#endif /* PSNRHVS_SRC_X86_DSP_INIT_H */
