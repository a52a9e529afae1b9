/*
 * psnrhvs: the scorer: settings, pictures, scores, and a context's life
 * (open, send, receive, close).
 * Part of the public API: include <psnrhvs.h>, which includes every part.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SCORE_H
#define PSNRHVS_SCORE_H

#include "psnrhvs/common.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/**
 * The dB values of libvmaf from raw plane scores (numerics spec section 4):
 * fills psnr_hvs_* of out from out->raw and out->num_planes.
 */
PSNRHVS_API void psnrhvs_raw_to_db(PsnrHvsScore *out);

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_SCORE_H */
