/*
 * psnrhvs: command-line parsing.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_CLI_PARSE_H
#define PSNRHVS_TOOLS_CLI_PARSE_H

#include "psnrhvs.h"
#include "output/output.h"
#include "parity.h"

/** Most contexts of --device LIST (duplicates allowed: two on one GPU). */
#define CLI_MAX_DEVICES 64

typedef struct CLISettings {
    const char *reference;
    const char *distorted;                     ///< the first -d
    const char *dists[PSNRHVS_MAX_RENDITIONS]; ///< every -d, in order (a ladder when several)
    int num_dists;
    const char *output; ///< NULL: human summary (or the chosen format) on stdout
    int format;         ///< an enum PsnrHvsScoreFormat, -1: not chosen (XML for files, as libvmaf)
    int width, height;  ///< 0 when not given
    int bitdepth;       ///< 0 when not given
    int have_layout;
    enum PsnrHvsPixelLayout layout;
    unsigned subsample; ///< score frames 0, N, 2N... (1: all; vmaf's 0 is stored as 1)
    unsigned frame_cnt; ///< 0: all
    unsigned frame_skip_ref, frame_skip_dist;
    int precision; ///< psnrhvs_output_write's (default: PSNRHVS_PRECISION_VMAF)
    int have_isa;  ///< --isa given
    int have_cpumask;
    unsigned long long cpumask; ///< vmaf's --cpumask: instruction sets turned off (CLI_CPUMASK_*)
    int raw;                    ///< add raw_* plane scores
    const char *plot;           ///< --plot: an SVG of the curves, or NULL
    int hwaccel;                ///< --hwaccel: an enum InputHwaccel (input/input.h)
    int backend_given;          ///< --backend given (else --hwaccel's frames pick cuda)
    int scale_algo;             ///< --scale: a scale_algo() code, 0: sizes must match
    int common_bitdepth;        ///< --common_bitdepth (--aom_ctc v6.0+): shift the lower depth up
    int colour_error;           ///< --colour_mismatch error: declared colours that differ fail
    int timing;                 ///< --timing: where the time goes, on stderr
    int quiet;
    int list_devices;
    int verbose;
    int num_devices; ///< --device LIST or all: one context per entry; 0: one (lib->device)
    int all_devices; ///< --device all: every device the backend lists (filled at run time)
    int devices[CLI_MAX_DEVICES];
    int parity;      ///< "psnrhvs parity ..." or --backend parity
    int num_configs; ///< --backends, 0: the default list
    ParityConfig configs[PARITY_MAX_CONFIGS];
} CLISettings;

/* Bits of vmaf's --cpumask (libvmaf.h) that psnrhvs has kernels for. As in
 * vmaf they depend on the CPU: on x86 bit 0 is SSE2 (nothing here), on
 * AArch64 it is NEON (VMAF_ARM_CPU_FLAG_NEON), and bits 3 and 4 mean nothing
 * there. */
#define CLI_CPUMASK_AVX2   (1ull << 3)
#define CLI_CPUMASK_AVX512 (1ull << 4)
#define CLI_CPUMASK_NEON   (1ull << 0)

/**
 * Fill cli and lib from argv. Prints help or version and exits 0 when asked;
 * on a usage error prints "psnrhvs: <reason>" with a hint and exits 2.
 */
void cli_parse(int argc, char *const *argv, int parity, CLISettings *cli, PsnrHvsSettings *lib);

/* A backend's name as --backend spells it ("?" for none), and back (0, or -1
 * for a name it does not know): one table for the CLI, batch and parity. */
const char *cli_backend_name(enum PsnrHvsBackend b);
int cli_backend_from_name(const char *name, enum PsnrHvsBackend *b);
/** The library's backend names as "auto, cpu, ... or vulkan" in buf, for messages. */
const char *cli_backend_names(char *buf, size_t size);

/** Report a usage error found after parsing and exit 2. */
void cli_usage_error(const char *fmt, ...);

#endif /* PSNRHVS_TOOLS_CLI_PARSE_H */
