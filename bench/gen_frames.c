/*
 * Test content for the benches:
 *   gen_frames W H BITS FRAMES DISTINCT AMP SEED OUT
 * planar 4:2:0 raw frames, a moving texture plus noise; AMP 0 is the
 * reference, else the reference plus noise of that amplitude (per SEED).
 * Frames repeat after DISTINCT, to write fast. No numpy needed.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static uint32_t rng(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}
int main(int argc, char **argv) {
    if (argc != 9) return 2;
    int w = atoi(argv[1]), h = atoi(argv[2]), bits = atoi(argv[3]), n = atoi(argv[4]);
    int k = atoi(argv[5]), amp = atoi(argv[6]);
    uint32_t seed = (uint32_t)atoi(argv[7]);
    FILE *f = fopen(argv[8], "wb");
    if (!f) return 1;
    int cw = (w + 1) / 2, ch = (h + 1) / 2, bps = bits > 8 ? 2 : 1, max = (1 << bits) - 1;
    size_t fs = ((size_t)w * h + 2 * (size_t)cw * ch) * bps;
    unsigned char *frames = malloc(fs * (size_t)k);
    for (int t = 0; t < k; t++) {
        uint32_t rs = 12345u + (uint32_t)t, ds = seed * 7919u + (uint32_t)t;
        unsigned char *fr = frames + fs * (size_t)t;
        size_t i = 0;
        for (int p = 0; p < 3; p++) {
            int pw = p ? cw : w, ph = p ? ch : h;
            for (int y = 0; y < ph; y++)
                for (int x = 0; x < pw; x++, i++) {
                    int v = ((x * 3 + y * 2 + t * 9) & 255) / 2 + ((x ^ (y + t * 5)) & 63) +
                            (int)(rng(&rs) % 48) + p * 20;
                    if (bits > 8) v <<= bits - 8;
                    if (amp) v += (int)(rng(&ds) % (2u * amp + 1)) - amp;
                    v = v < 0 ? 0 : v > max ? max : v;
                    if (bps == 2) {
                        fr[2 * i] = (unsigned char)v;
                        fr[2 * i + 1] = (unsigned char)(v >> 8);
                    } else
                        fr[i] = (unsigned char)v;
                }
        }
    }
    for (int t = 0; t < n; t++)
        if (fwrite(frames + fs * (size_t)(t % k), 1, fs, f) != fs) return 1;
    return fclose(f) ? 1 : 0;
}
