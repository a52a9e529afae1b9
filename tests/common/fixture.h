/*
 * psnrhvs test helpers shared by the golden, checkasm, OpenCL and CUDA tests
 * and the CUDA bench: golden JSON fixtures and their raw .yuv pairs, the
 * file layout of a frame, generated frame pairs, and comparisons of bits.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_COMMON_FIXTURE_H
#define PSNRHVS_TESTS_COMMON_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "psnrhvs.h"

/* A whole file, NUL-terminated; *size (if given) gets its length. NULL when
 * it cannot be read. */
char *fixture_read_file(const char *path, size_t *size);

/* One frame as raw files store it: planes back to back, chroma rounded up
 * (ceil(w/2)), as FFmpeg writes; 4:0:0 files hold only luma. */
typedef struct FrameLayout {
    int bitdepth, bps;            ///< bits and bytes per sample
    int planes;                   ///< stored planes: 1 (4:0:0) or 3
    int w[3], h[3];               ///< stored plane sizes (0 for absent planes)
    int scored_w[3], scored_h[3]; ///< sizes the library scores (chroma rounded down)
    size_t offset[3], stride[3];  ///< in bytes, within a frame
    size_t frame_bytes;
} FrameLayout;

void frame_layout(FrameLayout *l, int width, int height, int bitdepth,
                  enum PsnrHvsPixelLayout layout);

/* Frame f of a buffer of frames in file layout. Planes a layout lacks point
 * at the frame with stride 0. */
PsnrHvsPicture frame_picture(const FrameLayout *l, const void *frames, int f);

/* A generated frame pair in file layout: gradients, hard edges and texture;
 * the distorted copy adds sparse noise (many blocks have zero terms) and
 * rare inversions. *state is the xorshift32 state, carried on by the call. */
void frame_generate(const FrameLayout *l, int f, uint32_t *state, unsigned char *ref,
                    unsigned char *dist);

/* libvmaf's scores of one frame, from a golden JSON. */
typedef struct GoldenFrame {
    int planes;   ///< planes with scores: 3, or 1 for 4:0:0 (chroma null)
    int has_raw;  ///< 1 where the JSON gives raw_* (golden/), 0 where only dB values
    float raw[3]; ///< raw plane scores (0 where null or not given)
    double db[4]; ///< psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr, psnr_hvs ("inf" is INFINITY)
} GoldenFrame;

/* A reference/distorted pair held in memory in file layout. */
typedef struct Fixture {
    char name[128];    ///< the JSON's folder and file name, or the caller's label
    PsnrHvsSettings s; ///< width, height, bitdepth, layout; the rest default
    int frames;
    FrameLayout layout;
    unsigned char *ref, *dist; ///< frames back to back
    GoldenFrame *golden;       ///< per frame, or NULL where no scores are known
} Fixture;

/* Loads a golden JSON and its raw .yuv pair from datadir (NULL: the folder
 * above the JSON's, where golden/, golden-exact/, stress/golden/ and
 * stress/golden-exact/
 * keep their pairs); the files must hold exactly the frames the JSON lists.
 * A JSON whose "feature" is "psnr_hvs=mask_product=exact" (golden-exact/)
 * sets fx->s.mask_product to PSNRHVS_MASK_PRODUCT_EXACT. Returns 0, 1 for a
 * .y4m fixture (not loaded: its pictures are those of a .yuv twin) or -1
 * after printing why. */
int fixture_load_golden(Fixture *fx, const char *json_path, const char *datadir);

/* Loads `frames` frames of a raw pair of the geometry in fx->s (the caller
 * fills name, s and frames); both files must hold exactly that. 0 or -1. */
int fixture_load_pair(Fixture *fx, const char *ref_path, const char *dist_path);

/* Generates `frames` frames (frame_generate, one state started at seed). */
void fixture_generate(Fixture *fx, const char *name, int width, int height, int bitdepth,
                      enum PsnrHvsPixelLayout layout, int frames, uint32_t seed);

void fixture_free(Fixture *fx);

static inline PsnrHvsPicture fixture_ref(const Fixture *fx, const int f) {
    return frame_picture(&fx->layout, fx->ref, f);
}

static inline PsnrHvsPicture fixture_dist(const Fixture *fx, const int f) {
    return frame_picture(&fx->layout, fx->dist, f);
}

/* Scores every frame through psnrhvs_send/receive, keeping c's queue full
 * (send until EAGAIN, then receive one); out[f] is frame f's score. Returns 0
 * or the first error (a frame coming back out of order is -1), printed. */
int fixture_score_queued(PsnrHvsContext *c, const Fixture *fx, PsnrHvsScore *out);

/* Frame f's score against libvmaf's, bit for bit: the number of planes, each
 * raw score (f32 bits, where the JSON gives them) and each dB value (f64
 * bits; chroma only with chroma scores). Prints every mismatch after `what`;
 * returns how many. */
int fixture_check_golden(const Fixture *fx, int f, const PsnrHvsScore *sc, const char *what);

int same_bits_f32(float a, float b);
int same_bits_f64(double a, double b);

/* 0 when got and want have the same bits; otherwise prints
 * "<what>: got <got>, want <want>" (with %a) and returns 1. */
int check_bits_f32(const char *what, float got, float want);
int check_bits_f64(const char *what, double got, double want);

/* Every raw score (all three, unused ones included) and dB value. */
int scores_same_bits(const PsnrHvsScore *a, const PsnrHvsScore *b);

#endif /* PSNRHVS_TESTS_COMMON_FIXTURE_H */
