/*
 * psnrhvs: private to `psnrhvs report`: the inputs as read (tools/report.c)
 * and the page written from them (tools/report_html.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_REPORT_HTML_H
#define PSNRHVS_TOOLS_REPORT_HTML_H

#include <stdio.h>

#include "bdrate.h"
#include "read_scores.h"

#define MAX_PERCENTILES 8

typedef struct Rendition {
    const char *path;
    char *name;
    PsnrHvsScoreSet s;
    double *x;                   ///< frame numbers
    double *y[PSNRHVS_NUM_KEYS]; ///< per key, NaN where absent
    double *sorted[PSNRHVS_NUM_KEYS];
    size_t num_sorted[PSNRHVS_NUM_KEYS];
    size_t *worst; ///< frame indices, worst first
    size_t num_worst;
    enum PsnrHvsKey rank_key;
    size_t infinite; ///< frames whose ranking key is +inf
} Rendition;

/* A rate table (bitrate column): one rate-distortion curve. */
typedef struct Curve {
    const char *path;
    char *name;
    RdTable t;
} Curve;

typedef struct Report {
    const char *title;
    Rendition *r;
    int n;
    Curve *c; ///< rate tables, in input order; the first is the BD anchor
    int nc;
    enum BdMethod bd_method;
    double percentiles[MAX_PERCENTILES];
    int num_percentiles;
    unsigned worst;
} Report;

/** The HTML page of a Report (the cookie), for output_commit_with. */
int report_write(FILE *f, const void *cookie);

#endif /* PSNRHVS_TOOLS_REPORT_HTML_H */
