/*
 * Backend modules: the cuda and sycl backends are shared objects in
 * <libdir>/psnrhvs/ (backend-cuda.so, backend-sycl.so), opened only when
 * their backend is asked for, so that the core needs nothing but libc. The
 * boundary is backend.h's ops, versioned: a module is refused unless it was
 * built from this version of the library.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_MODULE_H
#define PSNRHVS_SRC_MODULE_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Raised with any change to backend.h or to the context (internal.h). */
#define PSH_MODULE_ABI 3

typedef struct PsnrHvsBackendModule {
    unsigned abi;          ///< PSH_MODULE_ABI
    unsigned context_size; ///< sizeof(PsnrHvsContext)
    const char *version;   ///< PSNRHVS_VERSION_STRING
    const PsnrHvsBackendOps *ops;
} PsnrHvsBackendModule;

/* The one symbol a module exports (module_entry.c). */
#define PSH_MODULE_ENTRY "psh_backend_module"
typedef const PsnrHvsBackendModule *(*PsnrHvsModuleEntry)(void);

/* The ops of module `name` ("cuda"), opened once per process from
 * s->module_dir, else psnrhvs/ beside the library, else the installed
 * folder. NULL with a one-line reason in why. */
const PsnrHvsBackendOps *psh_module_ops(const char *name, const PsnrHvsSettings *s, char *why,
                                        size_t why_size);

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_SRC_MODULE_H */
