/*
 * The public API's contracts that no golden test covers: settings out of
 * range are refused (not clamped), samples above the bit depth's maximum are
 * refused with their position on every backend present (and the next frame
 * scores normally), and one context may be used from two threads at once
 * (the CI's ThreadSanitizer run checks the last one for races).
 * usage: test_api [settings|range|threads]...   (all when none is given)
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "check.h"
#include "fixture.h"

static char logged[4096];

static void logger(void *cookie, const char *msg) {
    (void)cookie;
    strncat(logged, msg, sizeof(logged) - strlen(logged) - 2);
    strcat(logged, "\n");
}

static PsnrHvsSettings settings(int w, int h, int bitdepth) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = w, s.height = h, s.bitdepth = bitdepth;
    s.logger.callback = logger;
    return s;
}

/* Opens with one field changed; the result and what was logged. */
static int open_with(PsnrHvsSettings s, const char *field, int value, const char *expect) {
    logged[0] = '\0';
    PsnrHvsContext *c = NULL;
    const int err = psnrhvs_open(&c, &s);
    psnrhvs_close(&c);
    if (expect)
        CHECK(err == PSNRHVS_ERR(EINVAL) && strstr(logged, expect),
              "%s = %d: want EINVAL saying '%s', got %d saying '%s'", field, value, expect, err,
              logged);
    return err;
}

static void test_settings(void) {
    psnrhvs_default_settings(NULL); /* must not crash */
    PsnrHvsSettings s = settings(64, 64, 8);
    static const int threads[] = {-1, PSNRHVS_MAX_THREADS + 1, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
        s.threads = threads[i];
        open_with(s, "threads", threads[i], "threads");
    }
    s.threads = PSNRHVS_MAX_THREADS;
    CHECK(open_with(s, "threads", s.threads, NULL) == 0, "threads = %d refused", s.threads);
    s = settings(64, 64, 8);
    static const int fif[] = {-1, PSNRHVS_MAX_FRAMES_IN_FLIGHT + 1, 10000000, INT_MAX};
    for (size_t i = 0; i < sizeof(fif) / sizeof(fif[0]); i++) {
        s.frames_in_flight = fif[i];
        open_with(s, "frames_in_flight", fif[i], "frames_in_flight");
    }
    s.frames_in_flight = PSNRHVS_MAX_FRAMES_IN_FLIGHT;
    CHECK(open_with(s, "frames_in_flight", s.frames_in_flight, NULL) == 0,
          "frames_in_flight = %d refused", s.frames_in_flight);
    s = settings(64, 64, 8);
    s.device = -1;
    open_with(s, "device", -1, "device");
    s = settings(64, 64, 8);
    s.backend = (enum PsnrHvsBackend)99;
    open_with(s, "backend", 99, "backend");
    s = settings(64, 64, 8);
    s.memory = (enum PsnrHvsMemory)7;
    open_with(s, "memory", 7, "memory");
    /* Device pictures need a backend that reads them: the CPU says so. */
    s = settings(64, 64, 8);
    s.memory = PSNRHVS_MEMORY_DEVICE;
    logged[0] = '\0';
    PsnrHvsContext *dc = NULL;
    const int derr = psnrhvs_open(&dc, &s);
    CHECK(derr == PSNRHVS_ERR(ENOSYS) && strstr(logged, "takes no device pictures") && !dc,
          "memory = device on the cpu backend: %d, '%s'", derr, logged);
    /* The stored forms of decoders' frames are for device pictures only. */
    s = settings(64, 64, 10);
    s.chroma_interleaved = 1;
    open_with(s, "chroma_interleaved", 1, "describe device pictures");
    s = settings(64, 64, 10);
    s.msb_aligned = 1;
    s.memory = PSNRHVS_MEMORY_HOST_RETAINED;
    open_with(s, "msb_aligned", 1, "describe device pictures");
    s = settings(64, 64, 8);
    s.memory = PSNRHVS_MEMORY_DEVICE;
    s.msb_aligned = 1;
    open_with(s, "msb_aligned at 8 bits", 1, "msb_aligned needs samples above 8 bits");
    s = settings(64, 64, 10);
    s.memory = PSNRHVS_MEMORY_DEVICE;
    s.chroma_interleaved = 2;
    open_with(s, "chroma_interleaved", 2, "are 0 or 1");
    s = settings(64, 64, 8);
    s.reference_on_host = 1;
    open_with(s, "reference_on_host", 1, "reference_on_host goes with memory = device");
    s = settings(64, 64, 8);
    PsnrHvsContext *c = (PsnrHvsContext *)&s;
    CHECK(psnrhvs_open(&c, NULL) == PSNRHVS_ERR(EINVAL) && !c, "open with NULL settings");
    CHECK(psnrhvs_open(NULL, &s) == PSNRHVS_ERR(EINVAL), "open with NULL context pointer");
    psnrhvs_close(NULL);
    printf("settings: out-of-range values refused with a message naming them\n");
}

