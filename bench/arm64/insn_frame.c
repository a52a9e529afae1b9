/*
 * One frame scored between two markers, for instruction counts under QEMU
 * (bench/arm64/count_insns.sh, insn_plugin.c): a generated 4:2:0 picture
 * pair (smooth structure, edges and noise; the distorted a blurred, noisy
 * copy) is scored once to warm up (first-touch page faults, lazy tables),
 * then once more between getppid(MAGIC, 0, id) and getppid(MAGIC, 1, id),
 * which the plugin turns into the count of guest instructions in between,
 * on every thread. The path is the scalar reference (--isa scalar), the C
 * kernels of the fast path (the CPU flags masked off: what --isa auto runs
 * on a CPU without SIMD) or a SIMD ISA; one thread. The raw plane scores are
 * printed as %a: every path must print the same.
 *
 * usage: insn_frame PATH [WIDTH HEIGHT BITS]   PATH: scalar, c, neon, avx2, avx512
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _DEFAULT_SOURCE /* syscall() */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu.h"
#include "psnrhvs.h"

#define MARKER_MAGIC 0x50534e52u

static uint64_t rng = 0x853c49e6748fea9bull;

static uint32_t rnd(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

/* Integer-only content, so that every architecture makes the same pictures:
 * a ramp, a checker of edges, a triangle wave and noise; the distorted copy a
 * 3x3 box blur of it plus noise. */
static void gen_plane(uint8_t *ref, uint8_t *dist, const int w, const int h, const int bits) {
    const int max = (1 << bits) - 1, bps = bits > 8 ? 2 : 1;
    int *tmp = malloc((size_t)w * h * sizeof(int));
    if (!tmp) exit(1);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v = 60 + 100 * x / w + 50 * y / h;
            const int tri = (x * 3 + y) % 64;
            v += (tri < 32 ? tri : 63 - tri) - 16;
            v += ((x / 37 + y / 23) & 1) ? 12 : -12;
            v += (int)(rnd() % 9) - 4;
            v <<= bits - 8;
            tmp[(size_t)y * w + x] = v < 0 ? 0 : v > max ? max : v;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int s = 0, n = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int yy = y + dy, xx = x + dx;
                    if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                    s += tmp[(size_t)yy * w + xx], n++;
                }
            int d = (s + n / 2) / n + ((int)(rnd() % 13) - 6) * (1 << (bits - 8));
            d = d < 0 ? 0 : d > max ? max : d;
            const int r = tmp[(size_t)y * w + x];
            const size_t o = ((size_t)y * w + x) * bps;
            if (bps == 1) {
                ref[o] = (uint8_t)r, dist[o] = (uint8_t)d;
            } else {
                const uint16_t r16 = (uint16_t)r, d16 = (uint16_t)d;
                memcpy(ref + o, &r16, 2);
                memcpy(dist + o, &d16, 2);
            }
        }
    free(tmp);
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 5) {
        fprintf(stderr, "usage: %s scalar|c|neon|avx2|avx512 [WIDTH HEIGHT BITS]\n", argv[0]);
        return 2;
    }
    const char *const path = argv[1];
    const int w = argc == 5 ? atoi(argv[2]) : 1920, h = argc == 5 ? atoi(argv[3]) : 1080;
    const int bits = argc == 5 ? atoi(argv[4]) : 8, bps = bits > 8 ? 2 : 1;

    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = w, s.height = h, s.bitdepth = bits, s.threads = 1;
    if (!strcmp(path, "scalar"))
        s.isa = PSNRHVS_ISA_SCALAR;
    else if (!strcmp(path, "c"))
        psh_set_cpu_flags_mask(0); /* auto over no SIMD flag: the C kernels */
    else if (!strcmp(path, "neon"))
        s.isa = PSNRHVS_ISA_NEON;
    else if (!strcmp(path, "avx2"))
        s.isa = PSNRHVS_ISA_AVX2;
    else if (!strcmp(path, "avx512"))
        s.isa = PSNRHVS_ISA_AVX512;
    else {
        fprintf(stderr, "unknown path %s\n", path);
        return 2;
    }

    const int cw = (w + 1) / 2, ch = (h + 1) / 2;
    const size_t ysize = (size_t)w * h * bps, csize = (size_t)cw * ch * bps;
    uint8_t *const ref = malloc(ysize + 2 * csize), *const dist = malloc(ysize + 2 * csize);
    if (!ref || !dist) return 1;
    gen_plane(ref, dist, w, h, bits);
    for (int p = 1; p < 3; p++)
        gen_plane(ref + ysize + (p - 1) * csize, dist + ysize + (p - 1) * csize, cw, ch, bits);
    PsnrHvsPicture r = {{ref, ref + ysize, ref + ysize + csize},
                        {(ptrdiff_t)w * bps, (ptrdiff_t)cw * bps, (ptrdiff_t)cw * bps}};
    PsnrHvsPicture d = {{dist, dist + ysize, dist + ysize + csize},
                        {(ptrdiff_t)w * bps, (ptrdiff_t)cw * bps, (ptrdiff_t)cw * bps}};

    PsnrHvsContext *c;
    if (psnrhvs_open(&c, &s)) {
        fprintf(stderr, "%s: cannot open a context for this path\n", path);
        return 77;
    }
    PsnrHvsScore warm, sc;
    if (psnrhvs_score(c, &r, &d, &warm)) return 1;
    syscall(SYS_getppid, MARKER_MAGIC, 0, 0);
    const int err = psnrhvs_score(c, &r, &d, &sc);
    syscall(SYS_getppid, MARKER_MAGIC, 1, 0);
    if (err || memcmp(warm.raw, sc.raw, sizeof(sc.raw))) return 1;
    printf("%s %dx%d %d-bit: isa %s, raw %a %a %a, psnr_hvs %.17g\n", path, w, h, bits,
           psnrhvs_isa_name(c), (double)sc.raw[0], (double)sc.raw[1], (double)sc.raw[2],
           sc.psnr_hvs);
    psnrhvs_close(&c);
    free(ref);
    free(dist);
    return 0;
}
