/*
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"

int cli_read_file(const char *const path, char **const out, size_t *const out_len, char *const err,
                  const size_t err_size) {
    *out = NULL;
    *out_len = 0;
    FILE *const f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int oom = 0;
    for (;;) {
        if (len + 1 >= cap) { /* room for the NUL */
            char *const nb = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
            if (!nb) {
                oom = 1;
                break;
            }
            buf = nb;
        }
        const size_t n = fread(buf + len, 1, cap - 1 - len, f);
        if (!n) break;
        len += n;
    }
    const int bad = !oom && ferror(f);
    const int saved = errno;
    if (f != stdin) fclose(f);
    if (oom || bad) {
        free(buf);
        if (oom)
            snprintf(err, err_size, "%s: out of memory", path);
        else
            snprintf(err, err_size, "cannot read %s: %s", path, strerror(saved));
        return -1;
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return 0;
}