/* Backends to try, with whether they must be present. */
static const struct {
    const char *name;
    enum PsnrHvsBackend backend;
    enum PsnrHvsIsa isa;
    int threads;
    int exact_helpers;
} paths[] = {
    {"cpu scalar", PSNRHVS_BACKEND_CPU, PSNRHVS_ISA_SCALAR, 1, 0},
    {"cpu 1 thread", PSNRHVS_BACKEND_CPU, PSNRHVS_ISA_AUTO, 1, 0},
    {"cpu 3 threads", PSNRHVS_BACKEND_CPU, PSNRHVS_ISA_AUTO, 3, 0},
    {"cpu scalar 2 threads", PSNRHVS_BACKEND_CPU, PSNRHVS_ISA_SCALAR, 2, 0},
    {"cuda", PSNRHVS_BACKEND_CUDA, PSNRHVS_ISA_AUTO, 0, 0},
    {"hip", PSNRHVS_BACKEND_HIP, PSNRHVS_ISA_AUTO, 0, 0},
    {"opencl", PSNRHVS_BACKEND_OPENCL, PSNRHVS_ISA_AUTO, 0, 0},
    {"sycl", PSNRHVS_BACKEND_SYCL, PSNRHVS_ISA_AUTO, 0, 0},
    {"sycl integer helpers", PSNRHVS_BACKEND_SYCL, PSNRHVS_ISA_AUTO, 0, 1},
    {"vulkan", PSNRHVS_BACKEND_VULKAN, PSNRHVS_ISA_AUTO, 0, 0},
};

static void test_range(void) {
    static const int depths[] = {10, 12};
    for (size_t d = 0; d < 2; d++) {
        const int bits = depths[d];
        Fixture fx;
        fixture_generate(&fx, "range", 96, 64, bits, PSNRHVS_PIXEL_LAYOUT_I420, 3, 7);
        /* Frame 1 gets one sample above the maximum in the distorted Cr
         * plane at (13, 21), and one in the reference luma at (40, 50),
         * which comes first in the report. */
        const PsnrHvsPicture bad_ref = fixture_ref(&fx, 1), bad_dist = fixture_dist(&fx, 1);
        uint16_t *const cr =
            (uint16_t *)(uintptr_t)((const uint8_t *)bad_dist.data[2] + 21 * bad_dist.stride[2]);
        cr[13] = (uint16_t)(1u << bits);
        uint16_t *const y =
            (uint16_t *)(uintptr_t)((const uint8_t *)bad_ref.data[0] + 50 * bad_ref.stride[0]);
        y[40] = 0xffff;
        PsnrHvsScore want[3];
        PsnrHvsSettings s = settings(96, 64, bits);
        s.isa = PSNRHVS_ISA_SCALAR;
        s.threads = 1;
        PsnrHvsContext *c;
        if (psnrhvs_open(&c, &s)) {
            CHECK(0, "cannot open the scalar reference");
            return;
        }
        for (int f = 0; f < 3; f += 2) {
            const PsnrHvsPicture r = fixture_ref(&fx, f), dd = fixture_dist(&fx, f);
            CHECK(!psnrhvs_score(c, &r, &dd, &want[f]), "reference frame %d", f);
        }
        psnrhvs_close(&c);
        for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
            s = settings(96, 64, bits);
            s.backend = paths[i].backend;
            s.isa = paths[i].isa;
            s.threads = paths[i].threads;
            s.exact_helpers = paths[i].exact_helpers;
            logged[0] = '\0';
            if (psnrhvs_open(&c, &s)) {
                if (paths[i].backend == PSNRHVS_BACKEND_CPU)
                    CHECK(0, "%s: cannot open", paths[i].name);
                continue;
            }
            /* All three frames in flight, the bad one in the middle. */
            for (int f = 0; f < 3; f++) {
                const PsnrHvsPicture r = fixture_ref(&fx, f), dd = fixture_dist(&fx, f);
                CHECK(!psnrhvs_send(c, &r, &dd, (uint64_t)f), "%s: send %d", paths[i].name, f);
            }
            for (int f = 0; f < 3; f++) {
                PsnrHvsScore sc;
                logged[0] = '\0';
                const int err = psnrhvs_receive(c, &sc);
                if (f == 1) {
                    CHECK(err == PSNRHVS_ERR(EINVAL) &&
                              strstr(logged, "sample 65535 at x 40, y 50 of the reference "
                                             "picture's Y plane"),
                          "%s %d-bit: the bad frame gave %d saying '%s'", paths[i].name, bits, err,
                          logged);
                } else {
                    CHECK(!err && sc.tag == (uint64_t)f && scores_same_bits(&sc, &want[f]),
                          "%s %d-bit: frame %d after the bad one: err %d", paths[i].name, bits, f,
                          err);
                }
            }
            /* The Cr sample alone is found too. */
            y[40] = 0;
            for (int f = 0; f < 2; f++) {
                PsnrHvsScore sc;
                logged[0] = '\0';
                const int err = psnrhvs_score(c, &bad_ref, &bad_dist, &sc);
                CHECK(err == PSNRHVS_ERR(EINVAL) &&
                          strstr(logged, "at x 13, y 21 of the distorted picture's Cr plane"),
                      "%s %d-bit: the Cr sample gave %d saying '%s'", paths[i].name, bits, err,
                      logged);
            }
            y[40] = 0xffff;
            printf("range %d-bit, %s: refused with its position, the frames around it scored\n",
                   bits, paths[i].name);
            psnrhvs_close(&c);
        }
        fixture_free(&fx);
    }
}

