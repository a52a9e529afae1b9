/*
 * psnrhvs: `psnrhvs batch`: what every file of it uses: the clock, usage
 * errors, allocation that ends the process when memory runs out, integers.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_int.h"

void batch_usage_error(const char *const fmt, ...) {
    char msg[2048], shown[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* one line, whatever a quoted field of the jobs file holds (UTF-8 names stay) */
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && n + 5 < sizeof(shown); p++)
        if (*p < 0x20 || *p == 0x7f)
            n += (size_t)snprintf(shown + n, sizeof(shown) - n, "\\x%02x", *p);
        else
            shown[n++] = (char)*p;
    shown[n] = '\0';
    fprintf(stderr, "psnrhvs: batch: %s (see psnrhvs batch --help)\n", shown);
    exit(2);
}

void *batch_xmalloc(const size_t n) {
    void *const p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "psnrhvs: out of memory\n");
        exit(1);
    }
    return p;
}

char *batch_xstrdup(const char *const s) {
    char *const d = batch_xmalloc(strlen(s) + 1);
    strcpy(d, s);
    return d;
}

char *batch_xprintf(const char *const fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *const s = batch_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

int batch_parse_int(const char *const s, const int min, const int max, int *const out) {
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < min || v > max || *s == '+' || *s == ' ') return -1;
    *out = (int)v;
    return 0;
}
