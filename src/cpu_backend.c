/*
 * The CPU backend: scores each pair as it is sent and queues the results.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdlib.h>

#include "core/block.h"
#include "internal.h"
#include "plane.h"

typedef struct CpuResult {
    float raw[3];
    uint64_t tag;
} CpuResult;

typedef struct CpuBackend {
    CpuResult *ring;
    int capacity, head, count;
} CpuBackend;

static int cpu_open(PsnrHvsContext *c) {
    if (c->s.isa == PSNRHVS_ISA_AVX2 || c->s.isa == PSNRHVS_ISA_AVX512) {
        psnrhvs_log(c, "the %s path is not built into this library",
                    c->s.isa == PSNRHVS_ISA_AVX2 ? "avx2" : "avx512");
        return PSNRHVS_ERR(ENOSYS);
    }
    CpuBackend *b = calloc(1, sizeof(*b));
    if (!b) return PSNRHVS_ERR(ENOMEM);
    b->capacity = c->s.frames_in_flight > 0 ? c->s.frames_in_flight : 1;
    b->ring = calloc((size_t)b->capacity, sizeof(*b->ring));
    if (!b->ring) {
        free(b);
        return PSNRHVS_ERR(ENOMEM);
    }
    c->backend = b;
    return 0;
}

static void score_pair(const PsnrHvsContext *c, const PsnrHvsPicture *ref,
                       const PsnrHvsPicture *dist, float raw[3]) {
    for (int p = 0; p < c->num_planes; p++) {
        const PsnrHvsPlanePair pair = {
            .ref = ref->data[p],
            .dist = dist->data[p],
            .ref_stride = ref->stride[p],
            .dist_stride = dist->stride[p],
            .w = c->plane_w[p],
            .h = c->plane_h[p],
            .table = p,
            .bitdepth = c->s.bitdepth,
            .mask_product = c->s.mask_product == PSNRHVS_MASK_PRODUCT_EXACT
                                ? PSH_MASK_PRODUCT_EXACT
                                : PSH_MASK_PRODUCT_FLOAT,
        };
        raw[p] = psnrhvs_plane_score_ref(&pair);
    }
}

static int cpu_send(PsnrHvsContext *c, const PsnrHvsPicture *ref, const PsnrHvsPicture *dist,
                    uint64_t tag) {
    CpuBackend *b = c->backend;
    if (b->count == b->capacity) return PSNRHVS_ERR(EAGAIN);
    CpuResult *r = &b->ring[(b->head + b->count) % b->capacity];
    r->raw[0] = r->raw[1] = r->raw[2] = 0.0f;
    r->tag = tag;
    score_pair(c, ref, dist, r->raw);
    b->count++;
    return 0;
}

static int cpu_receive(PsnrHvsContext *c, float raw[3], uint64_t *tag) {
    CpuBackend *b = c->backend;
    if (!b->count) return PSNRHVS_ERR(EAGAIN);
    const CpuResult *r = &b->ring[b->head];
    for (int p = 0; p < 3; p++) raw[p] = r->raw[p];
    *tag = r->tag;
    b->head = (b->head + 1) % b->capacity;
    b->count--;
    return 0;
}

static void cpu_close(PsnrHvsContext *c) {
    CpuBackend *b = c->backend;
    if (!b) return;
    free(b->ring);
    free(b);
    c->backend = NULL;
}

static const char *cpu_isa_name(const PsnrHvsContext *c) {
    return "scalar";
}

const PsnrHvsBackendOps psnrhvs_backend_cpu = {
    .name = "cpu",
    .id = PSNRHVS_BACKEND_CPU,
    .open = cpu_open,
    .send = cpu_send,
    .receive = cpu_receive,
    .close = cpu_close,
    .isa_name = cpu_isa_name,
};