/* A ladder: one reference, several renditions, on every backend present;
 * each rendition's scores must be those of its pair scored alone. */
static void test_ladder(void) {
    enum { R = 4, FRAMES = 3 };
    static const int depths[] = {8, 10};
    for (size_t d = 0; d < 2; d++) {
        const int bits = depths[d];
        /* Renditions: the generator's distorted frames of other seeds. */
        Fixture fx[R];
        for (int r = 0; r < R; r++)
            fixture_generate(&fx[r], "ladder", 200, 88, bits, PSNRHVS_PIXEL_LAYOUT_I420, FRAMES,
                             (uint32_t)(r + 1));
        PsnrHvsScore want[R][FRAMES];
        for (int r = 0; r < R; r++) {
            PsnrHvsSettings s = settings(200, 88, bits);
            s.isa = PSNRHVS_ISA_SCALAR;
            s.threads = 1;
            PsnrHvsContext *c;
            if (psnrhvs_open(&c, &s)) return;
            for (int f = 0; f < FRAMES; f++) {
                const PsnrHvsPicture ref = fixture_ref(&fx[0], f), dist = fixture_dist(&fx[r], f);
                CHECK(!psnrhvs_score(c, &ref, &dist, &want[r][f]), "alone");
            }
            psnrhvs_close(&c);
        }
        for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
            PsnrHvsSettings s = settings(200, 88, bits);
            s.backend = paths[i].backend;
            s.isa = paths[i].isa;
            s.threads = paths[i].threads;
            s.renditions = R;
            PsnrHvsContext *c;
            logged[0] = '\0';
            if (psnrhvs_open(&c, &s)) {
                if (paths[i].backend == PSNRHVS_BACKEND_CPU)
                    CHECK(0, "%s: cannot open", paths[i].name);
                continue;
            }
            /* One rendition's calls refuse a ladder context. */
            PsnrHvsScore one;
            const PsnrHvsPicture r0 = fixture_ref(&fx[0], 0);
            CHECK(psnrhvs_send(c, &r0, &r0, 0) == PSNRHVS_ERR(EINVAL) &&
                      psnrhvs_receive(c, &one) == PSNRHVS_ERR(EINVAL),
                  "%s: psnrhvs_send on a ladder context", paths[i].name);
            int sent = 0, got = 0, same = 1;
            while (got < FRAMES) {
                if (sent < FRAMES) {
                    PsnrHvsPicture dist[R];
                    for (int r = 0; r < R; r++) dist[r] = fixture_dist(&fx[r], sent);
                    const PsnrHvsPicture ref = fixture_ref(&fx[0], sent);
                    const int err = psnrhvs_send_ladder(c, &ref, dist, (uint64_t)sent);
                    if (!err) {
                        sent++;
                        continue;
                    }
                    CHECK(err == PSNRHVS_ERR(EAGAIN), "%s: send_ladder %d", paths[i].name, err);
                }
                PsnrHvsScore sc[R];
                const int err = psnrhvs_receive_ladder(c, sc);
                CHECK(!err, "%s: receive_ladder %d", paths[i].name, err);
                for (int r = 0; r < R && !err; r++)
                    same &= sc[r].tag == (uint64_t)got && scores_same_bits(&sc[r], &want[r][got]);
                got++;
            }
            /* A sample out of range in rendition 2 names it. */
            PsnrHvsPicture dist[R];
            for (int r = 0; r < R; r++) dist[r] = fixture_dist(&fx[r], 0);
            int refused = 1;
            if (bits > 8) {
                uint16_t *const row = (uint16_t *)(uintptr_t)((const uint8_t *)dist[2].data[0] +
                                                              30 * dist[2].stride[0]);
                const uint16_t keep = row[77];
                row[77] = 4000;
                const PsnrHvsPicture ref = fixture_ref(&fx[0], 0);
                PsnrHvsScore sc[R];
                logged[0] = '\0';
                refused = !psnrhvs_send_ladder(c, &ref, dist, 9) &&
                          psnrhvs_receive_ladder(c, sc) == PSNRHVS_ERR(EINVAL) &&
                          strstr(logged, "sample 4000 at x 77, y 30 of the rendition 2's");
                row[77] = keep;
            }
            CHECK(same && refused, "%s %d-bit ladder of %d: bits %d, out-of-range refused %d (%s)",
                  paths[i].name, bits, R, same, refused, logged);
            printf("ladder %d-bit of %d renditions, %s: each rendition's bits alone%s\n", bits, R,
                   paths[i].name, bits > 8 ? ", a sample out of range located" : "");
            psnrhvs_close(&c);
        }
        for (int r = 0; r < R; r++) fixture_free(&fx[r]);
    }
}

