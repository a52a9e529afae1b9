/*
 * psnrhvs: reading score files back (psnrhvs's or libvmaf's XML, JSON, CSV
 * and sub layouts), for `psnrhvs report` and the summary of `psnrhvs batch`.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_SCORES_H
#define PSNRHVS_TOOLS_SCORES_H

#include <stddef.h>

#include "output/output.h"

enum ScoreFormat {
    SCORES_XML,
    SCORES_JSON,
    SCORES_CSV,
    SCORES_SUB,
};

typedef struct ScoreFrame {
    unsigned num;              ///< frameNum
    double v[OUTPUT_NUM_KEYS]; ///< indexed by OutputKey; NaN where the file has no value
    unsigned char has[OUTPUT_NUM_KEYS];
} ScoreFrame;

typedef struct ScoreSet {
    enum ScoreFormat format;
    ScoreFrame *frames;
    size_t num_frames;
    int has_key[OUTPUT_NUM_KEYS]; ///< some frame has this key
    int num_planes;               ///< 3 when Cb or Cr is present, else 1
    int pooled_in_file;           ///< pool[] came from the file (XML, JSON pooled_metrics)
    PsnrHvsPool pool[OUTPUT_NUM_KEYS];
    int width, height; ///< XML's params, else 0
    size_t nulls;      ///< JSON nulls read as +inf (identical frames)
} ScoreSet;

/**
 * Parse len bytes of a score file. The layout is recognised from the content
 * (`<`: XML, `{"`: JSON, `Frame,`: CSV, `{N}{N+1}`: sub). Other metrics of a
 * libvmaf file are skipped. JSON's null is +inf (the only value psnr_hvs has
 * that JSON cannot write). A file cut short (no closing tag, bad JSON, a row
 * or line without its end) is an error. Without pooled values in the file
 * (CSV, sub) they are computed from the frames as libvmaf pools.
 * @return 0, or -1 with one line in err.
 */
int scores_parse(ScoreSet *s, const char *buf, size_t len, char *err, size_t err_size);

/** Read and parse a file ("-": stdin). @return 0, or -1 with one line in err. */
int scores_read(ScoreSet *s, const char *path, char *err, size_t err_size);

/** The frames of a scoring run (the keys it wrote), without a file. @return 0 or -1 (no memory). */
int scores_from_output(ScoreSet *s, const OutputData *d);

void scores_free(ScoreSet *s);

const char *scores_format_name(enum ScoreFormat f);

/** libvmaf's pooling of key k over the frames that have it. @return 0 or -1 (no memory). */
int scores_pool_key(const ScoreSet *s, enum OutputKey k, PsnrHvsPool *out);

/**
 * The shortest "%.*g" that reads back as v (15 to 17 digits), "inf", "-inf"
 * or "nan": a value read from a file written back without inventing digits.
 */
const char *shortest(char *buf, size_t size, double v);

#endif /* PSNRHVS_TOOLS_SCORES_H */
