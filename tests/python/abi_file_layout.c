/*
 * Prints the size and field offsets of the file API's public structs (raw and
 * Y4M files, formats), one "NAME VALUE" a line, for test_file_api.py.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stddef.h>
#include <stdio.h>

#include "psnrhvs.h"

#define SIZE(T)   printf("sizeof %s %zu\n", #T, sizeof(T))
#define OFF(T, f) printf("offsetof %s.%s %zu\n", #T, #f, offsetof(T, f))

int main(void) {
    SIZE(PsnrHvsFormat);
    OFF(PsnrHvsFormat, width);
    OFF(PsnrHvsFormat, height);
    OFF(PsnrHvsFormat, layout);
    OFF(PsnrHvsFormat, bitdepth);

    SIZE(PsnrHvsGeometry);
    OFF(PsnrHvsGeometry, num_planes);
    OFF(PsnrHvsGeometry, bytes_per_sample);
    OFF(PsnrHvsGeometry, stored_w);
    OFF(PsnrHvsGeometry, stored_h);
    OFF(PsnrHvsGeometry, scored_w);
    OFF(PsnrHvsGeometry, scored_h);
    OFF(PsnrHvsGeometry, plane_bytes);
    OFF(PsnrHvsGeometry, frame_bytes);

    SIZE(PsnrHvsFileStatus);
    OFF(PsnrHvsFileStatus, error);
    OFF(PsnrHvsFileStatus, errnum);
    OFF(PsnrHvsFileStatus, message);

    SIZE(PsnrHvsColour);
    OFF(PsnrHvsColour, range);
    OFF(PsnrHvsColour, matrix);
    OFF(PsnrHvsColour, primaries);
    OFF(PsnrHvsColour, transfer);

    SIZE(PsnrHvsFileInfo);
    OFF(PsnrHvsFileInfo, y4m);
    OFF(PsnrHvsFileInfo, format);
    OFF(PsnrHvsFileInfo, geometry);
    OFF(PsnrHvsFileInfo, colour);
    OFF(PsnrHvsFileInfo, header_bytes);
    OFF(PsnrHvsFileInfo, frame_header_bytes);
    OFF(PsnrHvsFileInfo, reserved);

    SIZE(PsnrHvsFormatOptions);
    OFF(PsnrHvsFormatOptions, width);
    OFF(PsnrHvsFormatOptions, height);
    OFF(PsnrHvsFormatOptions, layout);
    OFF(PsnrHvsFormatOptions, bitdepth);
    OFF(PsnrHvsFormatOptions, scale);
    OFF(PsnrHvsFormatOptions, common_bitdepth);
    OFF(PsnrHvsFormatOptions, reserved);

    SIZE(PsnrHvsFormatSide);
    OFF(PsnrHvsFormatSide, name);
    OFF(PsnrHvsFormatSide, declared);
    OFF(PsnrHvsFormatSide, format);

    printf("file_errors %d\n", PSNRHVS_FILE_ERROR_NOMEM + 1);
    return ferror(stdout) ? 1 : 0;
}
