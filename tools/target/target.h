/*
 * psnrhvs: `psnrhvs target`: the cheapest encoder setting whose pooled
 * psnr_hvs reaches a target. What its files share.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_TARGET_TARGET_H
#define PSNRHVS_TOOLS_TARGET_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "psnrhvs.h"

#define TARGET_MAX_SAMPLES 64
#define TARGET_MAX_PROBES  1024

/** How the frames' scores of a probe become one number (--pool). */
typedef struct TargetPool {
    enum { POOL_MEAN, POOL_HARMONIC, POOL_MIN, POOL_PERCENTILE } kind;
    double percentile; ///< POOL_PERCENTILE: N of pN, 0 < N <= 100
    char name[16];     ///< as given: "mean", "p5"...
} TargetPool;

/** The command line. */
typedef struct TargetArgs {
    const char *source;
    int width, height, bitdepth, have_layout;
    enum PsnrHvsPixelLayout layout;
    int fps_num, fps_den; ///< --fps, 0: from the source (25 for raw video)
    const char *encoder;
    const char *encoder_options; ///< "k=v:k=v", or NULL
    double target;
    int have_target;
    TargetPool pool;
    enum PsnrHvsKey key;
    int have_range;
    double range_lo, range_hi; ///< --range, in the parameter's unit
    int samples;               ///< --samples, 0: from the length
    double sample_seconds;     ///< --sample-seconds
    int full;                  ///< --full: the whole clip is the one sample
    int sweep;                 ///< --sweep: probe every setting of the range
    const char *output;        ///< -o: .json or .csv
    const char *keep_probes;   ///< --keep-probes DIR
    const char *encode;        ///< --encode OUT
    enum PsnrHvsBackend backend;
    int device, threads, jobs;
    int quiet;
} TargetArgs;

/** One segment of the source, its frames decoded and kept for the search. */
typedef struct Sample {
    long long start; ///< first frame, in the source
    int frames;
    uint8_t **ref;  ///< frames x frame_bytes, stored planes back to back
    uint8_t *block; ///< where the first block_frames of them lie (the rest: malloc)
    int block_frames;
} Sample;

/** The source: its format and the samples taken of it. */
typedef struct Source {
    PsnrHvsFormat fmt;
    PsnrHvsGeometry geo;
    int fps_num, fps_den;
    long long frames;     ///< in the whole source
    long long file_bytes; ///< its size on disk, 0: unknown
    int num_samples;
    Sample sample[TARGET_MAX_SAMPLES];
    int sample_frames; ///< in all samples
} Source;

/** One probe: a setting encoded, decoded back and scored. */
typedef struct Probe {
    int index;                ///< in the search's order (0: the best quality)
    double value;             ///< the setting (CRF, QP, kbit/s)
    double score;             ///< pooled
    double kbps;              ///< bitrate of the samples' streams
    long long bytes;          ///< of the samples' streams
    double encode_s, score_s; ///< seconds in the encoder, in decoding and scoring (all threads)
    double wall_s;            ///< the probe's wall-clock time
} Probe;

/** What a search found. */
typedef struct TargetResult {
    int num_probes;
    Probe probe[TARGET_MAX_PROBES];
    int chosen; ///< in probe[], -1: the target is out of reach
    int best;   ///< in probe[]: the highest score seen
    double seconds;
    const char *backend; ///< what scored ("cpu", ...)
    const char *param;   ///< "crf", "qp", "b"
    double lo, hi;       ///< the range searched
    /* --encode: the whole source at the setting chosen. */
    double encoded_score, encoded_kbps;
    long long encoded_bytes;
} TargetResult;

/** The pooled value of n frame scores (values are sorted for a percentile). */
double target_pool(const TargetPool *p, double *values, size_t n);

/** Parse --pool: mean, harmonic_mean, min or pN. @return 0 or -1. */
int target_pool_parse(const char *arg, TargetPool *p);

/** Table on stdout, and -o's JSON or CSV. @return 0, or -1 (reported). */
int target_print(const TargetArgs *a, const Source *s, const TargetResult *r);
int target_write(const TargetArgs *a, const Source *s, const TargetResult *r);

/** The run with FFmpeg's libraries (target_run.c). @return the exit status. */
int target_run(const TargetArgs *a);

int target_main(int argc, char *const *argv);

#endif /* PSNRHVS_TOOLS_TARGET_TARGET_H */
