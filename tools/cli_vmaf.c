/*
 * psnrhvs: libvmaf's flags that mean little or nothing here: -n, -m,
 * --nflx_ctc and --aom_ctc, and what --cpumask and --gpumask ask of the
 * settings (the vmaf CLI's spellings and values, cli_parse.c's loop).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_parse_int.h"

/* vmaf's --aom_ctc presets (tools/cli_parse.c): psnr_hvs with default options
 * is one of their features. */
static const char *parse_aom_ctc(const char *const arg) {
    static const char *const versions[] = {"v1.0", "v2.0", "v3.0", "v4.0", "v5.0", "v6.0", "v7.0"};
    if (!strcmp(arg, "proposed"))
        cli_usage_error("--aom_ctc proposed is deprecated (as in vmaf): use v1.0 to v7.0");
    for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
        if (!strcmp(arg, versions[i])) return versions[i];
    cli_usage_error("unknown --aom_ctc version '%s' (expected v1.0 to v7.0)", arg);
    return NULL;
}

/* vmaf's flags that mean little or nothing here: 1 when o is one of them. */
int cli_vmaf_option(const int o, CLISettings *const cli, ParseState *const st) {
    switch (o) {
    case 'v':
        st->version = 1;
        return 1;
    case 'n':
        return 1; /* libvmaf's --no_prediction: nothing to predict here */
    case 'm':
        cli_usage_error("-m/--model does not apply: psnr_hvs uses no VMAF model and "
                        "psnrhvs computes no VMAF score (drop it, or use libvmaf's "
                        "vmaf for VMAF)");
        return 1;
    case ARG_NFLX_CTC:
        if (strcmp(optarg, "v1.0"))
            cli_usage_error("unknown --nflx_ctc version '%s' (vmaf knows v1.0)", optarg);
        cli_usage_error("--nflx_ctc v1.0 does not apply: its metrics (the VMAF 4K "
                        "models, psnr, float_ssim, cambi) do not include psnr_hvs, the "
                        "only one psnrhvs computes");
        return 1;
    case ARG_AOM_CTC:
        st->aom_ctc = parse_aom_ctc(optarg);
        /* v6.0 and later compare at a common bit depth (vmaf's common_bitdepth) */
        if (strcmp(st->aom_ctc, "v6.0") >= 0) cli->common_bitdepth = 1;
        return 1;
    }
    return 0;
}

/* An explicit --isa that the mask turns off is a contradiction, not a choice. */
static void check_isa_against_cpumask(const CLISettings *const cli,
                                      const PsnrHvsSettings *const lib) {
    if (!cli->have_isa || !cli->have_cpumask) return;
#if defined(__aarch64__)
    const unsigned long long off = lib->isa == PSNRHVS_ISA_NEON ? CLI_CPUMASK_NEON : 0;
#else
    const unsigned long long off = lib->isa == PSNRHVS_ISA_AVX2 ? CLI_CPUMASK_AVX2
                                   : lib->isa == PSNRHVS_ISA_AVX512
                                       ? CLI_CPUMASK_AVX2 | CLI_CPUMASK_AVX512
                                       : 0;
#endif
    if (cli->cpumask & off)
        cli_usage_error("--isa %s needs what --cpumask %#llx turns off", cli_isa_name(lib->isa),
                        cli->cpumask);
}

/* --gpumask and --aom_ctc as vmaf reads them, and what of them applies here. */
static void apply_vmaf_masks(const CLISettings *const cli, PsnrHvsSettings *const lib,
                             const ParseState *const st) {
    /* vmaf: a non-zero --gpumask turns CUDA off: auto stays on the CPU. */
    if (st->have_gpumask && st->gpumask && psnrhvs_backend_reads_cuda_memory(lib->backend))
        cli_usage_error("--gpumask %#llx turns CUDA off, and --backend cuda asks for it",
                        st->gpumask);
    if (st->have_gpumask && st->gpumask && psnrhvs_backend_kind(lib->backend) == PSNRHVS_KIND_AUTO)
        lib->backend = PSNRHVS_BACKEND_CPU;
    if (st->have_gpumask && !cli->quiet)
        fprintf(stderr, "psnrhvs: warning: --gpumask has no effect on libvmaf's psnr_hvs (it has "
                        "no GPU code); psnrhvs picks its devices with --backend (default auto: "
                        "the CPU and every GPU; a non-zero mask: the CPU)\n");
    if (st->aom_ctc && !cli->quiet)
        fprintf(stderr,
                "psnrhvs: warning: --aom_ctc %s: only its psnr_hvs (default options) is computed, "
                "not its VMAF models, psnr, ciede, float_ssim, float_ms_ssim%s\n",
                st->aom_ctc, strcmp(st->aom_ctc, "v3.0") >= 0 ? ", cambi" : "");
}

void cli_vmaf_check(const CLISettings *const cli, PsnrHvsSettings *const lib,
                    const ParseState *const st) {
    check_isa_against_cpumask(cli, lib);
    apply_vmaf_masks(cli, lib, st);
}
