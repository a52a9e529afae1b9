/*
 * Public entry points: settings checks, backend dispatch, dB conversion.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define PSNRHVS_VERSION_STRING "1.0.0"

const char *psnrhvs_version(void) {
    return PSNRHVS_VERSION_STRING;
}

unsigned psnrhvs_version_api(void) {
    return (PSNRHVS_API_VERSION_MAJOR << 16) | (PSNRHVS_API_VERSION_MINOR << 8) |
           PSNRHVS_API_VERSION_PATCH;
}

void psnrhvs_default_settings(PsnrHvsSettings *s) {
    memset(s, 0, sizeof(*s));
    s->layout = PSNRHVS_PIXEL_LAYOUT_I420;
    s->bitdepth = 8;
    s->enable_chroma = 1;
    s->mask_product = PSNRHVS_MASK_PRODUCT_FLOAT;
    s->backend = PSNRHVS_BACKEND_CPU;
    s->isa = PSNRHVS_ISA_AUTO;
}

static void vlog(const PsnrHvsLogger *logger, const char *fmt, va_list ap) {
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (logger && logger->callback)
        logger->callback(logger->cookie, msg);
    else
        fprintf(stderr, "psnrhvs: %s\n", msg);
}

void psnrhvs_log(const PsnrHvsContext *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog(&c->s.logger, fmt, ap);
    va_end(ap);
}

void psnrhvs_log_settings(const PsnrHvsSettings *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog(&s->logger, fmt, ap);
    va_end(ap);
}

void psnrhvs_plane_size(enum PsnrHvsPixelLayout layout, int width, int height, int plane, int *w,
                        int *h) {
    *w = width;
    *h = height;
    if (plane == 0) return;
    switch (layout) {
    case PSNRHVS_PIXEL_LAYOUT_I420:
        *w = width >> 1, *h = height >> 1;
        break;
    case PSNRHVS_PIXEL_LAYOUT_I422:
        *w = width >> 1;
        break;
    case PSNRHVS_PIXEL_LAYOUT_I444:
        break;
    case PSNRHVS_PIXEL_LAYOUT_I400:
        *w = *h = 0;
        break;
    }
}

static const PsnrHvsBackendOps *const backends[] = {
#if HAVE_CUDA
    &psnrhvs_backend_cuda,
#endif
#if HAVE_HIP
    &psnrhvs_backend_hip,
#endif
#if HAVE_OPENCL
    &psnrhvs_backend_opencl,
#endif
    &psnrhvs_backend_cpu,    NULL,
};

static const PsnrHvsBackendOps *find_backend(enum PsnrHvsBackend id) {
    for (int i = 0; backends[i]; i++)
        if (backends[i]->id == id) return backends[i];
    return NULL;
}

int psnrhvs_backend_available(enum PsnrHvsBackend b) {
    return find_backend(b) != NULL;
}

static const char *layout_name(enum PsnrHvsPixelLayout l) {
    static const char *const names[] = {"4:2:0", "4:2:2", "4:4:4", "4:0:0"};
    return names[l];
}

static int check_settings(const PsnrHvsSettings *s) {
    if (s->width < 1 || s->height < 1 || s->width > PSNRHVS_MAX_DIMENSION ||
        s->height > PSNRHVS_MAX_DIMENSION) {
        psnrhvs_log_settings(s, "frame size %dx%d is out of range (1..%d per side)", s->width,
                             s->height, PSNRHVS_MAX_DIMENSION);
        return PSNRHVS_ERR(EINVAL);
    }
    if ((unsigned)s->layout > PSNRHVS_PIXEL_LAYOUT_I400) {
        psnrhvs_log_settings(s, "unknown pixel layout %d", (int)s->layout);
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->bitdepth > 12 && s->bitdepth <= 16) {
        psnrhvs_log_settings(s,
                             "bit depth %d is not supported: libvmaf's psnr_hvs accepts at most "
                             "12 bits (its f32 numerics are defined only up to 12)",
                             s->bitdepth);
        return PSNRHVS_ERR(EINVAL);
    }
    if (s->bitdepth != 8 && s->bitdepth != 10 && s->bitdepth != 12) {
        psnrhvs_log_settings(s, "bit depth %d is not supported (8, 10 or 12)", s->bitdepth);
        return PSNRHVS_ERR(EINVAL);
    }
    if ((unsigned)s->mask_product > PSNRHVS_MASK_PRODUCT_EXACT ||
        (unsigned)s->isa > PSNRHVS_ISA_AVX512 || s->threads < 0 || s->device < 0 ||
        s->frames_in_flight < 0 || (unsigned)s->backend > PSNRHVS_BACKEND_HIP) {
        psnrhvs_log_settings(s, "invalid settings (mask_product, isa, threads, device, "
                                "frames_in_flight or backend out of range)");
        return PSNRHVS_ERR(EINVAL);
    }
    return 0;
}

static int check_geometry(PsnrHvsContext *c) {
    const PsnrHvsSettings *s = &c->s;
    c->num_planes = s->layout == PSNRHVS_PIXEL_LAYOUT_I400 || !s->enable_chroma ? 1 : 3;
    for (int p = 0; p < 3; p++)
        psnrhvs_plane_size(s->layout, s->width, s->height, p, &c->plane_w[p], &c->plane_h[p]);
    if (c->plane_w[0] < 8 || c->plane_h[0] < 8) {
        psnrhvs_log(c, "frame %dx%d is smaller than one 8x8 block: PSNR-HVS is undefined", s->width,
                    s->height);
        return PSNRHVS_ERR(ERANGE);
    }
    if (c->num_planes == 3 && (c->plane_w[1] < 8 || c->plane_h[1] < 8)) {
        psnrhvs_log(c,
                    "chroma planes of a %dx%d %s frame are %dx%d, smaller than one 8x8 block; "
                    "score luma only with enable_chroma=false",
                    s->width, s->height, layout_name(s->layout), c->plane_w[1], c->plane_h[1]);
        return PSNRHVS_ERR(ERANGE);
    }
    return 0;
}

int psnrhvs_open(PsnrHvsContext **const out, const PsnrHvsSettings *const s) {
    if (!out || !s) return PSNRHVS_ERR(EINVAL);
    *out = NULL;
    int err = check_settings(s);
    if (err) return err;

    PsnrHvsContext *c = calloc(1, sizeof(*c));
    if (!c) return PSNRHVS_ERR(ENOMEM);
    c->s = *s;
    if ((err = check_geometry(c))) goto error;

    if (s->backend == PSNRHVS_BACKEND_AUTO) {
        /* Try each device backend in registry order, then the CPU. */
        for (int i = 0; backends[i]; i++) {
            c->ops = backends[i];
            c->s.backend = backends[i]->id;
            if (!(err = c->ops->open(c))) break;
            if (backends[i]->id != PSNRHVS_BACKEND_CPU)
                psnrhvs_log(c, "backend %s unavailable, trying the next one", backends[i]->name);
        }
        if (err) goto error;
    } else {
        c->ops = find_backend(s->backend);
        if (!c->ops) {
            static const char *const names[] = {"auto", "cpu", "cuda", "opencl", "hip"};
            psnrhvs_log(c, "backend %s is not built into this library", names[s->backend]);
            err = PSNRHVS_ERR(ENOSYS);
            goto error;
        }
        if ((err = c->ops->open(c))) goto error;
    }
    *out = c;
    return 0;

