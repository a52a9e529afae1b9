/*
 * psnrhvs: `psnrhvs report` (one HTML page of curves and tables from score
 * files) and the --plot SVG of a scoring run.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_REPORT_H
#define PSNRHVS_TOOLS_REPORT_H

#include <stdio.h>

#include "read_scores.h"

/** `psnrhvs report ...` with argv[0] = "report". @return the exit status. */
int report_main(int argc, char *const *argv);

typedef struct PlotData {
    const PsnrHvsScoreSet *scores;
    const char *title;
} PlotData;

/** The SVG of --plot: each key of one run, a curve each. Takes a PlotData. */
int plot_write(FILE *f, const void *plot_data);

#endif /* PSNRHVS_TOOLS_REPORT_H */
