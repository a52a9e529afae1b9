/*
 * Finding and opening backend modules (module.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
/* dladdr is a GNU extension. */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "module.h"

#ifndef PSNRHVS_MODULE_INSTALL_DIR
#define PSNRHVS_MODULE_INSTALL_DIR "/usr/local/lib/psnrhvs"
#endif

#define MAX_MODULES 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char name[16];
    const PsnrHvsBackendOps *ops;
} opened[MAX_MODULES];

/* psnrhvs/ beside the shared library or program that holds this code. */
static int beside_core(char *const dir, const size_t size) {
    Dl_info info;
    if (!dladdr((void *)psh_module_ops, &info) || !info.dli_fname) return -1;
    const char *const slash = strrchr(info.dli_fname, '/');
    if (!slash) return -1;
    const int n =
        snprintf(dir, size, "%.*s/psnrhvs", (int)(slash - info.dli_fname), info.dli_fname);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

static const PsnrHvsBackendOps *open_module(const char *const name, const char *const path,
                                            char *const why, const size_t why_size) {
    void *const h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, why_size, "the %s backend's module %s cannot be loaded: %s", name, path,
                 dlerror());
        return NULL;
    }
    /* Never closed: a GPU runtime's exit handlers live in it. */
    const PsnrHvsModuleEntry entry = (PsnrHvsModuleEntry)(uintptr_t)dlsym(h, PSH_MODULE_ENTRY);
    const PsnrHvsBackendModule *const m = entry ? entry() : NULL;
    if (!m) {
        snprintf(why, why_size, "%s is not a psnrhvs backend module (no %s)", path,
                 PSH_MODULE_ENTRY);
        return NULL;
    }
    if (m->abi != PSH_MODULE_ABI || m->context_size != sizeof(PsnrHvsContext) ||
        strcmp(m->version, PSNRHVS_VERSION_STRING)) {
        snprintf(why, why_size,
                 "the %s backend's module %s is of psnrhvs %s (module ABI %u), this library "
                 "is %s (ABI %u): install the two together",
                 name, path, m->version, m->abi, PSNRHVS_VERSION_STRING, PSH_MODULE_ABI);
        return NULL;
    }
    return m->ops;
}

const PsnrHvsBackendOps *psh_module_ops(const char *const name, const PsnrHvsSettings *const s,
                                        char *const why, const size_t why_size) {
    pthread_mutex_lock(&lock);
    const PsnrHvsBackendOps *ops = NULL;
    int slot = 0;
    for (; slot < MAX_MODULES && opened[slot].name[0]; slot++)
        if (!strcmp(opened[slot].name, name)) ops = opened[slot].ops;
    if (ops) goto done;

    char dirs[3][PATH_MAX];
    int ndirs = 0;
    if (s && s->module_dir) {
        snprintf(dirs[ndirs++], PATH_MAX, "%s", s->module_dir);
    } else {
        if (!beside_core(dirs[ndirs], PATH_MAX)) ndirs++;
        snprintf(dirs[ndirs++], PATH_MAX, "%s", PSNRHVS_MODULE_INSTALL_DIR);
    }
    char path[PATH_MAX + 64];
    for (int i = 0; i < ndirs; i++) {
        snprintf(path, sizeof(path), "%.*s/backend-%s.so", PATH_MAX - 1, dirs[i], name);
        if (access(path, F_OK)) continue;
        if ((ops = open_module(name, path, why, why_size)) && slot < MAX_MODULES) {
            snprintf(opened[slot].name, sizeof(opened[slot].name), "%s", name);
            opened[slot].ops = ops;
        }
        goto done;
    }
    snprintf(why, why_size, "the %s backend's module is not installed (no backend-%s.so in %s%s%s)",
             name, name, dirs[0], ndirs > 1 ? " or " : "", ndirs > 1 ? dirs[1] : "");
done:
    pthread_mutex_unlock(&lock);
    return ops;
}
