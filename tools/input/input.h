/*
 * psnrhvs: input readers (raw planar YUV and YUV4MPEG2).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_INPUT_H
#define PSNRHVS_TOOLS_INPUT_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "psnrhvs.h"

#ifndef HAVE_FFMPEG
#define HAVE_FFMPEG 0 /* built without FFmpeg's libraries (tools/CMakeLists.txt) */
#endif

/* The library's raw and Y4M files (include/psnrhvs.h) define the format and
 * the plane geometry; these are the CLI's names for them. */
typedef PsnrHvsFormat InputFormat;
typedef PsnrHvsGeometry PlaneGeometry;

/** @return 0, or -1 when the format is invalid or a frame would not fit in size_t. */
static inline int plane_geometry(const InputFormat *const fmt, PlaneGeometry *const g) {
    return psnrhvs_geometry(fmt, g) < 0 ? -1 : 0;
}

/** @return 0 for 8, 10 or 12 bits, else -1 with the reason in msg. */
int check_bitdepth(int bitdepth, char *msg, size_t size);

/** "420", "422", "444", "400" */
static inline const char *layout_name(const enum PsnrHvsPixelLayout layout) {
    const char *const s = psnrhvs_layout_string(layout);
    return s ? s : "?";
}

/** --hwaccel: where compressed inputs are decoded. */
enum InputHwaccel {
    INPUT_HWACCEL_NONE = 0, ///< the CPU
    INPUT_HWACCEL_CUDA = 1, ///< NVDEC, an error without it
    INPUT_HWACCEL_AUTO = 2, ///< NVDEC where it pays (input/decode_choice.c), the CPU otherwise
};

/** How compressed inputs are decoded (FFmpeg builds) and converted. */
typedef struct InputOptions {
    int hwaccel;   ///< an enum InputHwaccel
    int hw_device; ///< GPU index for hwaccel
    /* auto: whether NVDEC's frames would be scored on the GPU as they are
     * (NULL: no), asked only of a clip long enough (it loads a module). */
    int (*gpu_scorer)(void);
    unsigned frames_wanted; ///< frames the run reads at most (--frame_cnt), 0: all
    int scale_algo;         ///< 0: sizes must match; else a PSNRHVS_SCALE_* (--scale)
    int quiet;              ///< no warnings
    int timing;             ///< --timing: each input's decoder and why, on stderr
} InputOptions;

/** The colour an input declares (the library's PsnrHvsColour). */
typedef PsnrHvsColour InputColour;

/** A byte stream with a small look-ahead, so stdin can be probed without seeking. */
typedef struct InputStream {
    FILE *f;
    const char *name;        ///< file name for messages ("stdin" for "-")
    const InputOptions *opt; ///< never NULL once opened
    uint8_t peek[16];
    size_t peek_len, peek_pos;
    /* Readers do not print: they leave one message here (without "psnrhvs: ")
     * and the caller reports it, so a reader thread's error comes out in
     * frame order on the main thread. */
    char err[512];
    InputColour colour; ///< filled by the reader's open, where the input declares it
    int scored;         ///< the run's scores were written (input_mark_scored)
    /* The pixel format states the range (yuvj*, a JPEG): "yuvj420p", "" when
     * the range, if any, is only metadata. */
    char range_by[32];
} InputStream;

/** Read up to size bytes; returns the count read (short only at end of file or on error). */
size_t stream_read(InputStream *s, void *buf, size_t size);

/** Set s->err (printf format). */
#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
void stream_error(InputStream *s, const char *fmt, ...);

/** One frame's planes, laid out back to back as in the file. */
typedef struct InputFrame {
    uint8_t *buf;
    PsnrHvsPicture pic;
    /* Frames kept on the GPU (input_keep_on_device): pic holds
     * device pointers and hold keeps them valid until freed with
     * input_hold_free(). Whoever takes it sets it to NULL; the
     * next read into this frame frees one left here. */
    void *hold;
} InputFrame;

/** How a decoder's frames lie on the GPU (PsnrHvsSettings' fields of the same names). */
typedef struct DeviceFrames {
    int chroma_interleaved; ///< NV12, P010, P016: Cb and Cr alternate in one plane
    int msb_aligned;        ///< P010, P016, YUV444P16: samples in the high bits of their word
} DeviceFrames;

