/*
 * psnrhvs: PSNR-HVS video quality scores with the bits of libvmaf's psnr_hvs.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_H
#define PSNRHVS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "psnrhvs_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define PSNRHVS_API __declspec(dllexport)
#elif defined(__GNUC__)
#define PSNRHVS_API __attribute__((visibility("default")))
#else
#define PSNRHVS_API
#endif

#define PSNRHVS_API_VERSION_MAJOR PSNRHVS_VERSION_MAJOR
#define PSNRHVS_API_VERSION_MINOR PSNRHVS_VERSION_MINOR
#define PSNRHVS_API_VERSION_PATCH PSNRHVS_VERSION_PATCH

/** Errors are negated POSIX errno values: PSNRHVS_ERR(EINVAL) etc. */
#define PSNRHVS_ERR(e) (-(e))

/** Largest luma width or height accepted (keeps every byte count in 64 bits). */
#define PSNRHVS_MAX_DIMENSION 65536
/** Most frames a context holds in flight (PsnrHvsSettings.frames_in_flight). */
#define PSNRHVS_MAX_FRAMES_IN_FLIGHT 64
/** Most CPU threads a context runs (PsnrHvsSettings.threads). */
#define PSNRHVS_MAX_THREADS 256
/** Most distorted pictures scored against one reference (PsnrHvsSettings.renditions). */
#define PSNRHVS_MAX_RENDITIONS 16

enum PsnrHvsPixelLayout {
    PSNRHVS_PIXEL_LAYOUT_I420 = 0, ///< 4:2:0, chroma (w>>1) x (h>>1)
    PSNRHVS_PIXEL_LAYOUT_I422 = 1, ///< 4:2:2, chroma (w>>1) x h
    PSNRHVS_PIXEL_LAYOUT_I444 = 2, ///< 4:4:4, chroma w x h
    PSNRHVS_PIXEL_LAYOUT_I400 = 3, ///< monochrome: luma only
};

enum PsnrHvsBackend {
    PSNRHVS_BACKEND_AUTO = 0, ///< the CPU and every GPU present, each through its best backend
                              ///< (Linux: no driver is loaded without a GPU device node)
    PSNRHVS_BACKEND_CPU = 1,
    PSNRHVS_BACKEND_CUDA = 2,
    PSNRHVS_BACKEND_OPENCL = 3,
    PSNRHVS_BACKEND_HIP = 4,
    PSNRHVS_BACKEND_SYCL = 5,   ///< AdaptiveCpp; only when named (auto skips it)
    PSNRHVS_BACKEND_VULKAN = 6, ///< Vulkan 1.2 compute; auto takes its GPUs, never a CPU device
};

/** How the block threshold multiplies masking energy by the variance ratio. */
enum PsnrHvsMaskProduct {
    PSNRHVS_MASK_PRODUCT_FLOAT = 0, ///< f32 product, as libvmaf (default)
    PSNRHVS_MASK_PRODUCT_EXACT = 1, ///< exact product (numerics spec section 6)
};

/** Where the samples of the pictures given to psnrhvs_send() live. */
enum PsnrHvsMemory {
    PSNRHVS_MEMORY_HOST = 0,   ///< host memory (default): copied before psnrhvs_send() returns
    PSNRHVS_MEMORY_DEVICE = 1, ///< device memory of `device` (cuda and hip backends): CUDA or HIP
                               ///< device pointers (cudaMalloc, NVDEC, PyTorch tensors...), read
                               ///< in place by the kernels, never through the host
    PSNRHVS_MEMORY_HOST_RETAINED = 2, ///< host memory the caller keeps valid and unchanged until
                                      ///< the frame is received (a mapped file, say): the cpu
                                      ///< backend reads it in place with frames in flight, no
                                      ///< copy; other backends treat it as PSNRHVS_MEMORY_HOST
};

/** Instruction set for the CPU backend. */
enum PsnrHvsIsa {
    PSNRHVS_ISA_AUTO = 0,   ///< best the CPU supports
    PSNRHVS_ISA_SCALAR = 1, ///< the scalar reference path
    PSNRHVS_ISA_AVX2 = 2,
    PSNRHVS_ISA_AVX512 = 3,
    PSNRHVS_ISA_NEON = 4, ///< AArch64 Advanced SIMD
};

