/*
 * Host memory uploaded where it is (psnrhvs_host_register, settings.memory
 * = PSNRHVS_MEMORY_HOST_RETAINED): generated 1080p clips of 8 and 10 bits,
 * a few hundred MB each so that frames cross the 128 MiB pieces the cuda
 * backend locks, scored with both buffers registered, by cuda alone, by a
 * ladder and by auto (the CPU and the GPU), twice over (the second pass
 * starts behind the window). Every score must have the bits of the copied
 * path; the memory must be page-locked while registered and no longer
 * after psnrhvs_host_unregister(); a sample out of range must be refused
 * with the copied path's message. Exits 77 without a GPU.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "check.h"
#include "fixture.h"

static char logged[2048];

static void logger(void *cookie, const char *msg) {
    (void)cookie;
    snprintf(logged, sizeof(logged), "%s", msg);
}

static PsnrHvsContext *open_ctx(const Fixture *fx, enum PsnrHvsBackend b, enum PsnrHvsMemory m,
                                int renditions) {
    PsnrHvsSettings s = fx->s;
    s.backend = b;
    s.memory = m;
    s.renditions = renditions;
    s.logger = (PsnrHvsLogger){NULL, logger};
    PsnrHvsContext *c = NULL;
    const int err = psnrhvs_open(&c, &s);
    CHECK(!err, "%s: open %s: %d (%s)", fx->name, psnrhvs_backend_string(b), err, logged);
    return c;
}

static int is_locked(const void *p) {
    unsigned flags;
    const int locked = cudaHostGetFlags(&flags, (void *)(uintptr_t)p) == cudaSuccess;
    cudaGetLastError();
    return locked;
}

/* Every frame of fx, registered, against want[], twice. */
static void registered_pass(const Fixture *fx, enum PsnrHvsBackend b, const PsnrHvsScore *want) {
    PsnrHvsContext *c = open_ctx(fx, b, PSNRHVS_MEMORY_HOST_RETAINED, 1);
    if (!c) return;
    const size_t bytes = (size_t)fx->frames * fx->layout.frame_bytes;
    CHECK(!psnrhvs_host_register(c, fx->ref, bytes), "%s: register ref", fx->name);
    CHECK(!psnrhvs_host_register(c, fx->dist, bytes), "%s: register dist", fx->name);
    CHECK(psnrhvs_host_register(c, fx->ref + 4096, 4096) < 0, "%s: overlap accepted", fx->name);
    PsnrHvsScore *got = calloc((size_t)fx->frames, sizeof(*got));
    for (int pass = 0; pass < 2 && got; pass++) {
        if (fixture_score_queued(c, fx, got)) {
            failures++;
            break;
        }
        for (int f = 0; f < fx->frames; f++)
            CHECK(scores_same_bits(&got[f], &want[f]), "%s %s pass %d frame %d: bits differ",
                  fx->name, psnrhvs_backend_name(c), pass, f);
    }
    /* the last frames' memory is locked now (auto: once CUDA joined) */
    const unsigned char *last = fx->dist + (size_t)(fx->frames - 1) * fx->layout.frame_bytes;
    if (b == PSNRHVS_BACKEND_CUDA) CHECK(is_locked(last), "%s: not page-locked", fx->name);
    CHECK(!psnrhvs_host_unregister(c, fx->dist), "%s: unregister", fx->name);
    CHECK(!is_locked(last), "%s: still page-locked after unregister", fx->name);
    CHECK(psnrhvs_host_unregister(c, fx->dist) < 0, "%s: unregistered twice", fx->name);
    psnrhvs_close(&c); /* ends ref's registration */
    CHECK(!is_locked(fx->ref), "%s: ref still page-locked after close", fx->name);
    free(got);
}

