/*
 * The device list: every device of every backend, each physical GPU known
 * through every backend that reaches it, and which of them auto scores on.
 * The mix (auto) and psnrhvs_devices() walk the same list with the same
 * rules; front-ends keep none of their own.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "thread_pool.h"

#define MAX_ENTRIES 64

#if defined(__linux__)
/* Linux reaches a GPU through a device node: NVIDIA's (Tegra's), ROCm's,
 * WSL's (any vendor), or a DRM render node (any Vulkan or OpenCL GPU).
 * With none, auto loads no driver only to find CPU devices it would not
 * take (PoCL's LLVM, lavapipe): a container without GPUs starts as fast
 * as --backend cpu. */
static const struct {
    const char *path;
    unsigned vendor; ///< PCI vendor of every GPU behind it, 0: any
} gpu_node[] = {
    {"/dev/nvidiactl", 0x10de},
    {"/dev/nvhost-ctrl-gpu", 0x10de},
    {"/dev/kfd", 0x1002},
    {"/dev/dxg", 0},
};

/* Calls fn on the PCI vendor of each DRM render node; stops at fn's 0. */
static int each_render_node(int (*fn)(unsigned vendor, unsigned want), const unsigned want) {
    DIR *const dri = opendir("/dev/dri");
    int ok = 1;
    for (const struct dirent *e; dri && ok && (e = readdir(dri));) {
        if (strncmp(e->d_name, "renderD", 7)) continue;
        char path[320], text[16] = "";
        snprintf(path, sizeof(path), "/sys/class/drm/%s/device/vendor", e->d_name);
        FILE *const f = fopen(path, "r");
        const int read = f && fgets(text, sizeof(text), f);
        if (f) fclose(f);
        ok = fn(read ? (unsigned)strtoul(text, NULL, 16) : 0, want);
    }
    if (dri) closedir(dri);
    return ok;
}

static int stop_at_any(const unsigned vendor, const unsigned want) {
    (void)vendor, (void)want;
    return 0;
}

static int gpu_nodes(void) {
    struct stat st;
    for (size_t i = 0; i < sizeof(gpu_node) / sizeof(gpu_node[0]); i++)
        if (!stat(gpu_node[i].path, &st)) return 1;
    return !each_render_node(stop_at_any, 0);
}

static int is_vendor(const unsigned vendor, const unsigned want) {
    return vendor == want;
}

/* Every GPU here of PCI vendor v (every node that exists is v's, and each
 * render node's device): a backend that lists all of v's GPUs then lists
 * every GPU, and the other APIs' drivers are not loaded to find the same
 * ones again (they would take the cores and memory the run needs, and
 * their teardown at exit). */
static int only_vendor(const unsigned v) {
    struct stat st;
    int own = 0;
    for (size_t i = 0; i < sizeof(gpu_node) / sizeof(gpu_node[0]); i++) {
        if (stat(gpu_node[i].path, &st)) continue;
        if (gpu_node[i].vendor != v) return 0;
        own = 1;
    }
    return own && each_render_node(is_vendor, v);
}
#else
static int gpu_nodes(void) {
    return 1;
}
static int only_vendor(const unsigned v) {
    (void)v;
    return 0;
}
#endif

/* The GPU among e[0..n) that is d: the same PCI address or, where either
 * lacks one, the same vendor; through another backend. -1 if none. */
static int same_gpu(const PsnrHvsDeviceEntry *const e, const char (*const vendor)[16], const int n,
                    const PsnrHvsDeviceInfo *const d, const enum PsnrHvsBackend b) {
    for (int i = 0; i < n; i++) {
        if (!e[i].gpu || e[i].backend == b) continue;
        if (d->pci[0] && e[i].pci[0]) {
            if (!strcmp(e[i].pci, d->pci)) return i;
        } else if (d->vendor[0] && !strcmp(vendor[i], d->vendor)) {
            return i;
        }
    }
    return -1;
}

/* The host CPU's name, from the kernel where it says. */
static void host_name(char *const out, const size_t size) {
    snprintf(out, size, "host CPU, %d cores", psh_cpu_count());
#if defined(__linux__)
    FILE *const f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof(line), f)) {
        char *const colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon) continue;
        line[strcspn(line, "\n")] = '\0';
        snprintf(out, size, "%s, %d cores", colon + 2, psh_cpu_count());
        break;
    }
    if (f) fclose(f);
#endif
}