/** One scorer of a context: a backend (not auto) and its device index. */
typedef struct PsnrHvsDevice {
    enum PsnrHvsBackend backend;
    int device;
} PsnrHvsDevice;

/** Most scorers one context spans (PsnrHvsSettings.num_devices). */
#define PSNRHVS_MAX_DEVICES 16

/** Log callback: one message without trailing newline. */
typedef struct PsnrHvsLogger {
    void *cookie;
    void (*callback)(void *cookie, const char *message);
} PsnrHvsLogger;

typedef struct PsnrHvsSettings {
    int width;  ///< luma width in samples, 1..PSNRHVS_MAX_DIMENSION (no default)
    int height; ///< luma height in samples, 1..PSNRHVS_MAX_DIMENSION (no default)
    enum PsnrHvsPixelLayout layout;       ///< default PSNRHVS_PIXEL_LAYOUT_I420
    int bitdepth;                         ///< 8 (default), 10 or 12
    int enable_chroma;                    ///< 1 (default): score Cb and Cr; 0: luma only
    enum PsnrHvsMaskProduct mask_product; ///< default PSNRHVS_MASK_PRODUCT_FLOAT
    enum PsnrHvsBackend backend;          ///< default PSNRHVS_BACKEND_AUTO: the CPU from the
                                          ///< first frame, every GPU as it opens (each physical
                                          ///< GPU once, never a CPU device of a GPU API)
    int device;                           ///< GPU index for one device backend, default 0
    int threads;          ///< CPU threads, the caller's included, 0..PSNRHVS_MAX_THREADS:
                          ///< scoring (cpu) or packing uploads (devices); 0 (default) = all
                          ///< cores, fewer for small frames (about 8 block rows per thread)
    enum PsnrHvsIsa isa;  ///< CPU instruction set, default PSNRHVS_ISA_AUTO
    int exact_helpers;    ///< 1: force integer sqrt/division helpers on devices; default 0
    int frames_in_flight; ///< frames sent and not yet received, 0..PSNRHVS_MAX_FRAMES_IN_FLIGHT;
                          ///< 0 (default) = the backend's choice (CPU 3, CUDA 4, OpenCL 3,
                          ///< SYCL 3)
    PsnrHvsLogger logger; ///< default: messages to stderr
    enum PsnrHvsMemory memory; ///< where pictures live, default PSNRHVS_MEMORY_HOST
    int renditions;            ///< distorted pictures per reference, 1..PSNRHVS_MAX_RENDITIONS:
                               ///< 0 or 1 (default) = one (psnrhvs_send); more = a ladder
                               ///< (psnrhvs_send_ladder), the reference's work done once
    /* How device pictures (PSNRHVS_MEMORY_DEVICE) store their samples, as
     * decoders write them; host pictures (reference_on_host's too) are
     * always planar, low-aligned. */
    int chroma_interleaved; ///< 1: Cb and Cr samples alternate in one plane (NV12, P010, P016,
                            ///< NV16, NV24): data[1] and data[2] point at the first Cb and the
                            ///< first Cr sample of it (NV12: data[2] = data[1] + 1 sample),
                            ///< stride[1] = stride[2]; default 0: planar
    int msb_aligned;        ///< 1: samples above 8 bits sit in the high bits of their 16-bit
                            ///< word (P010, P016, NVDEC's YUV444P16), the low 16 - bitdepth
                            ///< bits zero (a frame with one set is refused); default 0
    int reference_on_host;  ///< 1 with memory = device: the reference pictures are host
                            ///< memory (copied before psnrhvs_send() returns, planar), only
                            ///< the distorted ones on the device (a source file against
                            ///< encodes decoded on the GPU); default 0
    int num_devices;        ///< 0 (default): backend and device say; 1..PSNRHVS_MAX_DEVICES:
                            ///< the scorers devices[] lists (backend and device ignored),
                            ///< frames dealt among them
    const PsnrHvsDevice *devices; ///< read by psnrhvs_open() only
    const char *module_dir;       ///< the folder of the backend modules (cuda, sycl): NULL
                                  ///< (default) = psnrhvs/ beside the library, else the installed
                                  ///< one; for tests and relocated installs
    uint64_t frames_hint;         ///< frames the caller expects to send, 0 (default) unknown:
                                  ///< auto then opens no GPU for a clip its CPU scorer alone
                                  ///< finishes first (rated on its first frames)
    uint8_t reserved[48];         ///< zero; room to grow without an ABI break
} PsnrHvsSettings;