/**
 * A compressed input's decoder: FFmpeg's (input/ffmpeg.c), the one there is;
 * raw and Y4M files are the library's (psnrhvs_file_*), and the library's
 * psnrhvs_file_probe() tells them apart (input.c's open_stream()).
 * open() reads any header and, if the container describes its format, fills
 * fmt and returns 1 (0 when the format must come from the command line);
 * read() reads the frame payload of exactly frame_bytes into buf, returning 1
 * for a frame, 0 at a clean end of file, -1 on error (already reported).
 */
typedef struct Decoder {
    const char *name;
    size_t priv_data_size;
    int (*open)(void *priv, InputStream *s, InputFormat *fmt);
    int (*read)(void *priv, InputStream *s, uint8_t *buf, size_t frame_bytes, unsigned frame_idx);
    void (*close)(void *priv);
    /* Decoders (FFmpeg): samples above 8 bits come in native byte order, and
     * the frame count comes from the container (-1: unknown); NULL: from the
     * file size. */
    int samples_native;
    long long (*frames_left)(void *priv, unsigned frames_read);
    /* Decoders whose frames are on a GPU (FFmpeg with --hwaccel cuda): 1 and
     * how they are stored, else 0 (NULL: never). */
    int (*device_frames)(void *priv, DeviceFrames *df);
    /* Where its frames are decoded: "NVDEC" or "the CPU" (NULL: not decoded). */
    const char *(*decoded_on)(void *priv);
    /* Instead of read(): the next frame's device planes in pic, *hold
     * keeping them valid (freed with input_hold_free()). */
    int (*read_device)(void *priv, InputStream *s, PsnrHvsPicture *pic, void **hold,
                       unsigned frame_idx);
} Decoder;

typedef struct Input Input;

/**
 * Open path ("-" = stdin) and detect its container, with decoding options
 * (NULL: the defaults; opt is copied).
 * @return 0 or -1 (reported on stderr).
 */
int input_open(Input **in, const char *path, const InputOptions *opt);

#define INPUT_MAX_OPEN 64 ///< input_open_many()'s inputs past the first, at most

/**
 * input_open() of path[i] with opt[i] into in[i], i < n, all at once on
 * threads where none is stdin (compressed inputs start their decoders and
 * NVDEC its device side by side), else one after the other. Messages come
 * in the inputs' order, up to the first input that fails; then every one is
 * closed. ms (NULL: not wanted): how long each took.
 * @return 0 or -1 (reported).
 */
int input_open_many(Input **in, const char *const *path, const InputOptions *const *opt, int n,
                    double *ms);

/** @return 1 when the input is decoded through FFmpeg (compressed), else 0. */
int input_decoded(const Input *in);
/** Where a compressed input is decoded ("NVDEC", "the CPU"); NULL: not compressed. */
const char *input_decoded_on(const Input *in);

/**
 * Open size bytes at data as if they were a file called name (the fuzzer's
 * way in), compressed only if the name says so (fuzz.mkv). Nothing is
 * printed: on failure the reason is copied to err.
 * @return 0 or -1.
 */
int input_open_mem(Input **in, const char *name, const void *data, size_t size, char *err,
                   size_t err_size);

/** @return 1 and fill fmt if the container described the format (Y4M), else 0. */
int input_has_format(const Input *in, InputFormat *fmt);

/** The colour in declares (InputColour). */
void input_colour(const Input *in, InputColour *c);

/**
 * Compare the colour ref and dist declare, where both declare a value. A
 * difference is one warning line naming both (unless quiet) and 0, or with
 * error set one error line and -1: libvmaf scores such pairs as they are,
 * pipelines may want to stop (--colour_mismatch).
 */
int input_colour_check(const Input *ref, const Input *dist, int error, int quiet);

/** The file name given on the command line (or "stdin"). */
const char *input_name(const Input *in);

/** "reference" or "distorted", for messages about the samples. */
void input_set_role(Input *in, const char *role);

/**
 * Frames left to read, from the size of a regular file (an estimate for Y4M
 * with FRAME parameters), or -1 when unknown (a pipe). Call after setting the
 * format and before reading.
 */
long long input_frames_left(const Input *in);

/** Set the format (needed for raw input). @return 0 or -1 (reported on stderr). */
int input_set_format(Input *in, const InputFormat *fmt);

/**
 * Set the format read (raw: given here; NULL for an input that describes its
 * own) and the format the frames are handed out in. Where they differ the
 * frames are converted explicitly: a shift up to a higher bit depth
 * (--common_bitdepth) and a scale to another size (opt.scale_algo, FFmpeg
 * builds). Another chroma layout or a lower depth is an error.
 * @return 0 or -1 (reported on stderr).
 */
