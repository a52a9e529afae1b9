/*
 * psnrhvs parity: the same frames through several backend configurations,
 * compared bit for bit.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_PARITY_H
#define PSNRHVS_TOOLS_PARITY_H

#include <stddef.h>

#include "psnrhvs.h"
#include "input/pair_reader.h"

#define PARITY_MAX_CONFIGS 16

/** One configuration of a --backends list; -1 fields keep the command line's value. */
typedef struct ParityConfig {
    char label[96]; ///< as written in the list
    enum PsnrHvsBackend backend;
    int isa;              ///< enum PsnrHvsIsa or -1
    int threads;          ///< or -1
    int device;           ///< or -1
    int exact_helpers;    ///< or -1
    int mask_product;     ///< enum PsnrHvsMaskProduct or -1
    int frames_in_flight; ///< or -1
    int optional;         ///< from the default list: skipped when it cannot open
} ParityConfig;

/**
 * Parse a comma-separated list such as "cpu:scalar:threads=1,cpu:auto,cuda:device=0".
 * @return the number of configurations, or -1 with the reason in err.
 */
int parity_parse(const char *list, ParityConfig *cfg, int max, char *err, size_t err_size);

typedef struct ParityOptions {
    const ParityConfig *configs; ///< NULL: the default list
    int num_configs;
    unsigned subsample;
    int quiet;
} ParityOptions;

/**
 * Score every pair of pr with each configuration (base gives the geometry
 * and the command line's settings) and report on stdout.
 * @return the exit status: 0 all identical, 1 error (reported), 3 differences.
 */
int parity_run(const ParityOptions *opt, const PsnrHvsSettings *base, PairReader *pr);

/**
 * The parity command: cli's inputs read as the score command reads them
 * (its stages up to the pair reader), then parity_run on every pair.
 * @return the exit status, as parity_run's (2: a usage error).
 */
struct CLISettings;
int cli_parity(const struct CLISettings *cli, PsnrHvsSettings lib);

#endif /* PSNRHVS_TOOLS_PARITY_H */