/**
 * One picture. data[p] points at plane p's top-left sample: uint8_t for 8-bit,
 * uint16_t (native byte order) above 8 bits. stride[p] is in bytes. Planes only
 * need to hold libvmaf's scored size (chroma rounded down); larger stored
 * planes (chroma rounded up, padding) are fine, the extra samples are not read.
 * For PSNRHVS_PIXEL_LAYOUT_I400 or enable_chroma = 0, data[1..2] are ignored.
 */
typedef struct PsnrHvsPicture {
    const void *data[3];
    ptrdiff_t stride[3];
} PsnrHvsPicture;

enum PsnrHvsPlane { PSNRHVS_PLANE_Y = 0, PSNRHVS_PLANE_CB = 1, PSNRHVS_PLANE_CR = 2 };

typedef struct PsnrHvsScore {
    int num_planes;     ///< 3, or 1 when scoring luma only
    float raw[3];       ///< per-plane f32 score before the dB conversion (unused planes 0)
    double psnr_hvs_y;  ///< 10 * -log10(raw[0])
    double psnr_hvs_cb; ///< unused when num_planes == 1
    double psnr_hvs_cr; ///< unused when num_planes == 1
    double psnr_hvs;    ///< combined; equals psnr_hvs_y when num_planes == 1
    uint64_t tag;       ///< the tag given to psnrhvs_send()
} PsnrHvsScore;

/**
 * A scorer for one geometry. Its calls are serialised: several threads may
 * use one context, one call at a time (a call waits for the one under way),
 * but frames come back in the order they were sent, whoever sent them.
 * Contexts are independent of each other.
 */
typedef struct PsnrHvsContext PsnrHvsContext;

/** @return the library version string, e.g. "1.0.0". */
PSNRHVS_API const char *psnrhvs_version(void);

/** @return PSNRHVS_API_VERSION_* packed as (major << 16) | (minor << 8) | patch. */
PSNRHVS_API unsigned psnrhvs_version_api(void);

/** Fill settings with the defaults listed in PsnrHvsSettings (NULL: nothing). */
PSNRHVS_API void psnrhvs_default_settings(PsnrHvsSettings *s);

/**
 * Open a scorer for one geometry.
 * @return 0, PSNRHVS_ERR(EINVAL) for bad settings (the logger says which),
 *         PSNRHVS_ERR(ERANGE) when a plane to score is smaller than 8x8,
 *         PSNRHVS_ERR(ENOSYS) when the backend is not built in, or its
 *         module cannot be opened (the logger says why),
 *         PSNRHVS_ERR(ENODEV) when the backend finds no device,
 *         PSNRHVS_ERR(ENOMEM).
 */
PSNRHVS_API int psnrhvs_open(PsnrHvsContext **c, const PsnrHvsSettings *s);

/**
 * Score one pair synchronously. Must not be mixed with frames in flight.
 * @return 0, PSNRHVS_ERR(EINVAL), PSNRHVS_ERR(EBUSY) if frames are in flight,
 *         or a backend error (PSNRHVS_ERR(EIO), PSNRHVS_ERR(ENOMEM)).
 */
PSNRHVS_API int psnrhvs_score(PsnrHvsContext *c, const PsnrHvsPicture *ref,
                              const PsnrHvsPicture *dist, PsnrHvsScore *out);