/* Walks the devices in list order, calling visit on each; every = 0 is
 * auto's walk: only where a GPU node exists, and no further than needed to
 * know every GPU (entries not automatic may still come). Serialized: some
 * drivers (PoCL) must not be probed twice at once. */
static pthread_mutex_t walk_lock = PTHREAD_MUTEX_INITIALIZER;

void psh_devices_walk(const PsnrHvsSettings *const s, const int every,
                      void (*const visit)(void *arg, const PsnrHvsDeviceEntry *e),
                      void *const arg) {
    static PsnrHvsDeviceEntry e[MAX_ENTRIES];
    static char vendor[MAX_ENTRIES][16];
    pthread_mutex_lock(&walk_lock);
    const int nodes = gpu_nodes();
    int n = 0, gpus = 0, found_gpu = 0;
    for (int i = 0; i < psh_registry_size() && (nodes || every); i++) {
        const unsigned flags = psh_registry_flags(i);
        if (flags & PSH_REG_HOST) continue;
        if ((flags & PSH_REG_AUTO_IF_NONE) && found_gpu && !every) continue;
        char why[1024];
        const PsnrHvsBackendOps *const ops = psh_registry_ops(i, s, why, sizeof(why));
        if (!ops || !ops->enumerate) continue;
        PsnrHvsDeviceInfo info[MAX_ENTRIES];
        const int nd = ops->enumerate(info, MAX_ENTRIES);
        const int auto_here =
            nodes && (flags & PSH_REG_AUTO_GPUS) && !((flags & PSH_REG_AUTO_IF_NONE) && found_gpu);
        int listed_gpu = 0;
        for (int k = 0; k < nd && k < MAX_ENTRIES && n < MAX_ENTRIES; k++) {
            const PsnrHvsDeviceInfo *const d = &info[k];
            PsnrHvsDeviceEntry *const x = &e[n];
            memset(x, 0, sizeof(*x));
            x->backend = ops->id, x->device = k, x->gpu = d->gpu;
            snprintf(x->name, sizeof(x->name), "%s", d->name);
            snprintf(x->pci, sizeof(x->pci), "%s", d->pci);
            snprintf(vendor[n], sizeof(vendor[n]), "%s", d->vendor);
            const int same = d->gpu ? same_gpu(e, vendor, n, d, ops->id) : -1;
            x->physical = !d->gpu ? 0 : same >= 0 ? e[same].physical : ++gpus;
            x->automatic = auto_here && d->gpu && same < 0;
            listed_gpu |= x->automatic;
            n++;
            visit(arg, x);
        }
        found_gpu |= listed_gpu;
        const unsigned v = psh_registry_pci_vendor(i);
        if (!every && v && nd > 0 && only_vendor(v)) break;
    }
    PsnrHvsDeviceEntry host = {.backend = psh_host_backend(), .automatic = 1};
    host_name(host.name, sizeof(host.name));
    visit(arg, &host);
    pthread_mutex_unlock(&walk_lock);
}

typedef struct List {
    PsnrHvsDeviceEntry e[MAX_ENTRIES + 1];
    int n;
} List;

static void add(void *const arg, const PsnrHvsDeviceEntry *const e) {
    List *const l = arg;
    if (l->n < MAX_ENTRIES + 1) l->e[l->n++] = *e;
}

static void add_automatic(void *const arg, const PsnrHvsDeviceEntry *const e) {
    if (e->automatic) add(arg, e);
}

int psnrhvs_devices(PsnrHvsDeviceEntry *const list, const int max, const unsigned flags) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static List *made[2]; /* every device; auto's */
    if (max < 0 || (!list && max > 0) || (flags & ~(unsigned)PSNRHVS_DEVICES_AUTO))
        return PSNRHVS_ERR(EINVAL);
    const int only_auto = !!(flags & PSNRHVS_DEVICES_AUTO);
    pthread_mutex_lock(&lock);
    List *l = made[only_auto];
    if (!l && (l = made[only_auto] = calloc(1, sizeof(*l)))) {
        PsnrHvsSettings s;
        psnrhvs_default_settings(&s);
        psh_devices_walk(&s, !only_auto, only_auto ? add_automatic : add, l);
    }
    const int n = l ? l->n : 0;
    for (int i = 0; l && i < n && i < max; i++) list[i] = l->e[i];
    pthread_mutex_unlock(&lock);
    return l ? n : PSNRHVS_ERR(ENOMEM);
}
