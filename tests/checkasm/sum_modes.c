/*
 * The CPU backend's two plane-sum modes (the test hook psh_test_set_cpu_sum:
 * chain, engine or auto, read at psnrhvs_open) on generated 1920x1080 4:2:0
 * frames, 8 and 10 bits: every mode, thread count and queue depth must give
 * the scalar reference's raw plane scores bit for bit (memcmp).
 * psh_test_cpu_engine_rows() shows which mode really ran.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "dsp.h"
#include "psnrhvs.h"
#include "test_hooks.h"

/* Whether auto may pick the engine: only with a SIMD lane kernel. */
static int simd_lanes(void) {
    PsnrHvsDspContext dsp;
    psh_dsp_init(&dsp, psh_get_cpu_flags());
    return dsp.sum_lanes != psh_sum_lanes_c;
}

#define W      1920
#define H      1080
#define FRAMES 3

static uint32_t rng = 0x2545f491u;

static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

typedef struct Pair {
    uint8_t *ref, *dist;
    int w[3], h[3];
    size_t off[3];
    int bps;
} Pair;

/* Gradients, edges and noise; the distorted plane adds noise whose strength
 * changes across the frame, so the plane sums cross many binades. */
static void gen_pair(Pair *f, const int bits, const int seed) {
    const int max = (1 << bits) - 1, bps = bits > 8 ? 2 : 1;
    size_t total = 0;
    f->bps = bps;
    for (int p = 0; p < 3; p++) {
        f->w[p] = p ? W / 2 : W;
        f->h[p] = p ? H / 2 : H;
        f->off[p] = total;
        total += (size_t)f->w[p] * f->h[p] * bps;
    }
    f->ref = malloc(total);
    f->dist = malloc(total);
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < f->h[p]; y++)
            for (int x = 0; x < f->w[p]; x++) {
                int r = (x * 3 + y * 2 + seed * 17) % 256 + (((x / 29 + y / 13) & 1) ? 40 : 0);
                r = (r + (int)(rnd() % 3)) << (bits - 8);
                const int amp = 1 + (y * 8 / f->h[p]) * (x * 8 / f->w[p]);
                int d = r + ((int)(rnd() % (2 * amp + 1)) - amp) * (1 << (bits - 8));
                r = r > max ? max : r;
                d = d < 0 ? 0 : d > max ? max : d;
                const size_t i = (size_t)y * f->w[p] + x;
                if (bps == 1) {
                    f->ref[f->off[p] + i] = (uint8_t)r;
                    f->dist[f->off[p] + i] = (uint8_t)d;
                } else {
                    ((uint16_t *)(void *)(f->ref + f->off[p]))[i] = (uint16_t)r;
                    ((uint16_t *)(void *)(f->dist + f->off[p]))[i] = (uint16_t)d;
                }
            }
}

/* Scores the FRAMES pairs through send/receive; raw[f] gets frame f's
 * scores. engine_rows: rows the engine walked meanwhile. */
static int score(float raw[FRAMES][3], size_t *engine_rows, const Pair *pairs, const int bits,
                 const enum PsnrHvsTestCpuSum mode, const enum PsnrHvsIsa isa, const int threads,
                 const int in_flight) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = W;
    s.height = H;
    s.bitdepth = bits;
    s.isa = isa;
    s.threads = threads;
    s.frames_in_flight = in_flight;
    psh_test_set_cpu_sum(mode);
    PsnrHvsContext *c;
    int err = psnrhvs_open(&c, &s);
    psh_test_set_cpu_sum(PSNRHVS_TEST_CPU_SUM_AUTO);
    if (err) return err;
    const size_t walked = psh_test_cpu_engine_rows();
    int sent = 0, got = 0;
    while (got < FRAMES && !err) {
        if (sent < FRAMES) {
            PsnrHvsPicture r, d;
            const Pair *const f = &pairs[sent];
            for (int p = 0; p < 3; p++) {
                r.data[p] = f->ref + f->off[p];
                d.data[p] = f->dist + f->off[p];
                r.stride[p] = d.stride[p] = (ptrdiff_t)f->w[p] * f->bps;
            }
            err = psnrhvs_send(c, &r, &d, (uint64_t)sent);
            if (!err) {
                sent++;
                continue;
            }
            if (err != PSNRHVS_ERR(EAGAIN)) break;
        }
        PsnrHvsScore sc;
        err = psnrhvs_receive(c, &sc);
        if (!err) memcpy(raw[sc.tag], sc.raw, sizeof(raw[0])), got++;
    }
    *engine_rows = psh_test_cpu_engine_rows() - walked;
    psnrhvs_close(&c);
    return err;
}

int main(void) {
#define AUTO   PSNRHVS_TEST_CPU_SUM_AUTO
#define CHAIN  PSNRHVS_TEST_CPU_SUM_CHAIN
#define ENGINE PSNRHVS_TEST_CPU_SUM_ENGINE
    static const char *const names[] = {"auto", "chain", "engine"};
    static const struct {
        enum PsnrHvsTestCpuSum mode;
        int threads, in_flight;
        int engine; ///< 1: the engine must run, 2: auto's choice, only with a SIMD lane kernel
    } cfgs[] = {
        {CHAIN, 1, 1, 0},  {CHAIN, 2, 1, 0},  {CHAIN, 3, 3, 0},  {ENGINE, 1, 1, 1},
        {ENGINE, 2, 1, 1}, {ENGINE, 3, 1, 1}, {ENGINE, 2, 3, 1}, {ENGINE, 3, 3, 1},
        {AUTO, 3, 1, 0},   {AUTO, 8, 1, 2},   {AUTO, 8, 3, 2},   {CHAIN, 8, 1, 0},
        {ENGINE, 8, 3, 1}, {CHAIN, 8, 3, 0},
    };
    int failures = 0;
    for (int bits = 8; bits <= 10; bits += 2) {
        Pair pairs[FRAMES];
        for (int k = 0; k < FRAMES; k++) gen_pair(&pairs[k], bits, k);
        float want[FRAMES][3], got[FRAMES][3];
        size_t rows;
        if (score(want, &rows, pairs, bits, AUTO, PSNRHVS_ISA_SCALAR, 1, 1)) {
            printf("%d bits: the scalar reference failed\n", bits);
            return 1;
        }
        for (size_t i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
            const int err = score(got, &rows, pairs, bits, cfgs[i].mode, PSNRHVS_ISA_AUTO,
                                  cfgs[i].threads, cfgs[i].in_flight);
            const int same = !err && !memcmp(want, got, sizeof(want));
            const int engine = cfgs[i].engine == 2 ? simd_lanes() : cfgs[i].engine;
            const int mode_ok = engine ? rows > 0 : rows == 0;
            printf("%d bits, sum %s, %d threads, %d in flight: %s, engine rows "
                   "%zu%s\n",
                   bits, names[cfgs[i].mode], cfgs[i].threads, cfgs[i].in_flight,
                   err    ? "error"
                   : same ? "same bits"
                          : "DIFFERENT",
                   rows, mode_ok ? "" : " (WRONG MODE)");
            for (int f = 0; !same && !err && f < FRAMES; f++)
                for (int p = 0; p < 3; p++)
                    if (memcmp(&want[f][p], &got[f][p], sizeof(float)))
                        printf("  frame %d plane %d: got %a, want %a\n", f, p, got[f][p],
                               want[f][p]);
            failures += !same || !mode_ok;
        }
        for (int k = 0; k < FRAMES; k++) free(pairs[k].ref), free(pairs[k].dist);
    }
    printf("%d failures\n", failures);
    return failures != 0;
}
