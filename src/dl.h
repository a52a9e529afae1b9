/*
 * The one loader of the device APIs opened at run time (HIP, OpenCL, Vulkan):
 * the library needs none of them to start.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_DL_H
#define PSNRHVS_DL_H

#include <stddef.h>

/* A function of the API and where its pointer goes in the caller's table. */
typedef struct DlSymbol {
    const char *name;
    size_t offset;
} DlSymbol;

#define DL_SYMBOL(table, name) {#name, offsetof(table, name)},

typedef struct DlLibrary {
    const char *what;           /* "HIP runtime": for messages */
    const char *const *sonames; /* tried in order, NULL-terminated */
    const char *missing;        /* why, when none opens; NULL: dlerror() of the first */
    const DlSymbol *symbols;
    size_t num_symbols;
} DlLibrary;

/* Opens the first soname that loads and fills table with its functions; the
 * library then stays loaded for the process. @return 0, or -1 with why. */
int dl_load(const DlLibrary *l, void *table, char *why, size_t why_size);

#endif /* PSNRHVS_DL_H */
