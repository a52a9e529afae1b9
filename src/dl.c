/*
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"

int dl_load(const DlLibrary *const l, void *const table, char *const why, const size_t why_size) {
    void *lib = NULL;
    char first[200] = "";
    for (size_t i = 0; !lib && l->sonames[i]; i++) {
        if (!(lib = dlopen(l->sonames[i], RTLD_NOW | RTLD_LOCAL)) && !i) {
            const char *const e = dlerror();
            snprintf(first, sizeof(first), "%s", e ? e : "not found");
        }
    }
    if (!lib) {
        snprintf(why, why_size, "no %s (%s): %s", l->what, l->sonames[0],
                 l->missing ? l->missing : first);
        return -1;
    }
    for (size_t i = 0; i < l->num_symbols; i++) {
        void *const sym = dlsym(lib, l->symbols[i].name);
        if (!sym) {
            snprintf(why, why_size, "the %s lacks %s", l->what, l->symbols[i].name);
            dlclose(lib);
            return -1;
        }
        /* an object pointer's bits into a function pointer, as POSIX allows */
        memcpy((char *)table + l->symbols[i].offset, &sym, sizeof(sym));
    }
    return 0;
}
