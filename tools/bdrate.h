/*
 * psnrhvs: `psnrhvs bdrate`, Bjøntegaard deltas of two rate-distortion
 * curves (rate tables: one row per rung, a bitrate column in kbit/s and
 * psnr_hvs columns), for the subcommand and the report's table.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_BDRATE_H
#define PSNRHVS_TOOLS_BDRATE_H

#include <stddef.h>

#include "output/output.h"

/* The deltas are the library's (psnrhvs_bd); these are its names here. */
#define BD_MIN_RUNGS PSNRHVS_BD_MIN_POINTS
#define BD_MAX_RUNGS PSNRHVS_BD_MAX_POINTS
#define BD_PCHIP     PSNRHVS_BD_PCHIP
#define BD_CUBIC     PSNRHVS_BD_CUBIC
#define BdMethod     PsnrHvsBdMethod

/** One curve: the rungs of a rate table, in file order. */
typedef struct RdTable {
    char *name;                       ///< the file's name, for messages
    size_t n;                         ///< rungs
    double *rate;                     ///< kbit/s
    double *metric[PSNRHVS_NUM_KEYS]; ///< dB per rung; NULL where the table has no such column
    char **label;                     ///< each rung's id (an id column) or "line N"
} RdTable;

/**
 * 1 when the first line of buf is a CSV header with a bitrate column (a rate
 * table), else 0: how the report tells rate tables from score files.
 */
int rd_table_detect(const char *buf, size_t len);

/**
 * Parse a rate table. Metric columns are psnr_hvs_y, psnr_hvs_cb,
 * psnr_hvs_cr, psnr_hvs, each else taken from NAME_<pool> (psnrhvs batch's
 * summary: pool "mean", the default with NULL, or "harmonic_mean", "min",
 * "max"). A status column (batch's) must say done or skipped.
 * @return 0, or -1 with one line in err (naming the file and row).
 */
int rd_table_parse(RdTable *t, const char *name, const char *buf, size_t len, const char *pool,
                   char *err, size_t err_size);

/** rd_table_parse() of a file ("-": stdin). */
int rd_table_read(RdTable *t, const char *path, const char *pool, char *err, size_t err_size);

void rd_table_free(RdTable *t);

typedef PsnrHvsBd BdResult;

/**
 * BD-rate and BD-metric of test against anchor for key k (both tables must
 * have it). @return 0, or -1 with the reason in err: fewer than
 * BD_MIN_RUNGS rungs, a curve that is not monotonic (the metric must rise
 * strictly with the rate), a value that is not finite, no overlap.
 */
int bd_compute(enum BdMethod m, const RdTable *anchor, const RdTable *test, enum PsnrHvsKey k,
               BdResult *r, char *err, size_t err_size);

/** The method named name (psnrhvs_bd_method_string's "pchip", "cubic"), or -1. */
int bd_method_from_name(const char *name);
/** 1 for a pooled value a rate table's metric may be (mean, harmonic_mean, min, max). */
int bd_pool_ok(const char *pool);

/** `psnrhvs bdrate ...` with argv[0] = "bdrate". @return the exit status. */
int bdrate_main(int argc, char *const *argv);

#endif /* PSNRHVS_TOOLS_BDRATE_H */
