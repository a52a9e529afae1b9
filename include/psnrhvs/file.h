/*
 * psnrhvs: raw and Y4M files, pixel layouts, plane geometry, and a pair's format
 * negotiation, for every front-end alike.
 * Part of the public API: include <psnrhvs.h>, which includes every part.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_FILE_H
#define PSNRHVS_FILE_H

#include <stdio.h>

#include "psnrhvs/common.h"
#include "psnrhvs/score.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Raw planar YUV and YUV4MPEG2 files ----
 * The containers the psnrhvs CLI and the Python package read, their plane
 * geometry and the negotiation of a pair's format, so that every front-end
 * reads them the same way and says the same words. Needs only the C library:
 * a caller that maps files itself locates frames with psnrhvs_file_locate(). */

/** What a file holds. */
typedef struct PsnrHvsFormat {
    int width;                      ///< luma width, 1..PSNRHVS_MAX_DIMENSION
    int height;                     ///< luma height, 1..PSNRHVS_MAX_DIMENSION
    enum PsnrHvsPixelLayout layout; ///< chroma layout
    int bitdepth;                   ///< bits per sample: 8, 10 or 12 are scored
} PsnrHvsFormat;

/**
 * Sizes of each plane: as stored in a file (chroma rounded up, the way FFmpeg
 * writes odd sizes) and as libvmaf scores them (chroma rounded down). A frame
 * is its planes back to back, each row stored_w samples.
 */
typedef struct PsnrHvsGeometry {
    int num_planes;               ///< 1 for 4:0:0, else 3
    int bytes_per_sample;         ///< 1 up to 8 bits, else 2
    int stored_w[3], stored_h[3]; ///< in the file
    int scored_w[3], scored_h[3]; ///< what psnr_hvs scores
    size_t plane_bytes[3];        ///< stored plane sizes in bytes
    size_t frame_bytes;           ///< sum of plane_bytes
} PsnrHvsGeometry;

/** Why a file call failed; a front-end picks its exception or exit status by it. */
enum PsnrHvsFileError {
    PSNRHVS_FILE_OK = 0,
    PSNRHVS_FILE_ERROR_IO,          ///< cannot open or read (errnum says why)
    PSNRHVS_FILE_ERROR_MALFORMED,   ///< a broken Y4M header or FRAME line
    PSNRHVS_FILE_ERROR_TRUNCATED,   ///< a partial frame
    PSNRHVS_FILE_ERROR_UNSUPPORTED, ///< a bit depth that is not scored (13-16 bits)
    PSNRHVS_FILE_ERROR_LIMIT,       ///< a size above PSNRHVS_MAX_DIMENSION, or too many bytes
    PSNRHVS_FILE_ERROR_MISMATCH,    ///< the two inputs, or an option and a header, disagree
    PSNRHVS_FILE_ERROR_USAGE,       ///< an option missing or invalid (raw input without a size)
    PSNRHVS_FILE_ERROR_TOO_SMALL,   ///< a plane to score has no 8x8 block
    PSNRHVS_FILE_ERROR_NOMEM,       ///< out of memory
};

/** Filled by a failing file call (the caller's, may be NULL: no message). */
typedef struct PsnrHvsFileStatus {
    enum PsnrHvsFileError error; ///< PSNRHVS_FILE_OK until a call fails
    int errnum;                  ///< the errno of PSNRHVS_FILE_ERROR_IO, else 0
    char message[16384];         ///< one line, no newline (room for two PATH_MAX names);
                                 ///< options named as the CLI's flags (--width)
} PsnrHvsFileStatus;

/**
 * The colour an input declares (Y4M's XCOLORRANGE; a decoder's color_range,
 * colorspace, color_primaries, color_trc), "" where it declares none. Only
 * compared between the inputs (psnrhvs_colour_compare): the samples are
 * scored as they are.
 */
typedef struct PsnrHvsColour {
    char range[16];     ///< "limited" or "full"
    char matrix[32];    ///< FFmpeg's names: "bt709", "smpte170m", "bt2020nc", ...
    char primaries[32]; ///< "bt709", "bt470bg", "bt2020", ...
    char transfer[32];  ///< "bt709", "smpte2084", "arib-std-b67", ...
} PsnrHvsColour;

/** A raw or Y4M input being read. */
typedef struct PsnrHvsFile PsnrHvsFile;

/** What psnrhvs_file_open() found. */
typedef struct PsnrHvsFileInfo {
    int y4m;                   ///< 1: YUV4MPEG2, format from its header; 0: raw, no format yet
    PsnrHvsFormat format;      ///< the format frames are read in (raw: once set)
    PsnrHvsGeometry geometry;  ///< of format
    PsnrHvsColour colour;      ///< what the Y4M header declares (its range)
    size_t header_bytes;       ///< bytes before the first frame (the Y4M header)
    size_t frame_header_bytes; ///< bytes before each frame, at least ("FRAME\n": 6; raw 0)
    uint8_t reserved[32];      ///< room to grow without an ABI break
} PsnrHvsFileInfo;