/* Two threads share one context: one sends, the other receives. */
typedef struct Shared {
    PsnrHvsContext *c;
    const Fixture *fx;
    int frames;
    PsnrHvsScore *got;
    int errors;
} Shared;

static void *sender(void *arg) {
    Shared *const sh = arg;
    for (int f = 0; f < sh->frames;) {
        const PsnrHvsPicture r = fixture_ref(sh->fx, f % sh->fx->frames);
        const PsnrHvsPicture d = fixture_dist(sh->fx, f % sh->fx->frames);
        const int err = psnrhvs_send(sh->c, &r, &d, (uint64_t)f);
        if (err == PSNRHVS_ERR(EAGAIN)) continue; /* the receiver will make room */
        if (err) {
            sh->errors++;
            break;
        }
        f++;
    }
    return NULL;
}

static void test_threads(void) {
    Fixture fx;
    fixture_generate(&fx, "threads", 160, 96, 8, PSNRHVS_PIXEL_LAYOUT_I420, 4, 3);
    const int frames = 40;
    PsnrHvsScore want[4];
    for (int t = 0; t < 2; t++) {
        PsnrHvsSettings s = settings(160, 96, 8);
        s.threads = t ? 3 : 1;
        s.frames_in_flight = 2;
        PsnrHvsContext *c;
        if (psnrhvs_open(&c, &s)) {
            CHECK(0, "open");
            return;
        }
        if (!t) fixture_score_queued(c, &fx, want);
        PsnrHvsScore *const got = calloc((size_t)frames, sizeof(*got));
        Shared sh = {c, &fx, frames, got, 0};
        pthread_t th;
        pthread_create(&th, NULL, sender, &sh);
        int received = 0, order = 1;
        while (received < frames) {
            PsnrHvsScore sc;
            const int err = psnrhvs_receive(c, &sc);
            if (err == PSNRHVS_ERR(EAGAIN)) continue; /* nothing sent yet */
            if (err) {
                sh.errors++;
                break;
            }
            order &= sc.tag == (uint64_t)received;
            got[received++] = sc;
        }
        pthread_join(th, NULL);
        int same = 1;
        for (int f = 0; f < received; f++) same &= scores_same_bits(&got[f], &want[f % 4]);
        CHECK(!sh.errors && order && same && received == frames,
              "two threads on one context (%d threads): %d errors, order %d, bits %d", s.threads,
              sh.errors, order, same);
        printf("threads: one context, a sender and a receiver thread, %d scoring threads: %d "
               "frames in order, the same bits\n",
               s.threads, received);
        free(got);
        psnrhvs_close(&c);
    }
    fixture_free(&fx);
}

