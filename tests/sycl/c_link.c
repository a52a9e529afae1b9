/*
 * A C program using libpsnrhvs: scores one generated 4:2:0 pair through the
 * SYCL backend and the CPU and compares the bits. Built and linked by the C
 * compiler alone (c_link.cmake), as a C project consuming the library would;
 * the SYCL module from argv[1] (a static core), else beside the library.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>

#include "psnrhvs.h"

int main(int argc, char **argv) {
    enum { W = 96, H = 64 };
    static unsigned char y[2][W * H], u[2][W * H / 4], v[2][W * H / 4];
    unsigned x = 1;
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < W * H; i++)
            y[s][i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 24);
        for (int i = 0; i < W * H / 4; i++) {
            u[s][i] = (unsigned char)(i * 3 + s);
            v[s][i] = (unsigned char)(i * 5 - s);
        }
    }
    const PsnrHvsPicture ref = {{y[0], u[0], v[0]}, {W, W / 2, W / 2}};
    const PsnrHvsPicture dist = {{y[1], u[1], v[1]}, {W, W / 2, W / 2}};
    PsnrHvsScore sc[2];
    for (int b = 0; b < 2; b++) {
        PsnrHvsSettings s;
        psnrhvs_default_settings(&s);
        s.width = W, s.height = H;
        s.backend = b ? PSNRHVS_BACKEND_SYCL : PSNRHVS_BACKEND_CPU;
        if (argc > 1) s.module_dir = argv[1];
        PsnrHvsContext *c;
        if (psnrhvs_open(&c, &s) || psnrhvs_score(c, &ref, &dist, &sc[b])) return 1;
        printf("%s: psnr_hvs %.17g\n", psnrhvs_backend_name(c), sc[b].psnr_hvs);
        psnrhvs_close(&c);
    }
    return memcmp(sc[0].raw, sc[1].raw, sizeof(sc[0].raw)) != 0;
}
