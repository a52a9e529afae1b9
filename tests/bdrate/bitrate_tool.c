/*
 * input_bitrate() (tools/input/bitrate.c) on the command line, for
 * run_bitrate.py and the real ladders of run_bdrate.py:
 *   bitrate_tool FILE   ->  kbps seconds bytes packets source  (%.17g)
 * Exit 0, 3 when FILE is not compressed, 1 on an error (one line on stderr).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>

#include "input/bitrate.h"

int main(int argc, char **argv) {
    if (argc != 2) return fprintf(stderr, "usage: bitrate_tool FILE\n"), 2;
    InputBitrate b;
    char err[1024];
    const int res = input_bitrate(argv[1], &b, err, sizeof(err));
    if (res < 0) return fprintf(stderr, "bitrate_tool: %s\n", err), 1;
    if (res > 0) return printf("not compressed\n"), 3;
    printf("%.17g %.17g %lld %lld %s\n", b.kbps, b.seconds, b.bytes, b.packets, b.source);
    return 0;
}
