/*
 * Messages to the settings' logger (built into the core and each module).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static void vlog(const PsnrHvsLogger *logger, const char *fmt, va_list ap) {
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (logger && logger->callback)
        logger->callback(logger->cookie, msg);
    else
        fprintf(stderr, "psnrhvs: %s\n", msg);
}

void psh_log(const PsnrHvsContext *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog(&c->s.logger, fmt, ap);
    va_end(ap);
}

void psh_log_settings(const PsnrHvsSettings *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vlog(&s->logger, fmt, ap);
    va_end(ap);
}

void psh_buf_put(char *const buf, const size_t size, size_t *const used, const char *fmt, ...) {
    if (*used >= size) return;
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used += (size_t)n;
}
