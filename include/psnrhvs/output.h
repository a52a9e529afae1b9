/*
 * psnrhvs: libvmaf's pooling, and score files (XML, JSON, CSV, sub) written and
 * read back.
 * Part of the public API: include <psnrhvs.h>, which includes every part.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_OUTPUT_H
#define PSNRHVS_OUTPUT_H

#include "psnrhvs/common.h"
#include "psnrhvs/file.h"
#include "psnrhvs/score.h"

#ifdef __cplusplus
extern "C" {
#endif

/** libvmaf's pooled values of one key over a clip's frames. */
typedef struct PsnrHvsPool {
    double min, max, mean, harmonic_mean;
} PsnrHvsPool;

/**
 * Pools n values as libvmaf does: plain double sums in frame order, no
 * compensation (harmonic_mean: of v + 1, less 1). Value i is read at
 * (const char *)values + i * stride (stride 0: packed doubles), so one
 * field of an array of scores (&s[0].psnr_hvs_y, sizeof(*s)) pools in
 * place. n = 0 gives NaN in every field.
 */
PSNRHVS_API void psnrhvs_pool(const double *values, size_t n, size_t stride, PsnrHvsPool *out);

/** The per-frame values of a score file, in libvmaf's order. */
enum PsnrHvsKey {
    PSNRHVS_KEY_Y = 0,
    PSNRHVS_KEY_CB,
    PSNRHVS_KEY_CR,
    PSNRHVS_KEY_COMBINED,
    PSNRHVS_NUM_KEYS,
};

/** @return "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs", or NULL past the last. */
PSNRHVS_API const char *psnrhvs_key_string(enum PsnrHvsKey k);

/** @return key k of s (psnr_hvs for PSNRHVS_KEY_COMBINED). */
PSNRHVS_API double psnrhvs_key_value(const PsnrHvsScore *s, enum PsnrHvsKey k);

enum PsnrHvsScoreFormat {
    PSNRHVS_SCORES_XML = 0, ///< libvmaf's default
    PSNRHVS_SCORES_JSON,
    PSNRHVS_SCORES_CSV,
    PSNRHVS_SCORES_SUB, ///< "{N}{N+1}frame: N|key: value|...", no pooled values
};

/** @return "xml", "json", "csv", "sub", or NULL past the last (a file's extension). */
PSNRHVS_API const char *psnrhvs_scores_format_string(enum PsnrHvsScoreFormat f);

/** @return the format named name, or PSNRHVS_ERR(EINVAL). */
PSNRHVS_API int psnrhvs_scores_format_from_string(const char *name);

/** @return the format of path by its extension (any case); xml otherwise. */
PSNRHVS_API enum PsnrHvsScoreFormat psnrhvs_scores_format_for_path(const char *path);

/** PsnrHvsOutput.precision: "%.17g", which reads back as the same double. */
#define PSNRHVS_PRECISION_MAX (-1)
/** PsnrHvsOutput.precision: libvmaf's "%.6f", or "%.16f" when the fraction has
 *  more than six leading zeros. */
#define PSNRHVS_PRECISION_VMAF (-2)

/** A frame's score and its number in the input (kept under subsampling). */
typedef struct PsnrHvsFrameScore {
    unsigned frame_num;
    PsnrHvsScore score;
} PsnrHvsFrameScore;

/** What a score file is written from; pooled values are computed as psnrhvs_pool(). */
typedef struct PsnrHvsOutput {
    const char *version; ///< libvmaf's "version"
    const char *engine;  ///< what scored, for psnrhvs_output_summary() ("cpu:avx2"), or NULL
    int width, height;   ///< XML's qualityWidth and qualityHeight
    double fps;          ///< "%.2f"; JSON writes null when not finite
    int num_planes;      ///< 3, or 1: psnr_hvs_y and psnr_hvs only
    int precision;       ///< digits after the point, PSNRHVS_PRECISION_MAX or _VMAF
    int raw;             ///< 1: raw_y, raw_cb and raw_cr too, as C99 hex floats
    const PsnrHvsFrameScore *frames;
    size_t num_frames;
    uint8_t reserved[32]; ///< zero; room to grow without an ABI break
} PsnrHvsOutput;

/** Where written bytes go. @return 0, or non-zero to stop with PSNRHVS_ERR(EIO). */
typedef int (*PsnrHvsWriteCallback)(void *cookie, const char *data, size_t size);

/**
 * Write o in format f, in pieces, through write. Non-finite values are
 * "null" in JSON (as libvmaf), else as printf writes them.
 * @return 0, PSNRHVS_ERR(EINVAL), PSNRHVS_ERR(ENOMEM) or PSNRHVS_ERR(EIO).
 */
PSNRHVS_API int psnrhvs_output_write(const PsnrHvsOutput *o, enum PsnrHvsScoreFormat f,
                                     PsnrHvsWriteCallback write, void *cookie);

