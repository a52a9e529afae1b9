/*
 * psnrhvs: what the command line's parser (cli_parse.c) shares with its
 * parts: the help text (cli_help.c) and libvmaf's flags (cli_vmaf.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_CLI_PARSE_INT_H
#define PSNRHVS_TOOLS_CLI_PARSE_INT_H

#include "cli_parse.h"

/* getopt_long's values of the long options without a letter. */
enum {
    ARG_XML = 256,
    ARG_JSON,
    ARG_CSV,
    ARG_THREADS,
    ARG_SUBSAMPLE,
    ARG_FRAME_CNT,
    ARG_FRAME_SKIP_REF,
    ARG_FRAME_SKIP_DIST,
    ARG_PRECISION,
    ARG_FEATURE,
    ARG_BACKEND,
    ARG_BACKENDS,
    ARG_DEVICE,
    ARG_ISA,
    ARG_LIST_DEVICES,
    ARG_RAW,
    ARG_HELP,
    ARG_SUB,
    ARG_CPUMASK,
    ARG_GPUMASK,
    ARG_AOM_CTC,
    ARG_NFLX_CTC,
    ARG_PLOT,
    ARG_HWACCEL,
    ARG_SCALE,
    ARG_COMMON_BITDEPTH,
    ARG_COLOUR_MISMATCH,
    ARG_TIMING,
};

/* What the options leave for the checks after the loop: what is not a field
 * of CLISettings. */
typedef struct ParseState {
    int version, have_gpumask;
    unsigned long long gpumask;
    const char *backends, *backend, *aom_ctc;
} ParseState;

/** psnrhvs --help's text, on stdout. */
void cli_help(void);

/** --isa's name of isa ("avx2"). */
const char *cli_isa_name(enum PsnrHvsIsa isa);

/** libvmaf's flags that mean little or nothing here (-v, -n, -m, --nflx_ctc,
 *  --aom_ctc): 1 when o is one of them. */
int cli_vmaf_option(int o, CLISettings *cli, ParseState *st);

/** After the options: --isa against --cpumask, then --gpumask and --aom_ctc
 *  as vmaf reads them (lib->backend may change). */
void cli_vmaf_check(const CLISettings *cli, PsnrHvsSettings *lib, const ParseState *st);

#endif /* PSNRHVS_TOOLS_CLI_PARSE_INT_H */
