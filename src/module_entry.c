/*
 * A module's entry point: built into each backend module with
 * PSH_MODULE_OPS naming its ops (psh_backend_cuda...).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "internal.h"
#include "module.h"

__attribute__((visibility("default"))) const PsnrHvsBackendModule *psh_backend_module(void);

const PsnrHvsBackendModule *psh_backend_module(void) {
    static const PsnrHvsBackendModule m = {PSH_MODULE_ABI, sizeof(PsnrHvsContext),
                                           PSNRHVS_VERSION_STRING, &PSH_MODULE_OPS};
    return &m;
}