/**
 * Queue one pair. Host pictures (the default) are copied before the call
 * returns, so the caller may reuse its buffers at once. Device pictures
 * (settings.memory = PSNRHVS_MEMORY_DEVICE) are read in place: their samples
 * must be complete when psnrhvs_send() is called (synchronize the stream that
 * wrote them; work queued before the call on the device's legacy default
 * stream, as FFmpeg's NVDEC copies are, is waited for) and stay unchanged
 * until psnrhvs_receive() has returned that frame's score.
 * @return 0, PSNRHVS_ERR(EAGAIN) when the queue is full (call
 *         psnrhvs_receive() first), PSNRHVS_ERR(EINVAL), or a backend error.
 */
PSNRHVS_API int psnrhvs_send(PsnrHvsContext *c, const PsnrHvsPicture *ref,
                             const PsnrHvsPicture *dist, uint64_t tag);

/**
 * Take the oldest queued pair's score, waiting for it if needed.
 * @return 0, PSNRHVS_ERR(EAGAIN) when nothing is queued, or a backend error.
 */
PSNRHVS_API int psnrhvs_receive(PsnrHvsContext *c, PsnrHvsScore *out);

/**
 * An encoding ladder: queue one reference and settings.renditions distorted
 * pictures of it (the renditions, all of the context's geometry). The
 * reference's side of every block (its DCT, means, variances and masking)
 * is computed once for all renditions; each rendition's scores have the bits
 * psnrhvs_send() would give it alone. Host pictures are copied, device
 * pictures read in place, as for psnrhvs_send().
 * @return as psnrhvs_send(). (A context of several renditions takes only
 *         psnrhvs_send_ladder() and psnrhvs_receive_ladder(): EINVAL otherwise.)
 */
PSNRHVS_API int psnrhvs_send_ladder(PsnrHvsContext *c, const PsnrHvsPicture *ref,
                                    const PsnrHvsPicture *dist, uint64_t tag);

/**
 * Take the oldest queued ladder's scores: out[r] for rendition r, r <
 * settings.renditions, each with the ladder's tag.
 * @return as psnrhvs_receive().
 */
PSNRHVS_API int psnrhvs_receive_ladder(PsnrHvsContext *c, PsnrHvsScore *out);

/**
 * Host memory the caller will send pictures from (settings.memory =
 * PSNRHVS_MEMORY_HOST_RETAINED): anonymous memory (the heap, an anonymous
 * mapping), mapped and unchanged while registered. GPU backends that can
 * read host memory where it is (cuda) page-lock it a window at a time ahead
 * of the frames sent and upload pictures lying inside it with no copy on
 * the host; the window is bounded (128 MiB pieces, at most 1 GiB or an
 * eighth of the memory for the process), so a range larger than memory may
 * be registered whole. Scorers that join later (auto) take it then;
 * backends without a use for it ignore it. Thread-safe with the calls of
 * another thread on the context.
 * @return 0, PSNRHVS_ERR(EINVAL) (no memory, another context setting, a
 *         range registered already), PSNRHVS_ERR(ENOMEM) (too many ranges),
 *         PSNRHVS_ERR(ENOTSUP) (on Linux: pages of a mapped file, which
 *         NVIDIA's driver hung page-locking, or /proc/self/maps unreadable).
 */
PSNRHVS_API int psnrhvs_host_register(PsnrHvsContext *c, const void *data, size_t size);

/**
 * Ends a registration of psnrhvs_host_register() (the same data): the
 * memory is no longer page-locked when it returns (it may be unmapped).
 * Every frame sent from it must have been received; psnrhvs_close() ends the
 * context's registrations too.
 * @return 0 or PSNRHVS_ERR(EINVAL) (not registered with this context).
 */
PSNRHVS_API int psnrhvs_host_unregister(PsnrHvsContext *c, const void *data);

/** Free the scorer (waits for frames in flight); sets *c to NULL. */
PSNRHVS_API void psnrhvs_close(PsnrHvsContext **c);

/** @return the name of the backend the context runs on ("cpu", "cuda", ...), for
 *  several scorers their names so far ("cpu+cuda:0"). */
PSNRHVS_API const char *psnrhvs_backend_name(const PsnrHvsContext *c);

/**
 * @return 1 while a context of several scorers (auto) still opens devices:
 * they join as they open, and psnrhvs_close() waits for the one under way.
 */
PSNRHVS_API int psnrhvs_opening(const PsnrHvsContext *c);

