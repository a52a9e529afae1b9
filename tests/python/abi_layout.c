/*
 * Prints the size and field offsets of the public structs, one "NAME VALUE"
 * a line, so the Python tests can check the ctypes mirror against the compiler.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stddef.h>
#include <stdio.h>

#include "psnrhvs.h"

#define SIZE(T)     printf("sizeof %s %zu\n", #T, sizeof(T))
#define OFF(T, f)   printf("offsetof %s.%s %zu\n", #T, #f, offsetof(T, f))
#define FSIZE(T, f) printf("fieldsize %s.%s %zu\n", #T, #f, sizeof(((T *)0)->f))

int main(void) {
    SIZE(PsnrHvsLogger);
    OFF(PsnrHvsLogger, cookie);
    OFF(PsnrHvsLogger, callback);

    SIZE(PsnrHvsSettings);
    OFF(PsnrHvsSettings, width);
    OFF(PsnrHvsSettings, height);
    OFF(PsnrHvsSettings, layout);
    OFF(PsnrHvsSettings, bitdepth);
    OFF(PsnrHvsSettings, enable_chroma);
    OFF(PsnrHvsSettings, mask_product);
    OFF(PsnrHvsSettings, backend);
    OFF(PsnrHvsSettings, device);
    OFF(PsnrHvsSettings, threads);
    OFF(PsnrHvsSettings, isa);
    OFF(PsnrHvsSettings, exact_helpers);
    OFF(PsnrHvsSettings, frames_in_flight);
    OFF(PsnrHvsSettings, logger);
    OFF(PsnrHvsSettings, memory);
    OFF(PsnrHvsSettings, renditions);
    OFF(PsnrHvsSettings, chroma_interleaved);
    OFF(PsnrHvsSettings, msb_aligned);
    OFF(PsnrHvsSettings, reference_on_host);
    OFF(PsnrHvsSettings, num_devices);
    OFF(PsnrHvsSettings, devices);
    OFF(PsnrHvsSettings, module_dir);
    OFF(PsnrHvsSettings, frames_hint);
    OFF(PsnrHvsSettings, reserved);
    FSIZE(PsnrHvsSettings, layout);
    FSIZE(PsnrHvsSettings, reserved);

    SIZE(PsnrHvsPicture);
    OFF(PsnrHvsPicture, data);
    OFF(PsnrHvsPicture, stride);
    FSIZE(PsnrHvsPicture, stride);

    SIZE(PsnrHvsScore);
    OFF(PsnrHvsScore, num_planes);
    OFF(PsnrHvsScore, raw);
    OFF(PsnrHvsScore, psnr_hvs_y);
    OFF(PsnrHvsScore, psnr_hvs_cb);
    OFF(PsnrHvsScore, psnr_hvs_cr);
    OFF(PsnrHvsScore, psnr_hvs);
    OFF(PsnrHvsScore, tag);

    SIZE(PsnrHvsFrameScore);
    OFF(PsnrHvsFrameScore, frame_num);
    OFF(PsnrHvsFrameScore, score);

    SIZE(PsnrHvsOutput);
    OFF(PsnrHvsOutput, version);
    OFF(PsnrHvsOutput, engine);
    OFF(PsnrHvsOutput, width);
    OFF(PsnrHvsOutput, height);
    OFF(PsnrHvsOutput, fps);
    OFF(PsnrHvsOutput, num_planes);
    OFF(PsnrHvsOutput, precision);
    OFF(PsnrHvsOutput, raw);
    OFF(PsnrHvsOutput, frames);
    OFF(PsnrHvsOutput, num_frames);
    OFF(PsnrHvsOutput, reserved);

    SIZE(PsnrHvsScoreRow);
    OFF(PsnrHvsScoreRow, frame_num);
    OFF(PsnrHvsScoreRow, value);
    OFF(PsnrHvsScoreRow, has);
    OFF(PsnrHvsScoreRow, raw);
    OFF(PsnrHvsScoreRow, has_raw);

    SIZE(PsnrHvsScoreSet);
    OFF(PsnrHvsScoreSet, format);
    OFF(PsnrHvsScoreSet, frames);
    OFF(PsnrHvsScoreSet, num_frames);
    OFF(PsnrHvsScoreSet, has_key);
    OFF(PsnrHvsScoreSet, num_planes);
    OFF(PsnrHvsScoreSet, pooled_in_file);
    OFF(PsnrHvsScoreSet, pool);
    OFF(PsnrHvsScoreSet, width);
    OFF(PsnrHvsScoreSet, height);
    OFF(PsnrHvsScoreSet, nulls);
    OFF(PsnrHvsScoreSet, fps);
    OFF(PsnrHvsScoreSet, version);
    OFF(PsnrHvsScoreSet, reserved);

    printf("api_version %u\n",
           (unsigned)((PSNRHVS_API_VERSION_MAJOR << 16) | (PSNRHVS_API_VERSION_MINOR << 8) |
                      PSNRHVS_API_VERSION_PATCH));
    printf("max_dimension %d\n", PSNRHVS_MAX_DIMENSION);
    return ferror(stdout) ? 1 : 0;
}
