/*
 * input_dump: the frames psnrhvs's input library hands to the scorer, written
 * back to back as planes (16-bit little-endian above 8 bits), so a test can
 * compare them byte for byte with ffmpeg -fps_mode passthrough -f rawvideo.
 *   input_dump [--hwaccel] [--timing] INPUT OUT.yuv
 * (INPUT '-': stdin; the options are the CLI's).
 * Prints "W H LAYOUT DEPTH FRAMES" on stdout; errors as the CLI's, exit 1.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"

int main(int argc, char **argv) {
    InputOptions opt = {0};
    for (;;) {
        if (argc > 1 && !strcmp(argv[1], "--hwaccel"))
            opt.hwaccel = INPUT_HWACCEL_CUDA;
        else if (argc > 1 && !strcmp(argv[1], "--timing"))
            opt.timing = 1;
        else
            break;
        argc--, argv++;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: input_dump [--hwaccel] [--timing] INPUT OUT.yuv\n");
        return 2;
    }
    Input *in = NULL;
    InputFormat fmt;
    InputFrame frame = {0};
    FILE *out = NULL;
    int ret = 1;
    if (input_open(&in, argv[1], &opt) < 0) return 1;
    if (!input_has_format(in, &fmt)) {
        fprintf(stderr, "input_dump: %s does not describe its format\n", argv[1]);
        goto end;
    }
    if (input_set_format(in, &fmt) < 0 || input_frame_alloc(in, &frame) < 0) goto end;
    if (!(out = fopen(argv[2], "wb"))) {
        perror(argv[2]);
        goto end;
    }
    const size_t bytes = input_frame_bytes(in);
    unsigned n = 0;
    int res;
    while ((res = input_read(in, &frame)) > 0) {
        /* Native words back to little endian, as FFmpeg's *le formats. */
        if (fmt.bitdepth > 8)
            for (size_t i = 0; i + 1 < bytes; i += 2) {
                uint16_t v;
                memcpy(&v, frame.buf + i, 2);
                frame.buf[i] = (uint8_t)(v & 0xff);
                frame.buf[i + 1] = (uint8_t)(v >> 8);
            }
        if (fwrite(frame.buf, 1, bytes, out) != bytes) {
            perror(argv[2]);
            goto end;
        }
        n++;
    }
    if (res < 0) {
        fprintf(stderr, "psnrhvs: %s\n", input_error(in));
        goto end;
    }
    printf("%d %d %s %d %u\n", fmt.width, fmt.height, layout_name(fmt.layout), fmt.bitdepth, n);
    ret = 0;
end:
    if (out && fclose(out)) ret = 1;
    input_frame_free(&frame);
    input_close(&in);
    return ret;
}
