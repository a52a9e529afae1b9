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

typedef struct OutputData {
    const char *version; ///< the "version" attribute
    const char *engine;  ///< what scored, for the summary ("cpu:avx2"), or NULL
    int width, height;
    double fps;
    int num_planes;                       ///< 3, or 1 (luma only): only y and combined then
    int num_keys;                         ///< 4 or 2
    enum OutputKey keys[OUTPUT_NUM_KEYS]; ///< the keys written, in order
    const OutputFrame *frames;
    size_t num_frames;
    PsnrHvsPool pool[OUTPUT_NUM_KEYS]; ///< indexed by OutputKey
    int precision;                     ///< digits after the point, NUMFMT_MAX or NUMFMT_VMAF
    int raw;                           ///< add raw_y/raw_cb/raw_cr as %a
} OutputData;

/** A writer, in the manner of dav1d's Muxer. @return 0, or -1 on a write error. */
typedef struct Muxer {
    const char *name;
    int (*write)(FILE *f, const OutputData *d);
} Muxer;

extern const Muxer muxer_xml;
extern const Muxer muxer_json;
extern const Muxer muxer_csv;
extern const Muxer muxer_sub;

/** Every format, libvmaf's default (xml) first, NULL-terminated; a file's
 *  extension is its format's name. */
extern const Muxer *const output_muxers[];
/** The format named name, or NULL. */
const Muxer *output_muxer(const char *name);
/** The format of a file by its extension (any case), libvmaf's xml otherwise. */
const Muxer *output_muxer_for_path(const char *path);
/** "xml, json, csv or sub" into buf, for messages. @return buf */
const char *output_muxer_names(char *buf, size_t size);

const char *output_key_name(enum OutputKey k);
double output_value(const PsnrHvsScore *s, enum OutputKey k);

/**
 * Fill d->keys, d->num_keys and d->pool from d->frames as libvmaf pools:
 * sequential double sums in frame order, mean = sum / n,
 * harmonic_mean = n / sum(1 / (s + 1)) - 1.
 */
void output_pool(OutputData *d);

/** Human-readable pooled values, one line per key. */
int output_summary(FILE *f, const OutputData *d);

/* Enough for "%.32f" of DBL_MAX (309 digits before the point). */
#define NUMFMT_SIZE 400
/** precision: "%.17g", which reads back as the same double */
#define NUMFMT_MAX (-1)
/** precision: libvmaf's own choice, "%.6f", or "%.16f" when the fraction has
 *  more than six leading zeros (the default) */
#define NUMFMT_VMAF (-2)

/**
 * libvmaf's count_leading_zeros_d() (libvmaf/src/output.c): how many times
 * the fractional part of |x| is multiplied by 10 before it reaches 1 (0 for
 * a zero fraction, NaN, infinities and |x| >= 2^31, as on x86-64).
 */
int vmaf_fraction_zeros(double x);

/**
 * The one number formatter of all writers: "%.*f" with precision >= 0,
 * NUMFMT_MAX or NUMFMT_VMAF. Infinities and NaN are "null" when json is set,
 * else what printf writes for libvmaf ("inf", "-inf", "nan", "-nan").
 */
const char *numfmt(char *buf, double v, int precision, int json);

/** C99 hex float of a raw f32 plane score widened to double ("0x1.b5e0b4p-12", "0x0p+0"). */
const char *rawfmt(char *buf, float raw);

/**
 * An output destination (outfile.c). What path names is looked at once, before
 * any frame is scored, and decides how it is written:
 * - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the open
 *   descriptor itself, at its current offset;
 * - a new file, or a regular file with one link: a temporary file in the
 *   target's directory, renamed over it when complete (an existing file keeps
 *   its permission bits, and its owner where allowed), with handlers that
 *   remove the temporary file on a fatal signal;
 * - a regular file with several hard links (or in a directory we may not
 *   write): written in place, truncated only once the scores are ready;
 * - a character device or socket: written in place, never truncated;
 * - a FIFO: opened only when the scores are ready (a reader may come later).
 * Symbolic links are followed: the target is written, the link stays.
 * A directory, a block device, a missing parent or no permission is an error
 * at once (one line on stderr).
 */
typedef struct OutputFile OutputFile;

/** @return 0 or -1 (reported). */
int output_open(OutputFile **of, const char *path);
/** Write d with m and put it in place; frees of. @return 0 or -1 (reported). */
int output_commit(OutputFile **of, const Muxer *m, const OutputData *d);
/** The same with any writer: write(f, cookie) returns 0, or -1 on a write error. */
int output_commit_with(OutputFile **of, int (*write)(FILE *f, const void *cookie),
                       const void *cookie);
/** Remove any temporary file and leave an existing one as it was; frees of. */
void output_abort(OutputFile **of);

/** Remove every temporary file of the outputs open (async-signal-safe): a
 *  process ending by a signal it caught itself (batch). */
void output_remove_temporaries(void);

/** A file of a run and what it is to the user ("-o", "the reference"...). */
typedef struct NamedFile {
    const char *path;
    const char *role;
} NamedFile;

/**
 * Before anything is written: an output that is one of the inputs (the same
 * regular file, links followed, "-" as stdin/stdout) or another output.
 * @return 0, or -1 with one line naming both in err.
 */
int output_check_clobber(const NamedFile *outs, int nout, const NamedFile *ins, int nin, char *err,
                         size_t err_size);

/**
 * Make the missing folders of path up to its last '/', the ones the user
 * named, never under /dev, /proc or /sys. @return 0, or -1 with err.
 */
int output_make_parents(const char *path, char *err, size_t err_size);

#endif /* PSNRHVS_TOOLS_OUTPUT_OUTPUT_H */