/* PSNRHVS_MEMORY_HOST_RETAINED: pictures read after psnrhvs_send() returns
 * (the CPU backend, frames in flight, no copy) give the bits of the scalar
 * reference on every backend present; every frame from its own buffer, kept
 * until received. */
static void test_retained(void) {
    enum { FRAMES = 6 };
    Fixture fx;
    fixture_generate(&fx, "retained", 328, 200, 10, PSNRHVS_PIXEL_LAYOUT_I420, FRAMES, 7);
    PsnrHvsScore want[FRAMES];
    {
        PsnrHvsSettings s = settings(328, 200, 10);
        s.isa = PSNRHVS_ISA_SCALAR;
        s.threads = 1;
        PsnrHvsContext *c;
        if (psnrhvs_open(&c, &s)) return;
        for (int f = 0; f < FRAMES; f++) {
            const PsnrHvsPicture ref = fixture_ref(&fx, f), dist = fixture_dist(&fx, f);
            CHECK(!psnrhvs_score(c, &ref, &dist, &want[f]), "alone");
        }
        psnrhvs_close(&c);
    }
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        PsnrHvsSettings s = settings(328, 200, 10);
        s.backend = paths[i].backend;
        s.isa = paths[i].isa;
        s.threads = paths[i].threads;
        s.exact_helpers = paths[i].exact_helpers;
        s.memory = PSNRHVS_MEMORY_HOST_RETAINED;
        s.frames_in_flight = 4;
        PsnrHvsContext *c;
        if (psnrhvs_open(&c, &s)) {
            if (paths[i].backend == PSNRHVS_BACKEND_CPU) CHECK(0, "%s: cannot open", paths[i].name);
            continue;
        }
        /* Registered host memory: devices that can upload it in place do. */
        const size_t bytes = (size_t)FRAMES * fx.layout.frame_bytes;
        CHECK(!psnrhvs_host_register(c, fx.ref, bytes) && !psnrhvs_host_register(c, fx.dist, bytes),
              "%s: register", paths[i].name);
        int sent = 0, got = 0, same = 1;
        while (got < FRAMES) {
            if (sent < FRAMES) {
                const PsnrHvsPicture ref = fixture_ref(&fx, sent), dist = fixture_dist(&fx, sent);
                const int err = psnrhvs_send(c, &ref, &dist, (uint64_t)sent);
                if (!err) {
                    sent++;
                    continue;
                }
                CHECK(err == PSNRHVS_ERR(EAGAIN), "%s: send %d", paths[i].name, err);
            }
            PsnrHvsScore sc;
            const int err = psnrhvs_receive(c, &sc);
            CHECK(!err, "%s: receive %d", paths[i].name, err);
            same &= !err && sc.tag == (uint64_t)got && scores_same_bits(&sc, &want[got]);
            got++;
        }
        CHECK(same, "%s: retained pictures give other bits", paths[i].name);
        printf("retained: %s, %d frames in flight from the caller's buffers: the same bits\n",
               paths[i].name, s.frames_in_flight);
        CHECK(!psnrhvs_host_unregister(c, fx.dist), "%s: unregister", paths[i].name);
        psnrhvs_close(&c); /* ends ref's */
    }
    /* One thread scores in psnrhvs_send: retained or not, the same bits. */
    PsnrHvsSettings s = settings(328, 200, 10);
    s.threads = 1;
    s.memory = PSNRHVS_MEMORY_HOST_RETAINED;
    s.frames_in_flight = 2;
    PsnrHvsContext *c;
    if (!psnrhvs_open(&c, &s)) {
        const PsnrHvsPicture r0 = fixture_ref(&fx, 0), d0 = fixture_dist(&fx, 0);
        const PsnrHvsPicture r1 = fixture_ref(&fx, 1), d1 = fixture_dist(&fx, 1);
        PsnrHvsScore sc0, sc1;
        CHECK(!psnrhvs_send(c, &r0, &d0, 0) && !psnrhvs_send(c, &r1, &d1, 1), "send two");
        CHECK(!psnrhvs_receive(c, &sc0) && !psnrhvs_receive(c, &sc1), "receive two");
        CHECK(scores_same_bits(&sc0, &want[0]) && scores_same_bits(&sc1, &want[1]),
              "one thread, retained");
        psnrhvs_close(&c);
    }
    fixture_free(&fx);
}

