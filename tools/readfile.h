/*
 * psnrhvs: a whole input file in memory, the one reader of score files,
 * rate tables and jobs files.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_READFILE_H
#define PSNRHVS_TOOLS_READFILE_H

#include <stddef.h>

/**
 * path ("-": stdin) into *buf (NUL-terminated; *len bytes before the NUL).
 * @return 0, or -1 with err: "cannot open P: why", "cannot read P: why" or
 *         "P: out of memory".
 */
int cli_read_file(const char *path, char **buf, size_t *len, char *err, size_t err_size);

#endif /* PSNRHVS_TOOLS_READFILE_H */