error:
    free(c);
    return err;
}

void psnrhvs_raw_to_db(PsnrHvsScore *const o) {
    /* libvmaf's expressions, in its order (spec section 4). */
    const double y = o->raw[0], cb = o->raw[1], cr = o->raw[2];
    o->psnr_hvs_y = 10 * (-1 * log10(1.0 * y));
    if (o->num_planes == 1) {
        o->psnr_hvs_cb = o->psnr_hvs_cr = 0.0;
        o->psnr_hvs = o->psnr_hvs_y;
        return;
    }
    o->psnr_hvs_cb = 10 * (-1 * log10(1.0 * cb));
    o->psnr_hvs_cr = 10 * (-1 * log10(1.0 * cr));
    o->psnr_hvs = 10 * (-1 * log10(1.0 * (y * 0.8 + 0.1 * (cb + cr))));
}

static int check_picture(const PsnrHvsContext *c, const PsnrHvsPicture *p) {
    if (!p) return 0;
    for (int i = 0; i < c->num_planes; i++)
        if (!p->data[i] || p->stride[i] < (ptrdiff_t)c->plane_w[i] * (c->s.bitdepth > 8 ? 2 : 1))
            return 0;
    return 1;
}

int psnrhvs_send(PsnrHvsContext *const c, const PsnrHvsPicture *const ref,
                 const PsnrHvsPicture *const dist, const uint64_t tag) {
    if (!c || !check_picture(c, ref) || !check_picture(c, dist)) return PSNRHVS_ERR(EINVAL);
    const int err = c->ops->send(c, ref, dist, tag);
    if (!err) c->queued++;
    return err;
}

int psnrhvs_receive(PsnrHvsContext *const c, PsnrHvsScore *const out) {
    if (!c || !out) return PSNRHVS_ERR(EINVAL);
    if (!c->queued) return PSNRHVS_ERR(EAGAIN);
    memset(out, 0, sizeof(*out));
    out->num_planes = c->num_planes;
    const int err = c->ops->receive(c, out->raw, &out->tag);
    c->queued--;
    if (err) return err;
    psnrhvs_raw_to_db(out);
    return 0;
}

int psnrhvs_score(PsnrHvsContext *const c, const PsnrHvsPicture *const ref,
                  const PsnrHvsPicture *const dist, PsnrHvsScore *const out) {
    if (!c || !out) return PSNRHVS_ERR(EINVAL);
    if (c->queued) return PSNRHVS_ERR(EBUSY);
    const int err = psnrhvs_send(c, ref, dist, 0);
    if (err) return err;
    return psnrhvs_receive(c, out);
}

void psnrhvs_close(PsnrHvsContext **const pc) {
    if (!pc || !*pc) return;
    PsnrHvsContext *c = *pc;
    c->ops->close(c);
    free(c);
    *pc = NULL;
}

const char *psnrhvs_backend_name(const PsnrHvsContext *c) {
    return c ? c->ops->name : NULL;
}

const char *psnrhvs_isa_name(const PsnrHvsContext *c) {
    return c && c->ops->isa_name ? c->ops->isa_name(c) : NULL;
}

int psnrhvs_list_devices(enum PsnrHvsBackend b, int verbose, char *buf, size_t size) {
    const PsnrHvsBackendOps *ops = find_backend(b);
    if (!ops) return PSNRHVS_ERR(ENOSYS);
    if (!ops->list_devices) {
        snprintf(buf, size, "%s: the host CPU\n", ops->name);
        return 0;
    }
    return ops->list_devices(verbose, buf, size);
}
