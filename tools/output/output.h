/*
 * psnrhvs: score writers (libvmaf's XML, JSON and CSV layouts) and pooling.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_OUTPUT_OUTPUT_H
#define PSNRHVS_TOOLS_OUTPUT_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "psnrhvs.h"

/** The per-frame keys, in libvmaf's order. */
enum OutputKey {
    OUTPUT_KEY_Y = 0,
    OUTPUT_KEY_CB,
    OUTPUT_KEY_CR,
    OUTPUT_KEY_COMBINED,
    OUTPUT_NUM_KEYS,
};

typedef struct OutputFrame {
    unsigned frame_num; ///< index in the (skipped) input, kept under --subsample
    PsnrHvsScore score;
} OutputFrame;

typedef struct OutputPool {
    double min, max, mean, harmonic_mean;
} OutputPool;

typedef struct OutputData {
    const char *version; ///< the "version" attribute
    int width, height;
    double fps;
    int num_planes;                       ///< 3, or 1 (luma only): only y and combined then
    int num_keys;                         ///< 4 or 2
    enum OutputKey keys[OUTPUT_NUM_KEYS]; ///< the keys written, in order
    const OutputFrame *frames;
    size_t num_frames;
    OutputPool pool[OUTPUT_NUM_KEYS]; ///< indexed by OutputKey
    int precision;                    ///< digits after the point, or -1 for %.17g
    int raw;                          ///< add raw_y/raw_cb/raw_cr as %a
} OutputData;

/** A writer, in the manner of dav1d's Muxer. @return 0, or -1 on a write error. */
typedef struct Muxer {
    const char *name;
    int (*write)(FILE *f, const OutputData *d);
} Muxer;

extern const Muxer psnrhvs_muxer_xml;
extern const Muxer psnrhvs_muxer_json;
extern const Muxer psnrhvs_muxer_csv;

const char *psnrhvs_output_key_name(enum OutputKey k);
double psnrhvs_output_value(const PsnrHvsScore *s, enum OutputKey k);

/**
 * Fill d->keys, d->num_keys and d->pool from d->frames as libvmaf pools:
 * sequential double sums in frame order, mean = sum / n,
 * harmonic_mean = n / sum(1 / (s + 1)) - 1.
 */
void psnrhvs_output_pool(OutputData *d);

/** Human-readable pooled values, one line per key. */
int psnrhvs_output_summary(FILE *f, const OutputData *d);

#define NUMFMT_SIZE 400

/**
 * The one number formatter of all writers: "%.*f" (default 6 digits, as
 * libvmaf) or "%.17g" for precision -1. Infinities and NaN are "null" when
 * json is set, else "inf", "-inf", "nan" (what printf gives libvmaf).
 */
const char *psnrhvs_numfmt(char *buf, double v, int precision, int json);

/** C99 hex float of a raw f32 plane score widened to double ("0x1.b5e0b4p-12", "0x0p+0"). */
const char *psnrhvs_rawfmt(char *buf, float raw);

/**
 * An output destination. For a file, a temporary file is created at once in
 * the same directory and renamed over path only when everything was written,
 * so a failed run leaves an existing file untouched. "-" is stdout.
 */
typedef struct OutputFile OutputFile;

int psnrhvs_output_open(OutputFile **of, const char *path);
/** Write d with m and move the file in place; frees of. @return 0 or -1 (reported). */
int psnrhvs_output_commit(OutputFile **of, const Muxer *m, const OutputData *d);
/** Remove the temporary file; frees of. */
void psnrhvs_output_abort(OutputFile **of);

#endif /* PSNRHVS_TOOLS_OUTPUT_OUTPUT_H */