/** The pooled values of o for people: "N frames, WxH, engine", then a line per key. */
PSNRHVS_API int psnrhvs_output_summary(const PsnrHvsOutput *o, PsnrHvsWriteCallback write,
                                       void *cookie);

/** A frame read back from a score file. */
typedef struct PsnrHvsScoreRow {
    unsigned frame_num;
    double value[PSNRHVS_NUM_KEYS];      ///< by enum PsnrHvsKey; NaN where the file has none
    unsigned char has[PSNRHVS_NUM_KEYS]; ///< 1 where it has
    float raw[3];                        ///< raw_y, raw_cb, raw_cr; NaN where the file has none
    unsigned char has_raw[3];
} PsnrHvsScoreRow;

/** A score file read back. */
typedef struct PsnrHvsScoreSet {
    enum PsnrHvsScoreFormat format; ///< told from the content
    PsnrHvsScoreRow *frames;
    size_t num_frames;
    int has_key[PSNRHVS_NUM_KEYS]; ///< some frame has this key
    int num_planes;                ///< 3 when Cb or Cr is present, else 1
    int pooled_in_file;            ///< pool[] is the file's (XML, JSON), else computed
    PsnrHvsPool pool[PSNRHVS_NUM_KEYS];
    int width, height;    ///< XML's params, else 0
    size_t nulls;         ///< JSON nulls, read as +inf (the value of identical frames)
    double fps;           ///< XML's and JSON's fps, NaN where none
    char version[64];     ///< XML's and JSON's version (cut to 63 bytes), "" where none
    uint8_t reserved[32]; ///< room to grow without an ABI break
} PsnrHvsScoreSet;

/**
 * Parse len bytes of a score file: psnrhvs's or libvmaf's, other metrics
 * skipped. The layout is told from the content. A file cut short is an
 * error. Without pooled values in the file they are computed from the frames.
 * @return 0, or PSNRHVS_ERR(EINVAL) (PSNRHVS_FILE_ERROR_MALFORMED) or
 *         PSNRHVS_ERR(ENOMEM), st filled; free s with psnrhvs_scores_free().
 */
PSNRHVS_API int psnrhvs_scores_parse(PsnrHvsScoreSet *s, const char *buf, size_t len,
                                     PsnrHvsFileStatus *st);

/** libvmaf's pooling of key k over the frames of s that have it. @return 0 or PSNRHVS_ERR(ENOMEM).
 */
PSNRHVS_API int psnrhvs_scores_pool_key(const PsnrHvsScoreSet *s, enum PsnrHvsKey k,
                                        PsnrHvsPool *out);

PSNRHVS_API void psnrhvs_scores_free(PsnrHvsScoreSet *s);

/** Bjøntegaard delta methods (psnrhvs_bd). */
enum PsnrHvsBdMethod {
    PSNRHVS_BD_PCHIP =
        0, ///< PCHIP of log10(rate) over the metric, integrated exactly (JVET, AOM CTC)
    PSNRHVS_BD_CUBIC = 1, ///< VCEG-M33: a least-squares cubic of log10(rate) over the metric
};

/** Fewest and most points a curve of psnrhvs_bd() may have. */
#define PSNRHVS_BD_MIN_POINTS 4
#define PSNRHVS_BD_MAX_POINTS 1024

/** One rate-distortion curve: n points, in any order. */
typedef struct PsnrHvsRdCurve {
    const char *name;         ///< for messages (a file's name)
    size_t n;                 ///< points
    const double *rate;       ///< kbit/s (any unit, the same for both curves)
    const double *metric;     ///< dB
    const char *const *label; ///< each point's name for messages, or NULL ("point 1"...)
} PsnrHvsRdCurve;

/** psnrhvs_bd()'s deltas. */
typedef struct PsnrHvsBd {
    double rate;             ///< BD-rate, % (negative: the test needs less rate)
    double metric;           ///< BD-metric, dB (positive: the test scores higher)
    double lo, hi;           ///< the metric range both curves cover, dB
    double rate_lo, rate_hi; ///< the rate range both cover, in the curves' unit
} PsnrHvsBd;

/**
 * BD-rate and BD-metric of test against anchor. key names the metric in
 * messages (NULL: "psnr_hvs").
 * @return 0, or PSNRHVS_ERR(EINVAL) with one line in st->message: fewer
 *         than PSNRHVS_BD_MIN_POINTS points, a curve that is not monotonic
 *         (the metric must rise strictly with the rate), two points at one
 *         rate, a value that is not finite, curves that do not overlap.
 */
PSNRHVS_API int psnrhvs_bd(enum PsnrHvsBdMethod m, const PsnrHvsRdCurve *anchor,
                           const PsnrHvsRdCurve *test, const char *key, PsnrHvsBd *out,
                           PsnrHvsFileStatus *st);

/** @return "pchip", "cubic", or NULL past the last. */
PSNRHVS_API const char *psnrhvs_bd_method_string(enum PsnrHvsBdMethod m);

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_OUTPUT_H */