/**
 * Open path and read its header: Y4M by its magic (a .y4m name without it is
 * PSNRHVS_FILE_ERROR_MALFORMED), raw otherwise.
 * @return 0, or PSNRHVS_ERR(errno) with st filled (*f NULL).
 */
PSNRHVS_API int psnrhvs_file_open(PsnrHvsFile **f, const char *path, PsnrHvsFileStatus *st);

/**
 * psnrhvs_file_open() on an open stream (stdin, a pipe, fmemopen), named name
 * in messages. head: head_len bytes already read from it (a probe's
 * look-ahead), read before the stream. The stream is not closed.
 * @return as psnrhvs_file_open().
 */
PSNRHVS_API int psnrhvs_file_open_stream(PsnrHvsFile **f, FILE *stream, const char *name,
                                         const void *head, size_t head_len, PsnrHvsFileStatus *st);

/** What the header said, and the format set since. */
PSNRHVS_API void psnrhvs_file_info(const PsnrHvsFile *f, PsnrHvsFileInfo *info);

/**
 * The format to read frames in: required for raw input; a Y4M file reads
 * its header's unless set. @return 0 or PSNRHVS_ERR(EINVAL) (st filled).
 */
PSNRHVS_API int psnrhvs_file_set_format(PsnrHvsFile *f, const PsnrHvsFormat *fmt,
                                        PsnrHvsFileStatus *st);

/**
 * Read the next frame into buf (geometry.frame_bytes, aligned for uint16_t)
 * and point pic's planes into it (pic may be NULL), as
 * psnrhvs_picture_layout() lays them out: samples above 8 bits in native byte
 * order, not range-checked (psnrhvs_send() refuses a sample above the depth).
 * @return 1 (a frame), 0 (clean end of input), or PSNRHVS_ERR(EIO) with st
 *         filled (a partial frame, a bad FRAME line, a read error).
 */
PSNRHVS_API int psnrhvs_file_read(PsnrHvsFile *f, void *buf, PsnrHvsPicture *pic,
                                  PsnrHvsFileStatus *st);

/**
 * For a caller that maps the file: the next frame's place in the avail bytes
 * at data, where the last one ended (the first: header_bytes into the file).
 * Counts the frame as read.
 * @return 1 with *header the bytes before its samples (which follow, whole),
 *         0 when avail is 0 (the end), or PSNRHVS_ERR(EIO) with st filled.
 */
PSNRHVS_API int psnrhvs_file_locate(PsnrHvsFile *f, const void *data, size_t avail, size_t *header,
                                    PsnrHvsFileStatus *st);

/** Bytes of the stream consumed so far (its header and the frames read), head included. */
PSNRHVS_API uint64_t psnrhvs_file_offset(const PsnrHvsFile *f);

/** 16-bit samples as files store them (little endian) into native order, in
 *  place: for a caller reading frames out of a mapping (a no-op on x86 and ARM). */
PSNRHVS_API void psnrhvs_file_le16_to_native(void *buf, size_t bytes);

PSNRHVS_API void psnrhvs_file_close(PsnrHvsFile **f);

/**
 * What a file is, from its first bytes (NULL: by name only) and its name
 * (NULL: by bytes only): "Y4M" (by its magic or a .y4m name), NULL (raw
 * video), or the name of a compressed container, stream or image this
 * library does not read ("MP4/QuickTime", "Matroska/WebM", "H.264", "PNG
 * image", ...). Raw video has no signature: weak magics decide by name only.
 */
PSNRHVS_API const char *psnrhvs_file_probe(const void *head, size_t size, const char *path);

/** @return 0 and g filled, or PSNRHVS_ERR(EINVAL): a size, layout or depth out of range. */
PSNRHVS_API int psnrhvs_geometry(const PsnrHvsFormat *fmt, PsnrHvsGeometry *g);

/**
 * Point pic's planes at a frame stored as g says from base: planes back to
 * back, rows of stored_w samples (the frames psnrhvs_file_read() fills; the
 * planes past num_planes NULL).
 */
PSNRHVS_API void psnrhvs_picture_layout(const PsnrHvsGeometry *g, const void *base,
                                        PsnrHvsPicture *pic);

/**
 * A layout's name, the one every front-end parses and prints (the CLI's
 * --pixel_format, Python's pixel_format, the messages): "420", "422", "444"
 * or "400"; NULL for no layout, so that the names can be listed by counting
 * layout up from 0 until NULL.
 */