/** @return the name of the CPU ISA in use ("scalar", "avx2", ...), or NULL for device backends. */
PSNRHVS_API const char *psnrhvs_isa_name(const PsnrHvsContext *c);

/** @return 1 if the backend was compiled in and, for one built as a module
 *  (cuda, sycl), its module opens (not whether a device exists). */
PSNRHVS_API int psnrhvs_backend_available(enum PsnrHvsBackend b);

/**
 * Write a description of the devices of a backend (one per line) into buf.
 * @return 0, PSNRHVS_ERR(ENOSYS) if not built in, PSNRHVS_ERR(ENOENT) if its
 *         module cannot be opened (buf says why), PSNRHVS_ERR(ENODEV) if none.
 */
PSNRHVS_API int psnrhvs_list_devices(enum PsnrHvsBackend b, int verbose, char *buf, size_t size);

/** What a value of enum PsnrHvsBackend names (psnrhvs_backend_kind()). */
enum PsnrHvsBackendKind {
    PSNRHVS_KIND_NONE = 0,   ///< not a backend
    PSNRHVS_KIND_AUTO = 1,   ///< auto: the library picks (the CPU and every GPU)
    PSNRHVS_KIND_HOST = 2,   ///< the host CPU's own backend (cpu)
    PSNRHVS_KIND_DEVICE = 3, ///< a device API (cuda, hip, opencl, sycl, vulkan)
};

/** @return the enum PsnrHvsBackendKind of b. */
PSNRHVS_API int psnrhvs_backend_kind(enum PsnrHvsBackend b);

/** One device of one backend, as psnrhvs_devices() lists it. */
typedef struct PsnrHvsDeviceEntry {
    enum PsnrHvsBackend backend; ///< never auto
    int device;                  ///< its index in the backend (PsnrHvsDevice.device)
    int gpu;              ///< 1: a GPU; 0: a CPU (the host, or one behind a device API: PoCL,
                          ///< SYCL's OpenMP device, lavapipe)
    int physical;         ///< the physical device: 0 the host CPU, 1, 2... each GPU, equal for
                          ///< one GPU seen through several backends (CUDA, OpenCL, Vulkan)
    int automatic;        ///< 1: backend auto scores on it (the host CPU, each GPU once)
    char name[96];        ///< as the device's API names it
    char pci[16];         ///< PCI address "dddd:bb:dd" (lower case), or "" if unknown
    uint8_t reserved[32]; ///< zero; room to grow without an ABI break
} PsnrHvsDeviceEntry;

/**
 * Every device of every backend that opens, best backend first, the host
 * CPU last: the list auto takes its devices from (those with automatic set),
 * for front-ends to show and to spread work over. Made once a process
 * (asking loads each backend's driver). Fills list[0 .. min(n, max)).
 * @return n, the number of devices (at least 1, the host CPU), or a
 *         PSNRHVS_ERR code (EINVAL: list NULL with max > 0).
 */
PSNRHVS_API int psnrhvs_devices(PsnrHvsDeviceEntry *list, int max);

/**
 * @return the cores this process may use: online ones within its affinity
 * mask and a container's CPU quota (cgroup), at least 1. Every thread count
 * of the library (threads = 0) starts from it.
 */
PSNRHVS_API int psnrhvs_cpu_count(void);

/**
 * The dB values of libvmaf from raw plane scores (numerics spec section 4):
 * fills psnr_hvs_* of out from out->raw and out->num_planes.
 */
PSNRHVS_API void psnrhvs_raw_to_db(PsnrHvsScore *out);

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

/**
 * @return the name of backend b ("auto", "cpu", "cuda", "opencl", "hip",
 * "sycl", "vulkan"), or NULL past the last: a front-end lists every backend,
 * built in or not, by counting b up from 0 until NULL.
 */
PSNRHVS_API const char *psnrhvs_backend_string(enum PsnrHvsBackend b);

/** @return the backend named name (as psnrhvs_backend_string), or PSNRHVS_ERR(EINVAL). */
PSNRHVS_API int psnrhvs_backend_from_string(const char *name);

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

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_H */