static void ladder(const Fixture *fx, const PsnrHvsScore *want) {
    PsnrHvsContext *c = open_ctx(fx, PSNRHVS_BACKEND_CUDA, PSNRHVS_MEMORY_HOST_RETAINED, 2);
    if (!c) return;
    const size_t bytes = (size_t)fx->frames * fx->layout.frame_bytes;
    psnrhvs_host_register(c, fx->ref, bytes);
    psnrhvs_host_register(c, fx->dist, bytes);
    for (int f = 0; f < fx->frames; f++) {
        const PsnrHvsPicture ref = fixture_ref(fx, f);
        /* renditions: the distorted, then the reference itself */
        const PsnrHvsPicture d[2] = {fixture_dist(fx, f), fixture_ref(fx, f)};
        PsnrHvsScore out[2];
        int err = psnrhvs_send_ladder(c, &ref, d, (uint64_t)f);
        if (!err) err = psnrhvs_receive_ladder(c, out);
        CHECK(!err, "%s ladder frame %d: %d (%s)", fx->name, f, err, logged);
        if (err) break;
        CHECK(scores_same_bits(&out[0], &want[f]), "%s ladder frame %d: bits differ", fx->name, f);
    }
    psnrhvs_close(&c);
}

/* A 10-bit sample above 1023: the same refusal, copied or in place. */
static void out_of_range(Fixture *fx) {
    const int f = fx->frames - 2;
    unsigned char *const at = fx->dist + (size_t)f * fx->layout.frame_bytes + fx->layout.offset[1] +
                              10 * fx->layout.stride[1] + 2 * 7;
    const uint16_t bad = 1024;
    uint16_t old;
    memcpy(&old, at, 2);
    memcpy(at, &bad, 2);
    char msg[2][2048];
    for (int k = 0; k < 2; k++) {
        PsnrHvsContext *c = open_ctx(fx, PSNRHVS_BACKEND_CUDA,
                                     k ? PSNRHVS_MEMORY_HOST_RETAINED : PSNRHVS_MEMORY_HOST, 1);
        if (!c) return;
        const size_t bytes = (size_t)fx->frames * fx->layout.frame_bytes;
        if (k) psnrhvs_host_register(c, fx->ref, bytes), psnrhvs_host_register(c, fx->dist, bytes);
        PsnrHvsScore *got = calloc((size_t)fx->frames, sizeof(*got));
        logged[0] = '\0';
        const int err = got ? fixture_score_queued(c, fx, got) : -1;
        CHECK(err < 0, "%s: a sample out of range was scored (%s)", fx->name,
              k ? "in place" : "copied");
        snprintf(msg[k], sizeof(msg[k]), "%s", logged);
        free(got);
        psnrhvs_close(&c);
    }
    CHECK(msg[0][0] && !strcmp(msg[0], msg[1]), "%s: out of range: '%s' copied, '%s' in place",
          fx->name, msg[0], msg[1]);
    memcpy(at, &old, 2);
}

int main(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0 ||
        !psnrhvs_backend_available(PSNRHVS_BACKEND_CUDA)) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    const int bits[] = {8, 10};
    for (int i = 0; i < 2; i++) {
        Fixture fx;
        /* 8-bit: 140 frames of 3.1 MB, 10-bit 70 of 6.2 MB: over 3 pieces each */
        fixture_generate(&fx, bits[i] == 8 ? "1080p 8-bit" : "1080p 10-bit", 1920, 1080, bits[i],
                         PSNRHVS_PIXEL_LAYOUT_I420, bits[i] == 8 ? 140 : 70, 7u + (unsigned)i);
        PsnrHvsScore *want = calloc((size_t)fx.frames, sizeof(*want));
        PsnrHvsContext *c = open_ctx(&fx, PSNRHVS_BACKEND_CUDA, PSNRHVS_MEMORY_HOST, 1);
        if (!want || !c || fixture_score_queued(c, &fx, want)) {
            printf("FAIL %s: the copied path\n", fx.name);
            return 1;
        }
        psnrhvs_close(&c);
        registered_pass(&fx, PSNRHVS_BACKEND_CUDA, want);
        registered_pass(&fx, PSNRHVS_BACKEND_AUTO, want);
        ladder(&fx, want);
        if (bits[i] > 8) out_of_range(&fx);
        printf("%s: %d frames compared\n", fx.name, fx.frames);
        free(want);
        fixture_free(&fx);
    }
    printf("%s\n", failures ? "FAILED" : "all identical");
    return failures ? 1 : 0;
}