PSNRHVS_API const char *psnrhvs_layout_string(enum PsnrHvsPixelLayout layout);

/** @return the layout named name (as psnrhvs_layout_string), or PSNRHVS_ERR(EINVAL). */
PSNRHVS_API int psnrhvs_layout_from_string(const char *name);

/**
 * @return 0 for 8, 10 or 12 bits, else PSNRHVS_ERR(EINVAL) and st says why
 *         (PSNRHVS_FILE_ERROR_UNSUPPORTED).
 */
PSNRHVS_API int psnrhvs_check_bitdepth(int bitdepth, PsnrHvsFileStatus *st);

/**
 * psnr_hvs has a block in every plane it scores: luma and, with
 * enable_chroma, chroma at least 8x8 (libvmaf would give NaN).
 * @return 0 or PSNRHVS_ERR(EINVAL) (PSNRHVS_FILE_ERROR_TOO_SMALL, or LIMIT).
 */
PSNRHVS_API int psnrhvs_check_planes(const PsnrHvsFormat *fmt, int enable_chroma,
                                     PsnrHvsFileStatus *st);

/**
 * Write src into dst with every sample moved up by fmt->bitdepth -
 * from_bitdepth bits, so that an 8-bit v becomes v << 2 at 10 bits (the CLI's
 * --common_bitdepth: the lower-depth side of a pair shifted up, as the AOM CTC
 * asks). fmt is dst's format, its depth above from_bitdepth; src has fmt's
 * size and layout at from_bitdepth. Every stored sample is written (dst's
 * planes are written through, its const notwithstanding).
 * @return 0 or PSNRHVS_ERR(EINVAL).
 */
PSNRHVS_API int psnrhvs_picture_shift(const PsnrHvsFormat *fmt, int from_bitdepth,
                                      const PsnrHvsPicture *src, const PsnrHvsPicture *dst);

/**
 * Compare the colour the reference (named ref_name) and the distorted declare,
 * where both declare a value: libvmaf scores such pairs as they are, a
 * pipeline may want to stop.
 * @return 0 when they agree; 1 with a warning in st's message (kind
 *         PSNRHVS_FILE_OK); with error set, PSNRHVS_ERR(EINVAL) and the error
 *         in st (PSNRHVS_FILE_ERROR_MISMATCH).
 */
PSNRHVS_API int psnrhvs_colour_compare(const char *ref_name, const PsnrHvsColour *ref,
                                       const char *dist_name, const PsnrHvsColour *dist, int error,
                                       PsnrHvsFileStatus *st);

/** The format options of a pair (the CLI's -w, -h, -p, -b, --scale, --common_bitdepth). */
typedef struct PsnrHvsFormatOptions {
    int width, height;    ///< 0: not given
    int layout;           ///< an enum PsnrHvsPixelLayout, or -1: not given
    int bitdepth;         ///< 0: not given
    int scale;            ///< 1: the sizes may differ (the distorted is scaled to the reference)
    int common_bitdepth;  ///< 1: the depths may differ (the lower one is shifted up)
    uint8_t reserved[16]; ///< zero; room to grow without an ABI break
} PsnrHvsFormatOptions;

/** One input of a pair, for psnrhvs_format_negotiate(). */
typedef struct PsnrHvsFormatSide {
    const char *name;     ///< the input in messages
    const char *declared; ///< what declares its format ("the Y4M header"), NULL: raw input
    PsnrHvsFormat format; ///< in: the declared format; out: the format to read it in
} PsnrHvsFormatSide;

/**
 * The format scored from what the inputs declare and the options: a declared
 * format wins and the options must agree with it (but for the size with
 * scale and the depth with common_bitdepth: they then describe a raw side); a
 * raw side takes the other side's format with the options over it; both raw
 * take the options (4:2:0 and 8 bits unless given). The sides must then agree
 * but where scale or common_bitdepth allows; scored has the higher depth and
 * the reference's size.
 * @return 0, or PSNRHVS_ERR(EINVAL) with st filled (PSNRHVS_FILE_ERROR_MISMATCH,
 *         or USAGE: raw input without a size).
 */
PSNRHVS_API int psnrhvs_format_negotiate(const PsnrHvsFormatOptions *opt, PsnrHvsFormatSide *ref,
                                         PsnrHvsFormatSide *dist, PsnrHvsFormat *scored,
                                         PsnrHvsFileStatus *st);

/* ---- Score files ----
 * libvmaf's XML, JSON and CSV layouts of psnr_hvs and its subtitle layout
 * ("sub"), written and read back here so that every front-end writes the
 * same bytes and reads them the same way. */

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_FILE_H */