/* psnrhvs_host_register()'s arguments, on the CPU (which has no use for them). */
static void test_host_register(void) {
    /* the heap's: a static array may share a page with the executable's data, a file's */
    unsigned char *const buf = malloc(17 * 64);
    PsnrHvsSettings s = settings(64, 64, 8);
    PsnrHvsContext *c;
    CHECK(buf != NULL, "out of memory");
    if (!buf || psnrhvs_open(&c, &s)) {
        free(buf);
        return;
    }
    CHECK(psnrhvs_host_register(c, buf, 64) == PSNRHVS_ERR(EINVAL), "memory = host: accepted");
    psnrhvs_close(&c);
    s.memory = PSNRHVS_MEMORY_HOST_RETAINED;
    if (psnrhvs_open(&c, &s)) return;
    CHECK(psnrhvs_host_register(NULL, buf, 64) == PSNRHVS_ERR(EINVAL), "no context");
    CHECK(psnrhvs_host_register(c, NULL, 64) == PSNRHVS_ERR(EINVAL), "no data");
    CHECK(psnrhvs_host_register(c, buf, 0) == PSNRHVS_ERR(EINVAL), "no size");
    int ok = 1;
    for (int i = 0; i < 16; i++) ok &= !psnrhvs_host_register(c, buf + 64 * i, 64);
    CHECK(ok, "16 ranges");
    CHECK(psnrhvs_host_register(c, buf + 64 * 16, 64) == PSNRHVS_ERR(ENOMEM), "a 17th");
    CHECK(!psnrhvs_host_unregister(c, buf + 64 * 3), "unregister");
    CHECK(psnrhvs_host_unregister(c, buf + 64 * 3) == PSNRHVS_ERR(EINVAL), "unregister twice");
    CHECK(psnrhvs_host_unregister(c, buf + 1) == PSNRHVS_ERR(EINVAL), "unregister another");
    CHECK(psnrhvs_host_register(c, buf + 64 * 2 + 8, 64) == PSNRHVS_ERR(EINVAL), "overlap");
    CHECK(!psnrhvs_host_register(c, buf + 64 * 3, 64), "again after unregister");
    psnrhvs_close(&c); /* with 16 still registered */
    free(buf);
#if defined(__linux__)
    /* a mapped file's pages are refused: page-locking them hung NVIDIA's driver */
    FILE *const f = tmpfile();
    CHECK(f && !ftruncate(fileno(f), 8192), "a temporary file");
    void *const map = f ? mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fileno(f), 0) : MAP_FAILED;
    CHECK(map != MAP_FAILED, "mapping the temporary file");
    if (map != MAP_FAILED && !psnrhvs_open(&c, &s)) {
        CHECK(psnrhvs_host_register(c, (const unsigned char *)map + 4096, 64) ==
                  PSNRHVS_ERR(ENOTSUP),
              "a mapped file accepted");
        psnrhvs_close(&c);
    }
    if (map != MAP_FAILED) munmap(map, 8192);
    if (f) fclose(f);
#endif
}

int main(int argc, char **argv) {
    const int all = argc < 2;
    for (int i = 1; i < argc || all; i++) {
        const char *const t = all ? "" : argv[i];
        if (all || !strcmp(t, "settings")) test_settings();
        if (all || !strcmp(t, "range")) test_range();
        if (all || !strcmp(t, "threads")) test_threads();
        if (all || !strcmp(t, "ladder")) test_ladder();
        if (all || !strcmp(t, "retained")) test_retained();
        if (all || !strcmp(t, "host_register")) test_host_register();
        if (all) break;
    }
    printf("%d failures\n", failures);
    return failures != 0;
}
