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

/* One probe of a target search. */
typedef struct SearchProbe {
    double setting, score, kbps; ///< score +inf: lossless (null in the JSON)
    long long bytes;
    int order; ///< 1 for the first probed
} SearchProbe;

/* A `psnrhvs target` search (its -o JSON): its probes drawn and listed. */
typedef struct Search {
    const char *path;
    char *name;
    char *encoder, *parameter, *key, *pool; ///< encoder: "" where the JSON has none
    double target;
    SearchProbe *probe; ///< in the order probed
    size_t n;
    long chosen; ///< the chosen probe, or -1 (none reached the target)
} Search;

typedef struct Report {
    const char *title;
    Rendition *r;
    int n;
    Curve *c; ///< rate tables, in input order; the first is the BD anchor
    int nc;
    Search *s; ///< target searches, in input order
    int ns;
    enum BdMethod bd_method;
    double percentiles[MAX_PERCENTILES];
    int num_percentiles;
    unsigned worst;
} Report;

/** 1 when buf looks like psnrhvs target's JSON (an object with "parameter" or "probes"). */
int search_detect(const char *buf, size_t len);

/** Read a target search's JSON. @return 0, or -1 with one line in err (naming no file). */
int search_parse(Search *s, const char *buf, size_t len, char *err, size_t err_size);

void search_free(Search *s);

/** The target searches' section: score over setting and over rate, the probes' table. */
void write_search_section(FILE *f, const Report *rep);

/** The HTML page of a Report (the cookie), for output_commit_with. */
int report_write(FILE *f, const void *cookie);

#endif /* PSNRHVS_TOOLS_REPORT_HTML_H */