int input_set_formats(Input *in, const InputFormat *read, const InputFormat *out);

/** Bytes of one frame of the format set. */
size_t input_frame_bytes(const Input *in);

/** Allocate a frame buffer for the format set. @return 0 or -1 (reported on stderr). */
int input_frame_alloc(const Input *in, InputFrame *frame);

void input_frame_free(InputFrame *frame);

/**
 * Read the next frame into frame (from input_frame_alloc); samples
 * above 8 bits are converted from little endian to native uint16_t, and a
 * sample above 2^bitdepth - 1 is an error naming its frame, plane and place.
 * @return 1 (frame), 0 (end of file), -1 (error: input_error() says
 *         why; nothing is printed).
 */
int input_read(Input *in, InputFrame *frame);

/** The last error message of a read, without the "psnrhvs: " prefix. */
const char *input_error(const Input *in);

/** Frames read so far. */
unsigned input_frames_read(const Input *in);
/** The frames read were scored and written: what the decoder says at close
 *  about them ("scored as decoded") is true only then. */
void input_mark_scored(Input *in);

void input_close(Input **in);

/**
 * Raw and Y4M files (not stdin or pipes) are memory-mapped and frames handed
 * out in place. Call once the outputs are open (their signal handlers in
 * place): a SIGBUS in a mapping (the file cut short by someone while we
 * read it) then maps zeros over it and flags it instead of ending the
 * process; other SIGBUS go to the handler that was there before.
 */
void input_guard_mappings(void);

/**
 * 1 when in's mapping was lost (see above): the frames handed out since may
 * hold zeros. Check after the frames were used (sent); the run must fail.
 */
int input_mapping_lost(const Input *in);

/** Mapped: 1 when frames come from a mapping of the file, 0 when read. */
int input_mapped(const Input *in);

/**
 * 1 when every frame handed out points into the mapping and stays valid
 * until the input is closed (mapped, not converted, 8-bit or little-endian
 * raw 16-bit samples, whose frames all lie at even offsets), so that the
 * library may read them after psnrhvs_send() returns
 * (PSNRHVS_MEMORY_HOST_RETAINED).
 */
int input_in_place(const Input *in);

/**
 * An in-place input's frames before p (a picture of it) are scored: the
 * reader thread drops their pages from the process, a few tens of MB at a
 * time, so that the run's resident size stays a few frames' worth instead
 * of growing with the file. Any thread; a no-op for other inputs and
 * pointers.
 */
void input_done_below(Input *in, const void *p);

/**
 * For an in-place 16-bit input (no-op otherwise): frames are no longer
 * scanned for samples above the bit depth as they are read; the library
 * refuses such a frame when it scores it, and the caller then asks
 * input_range_message() for the message naming file, frame and
 * sample. Only when every frame read is scored (no skip, no subsample).
 */
void input_defer_range_check(Input *in);

/**
 * 1 and the message of the read path in msg when the picture (a frame of
 * in, handed out in place, numbered frame) has a sample above the bit
 * depth's maximum; 0 when it has none.
 */
int input_range_message(const Input *in, const PsnrHvsPicture *pic, unsigned frame, char *msg,
                        size_t size);

/**
 * 1 and how they are stored in df when in's frames are decoded on the GPU
 * and could be handed out there as they are (not converted); else 0. Call
 * after setting the formats and before reading.
 */
int input_device_frames(const Input *in, DeviceFrames *df);

/**
 * After input_device_frames() said 1: from now on, reads hand out
 * the frames' device planes (CUDA device pointers of the GPU that decoded
 * them) in frame->pic, kept valid by frame->hold, instead of copying them
 * to host memory. The range check of the samples is then the scorer's.
 */
void input_keep_on_device(Input *in);

/** Free a frame's hold (NULL: nothing); the device planes may then be reused. */
void input_hold_free(void *hold);

#if HAVE_FFMPEG
extern const Decoder decoder_ffmpeg; ///< libavformat + libavcodec (input/ffmpeg.c)
#endif

/**
 * A compressed input's kind (psnrhvs_file_probe(): "MP4/QuickTime", "H.264",
 * ...), or NULL for raw video and Y4M.
 */
const char *sniff_compressed(const uint8_t *data, size_t size, const char *path);

/** 1 when path names an image sequence (frames/%05d.png), which FFmpeg opens itself. */
int input_image_pattern(const char *path);

#endif /* PSNRHVS_TOOLS_INPUT_INPUT_H */
