/*
 * psnrhvs: what the file readers (file.c), the formats (format.c) and the
 * probe (probe.c) share.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_FILE_H
#define PSNRHVS_SRC_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "psnrhvs.h"

/** Fill st (NULL: nothing) with e, errnum and the message. */
#ifdef __GNUC__
__attribute__((format(printf, 4, 5)))
#endif
void psh_status(PsnrHvsFileStatus *st, enum PsnrHvsFileError e, int errnum, const char *fmt, ...);

/**
 * Copy s into buf with control and non-ASCII bytes written visibly ("\\r",
 * "\\x01"), for messages that quote what a file holds. @return buf.
 */
const char *psh_visible(char *buf, size_t size, const char *s);

/** 1 when the size bytes at head start with "YUV4MPEG2 ". */
int psh_y4m_magic(const uint8_t *head, size_t size);

#endif /* PSNRHVS_SRC_FILE_H */
