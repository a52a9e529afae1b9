/*
 * The library's device list (psnrhvs_devices): every device of every backend
 * once, the host CPU last; each physical device one number; auto's scorers
 * are exactly the entries marked automatic; the same list on every call.
 * And one CPU count for the process that honours its affinity mask.
 *   test_devices list|affinity
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "psnrhvs.h"
#include "test_hooks.h"

#define MAX 64

static void label(char *const out, const size_t size, const PsnrHvsDeviceEntry *const e) {
    if (psnrhvs_backend_kind(e->backend) == PSNRHVS_KIND_HOST)
        snprintf(out, size, "%s", psnrhvs_backend_string(e->backend));
    else
        snprintf(out, size, "%s:%d", psnrhvs_backend_string(e->backend), e->device);
}

/* auto's scorers, once its devices are open, are the automatic entries. */
static void auto_matches(const PsnrHvsDeviceEntry *const e, const int n) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = 64, s.height = 64;
    PsnrHvsContext *c = NULL;
    CHECK(!psnrhvs_open(&c, &s), "auto context");
    if (!c) return;
    for (int i = 0; i < 6000 && psnrhvs_opening(c); i++) {
        const struct timespec ts = {0, 10000000L};
        nanosleep(&ts, NULL);
    }
    char labels[PSNRHVS_MAX_DEVICES][24];
    uint64_t frames[PSNRHVS_MAX_DEVICES];
    const int k = psh_test_mix_children(c, labels, frames, PSNRHVS_MAX_DEVICES);
    int automatic = 0;
    for (int i = 0; i < n; i++) {
        if (!e[i].automatic) continue;
        char want[64];
        label(want, sizeof(want), &e[i]);
        int found = 0;
        for (int j = 0; j < k; j++) found |= !strcmp(labels[j], want);
        CHECK(found, "auto has no scorer %s (the list marks it automatic)", want);
        automatic++;
    }
    CHECK(k == automatic, "auto opened %d scorers, the list marks %d automatic", k, automatic);
    psnrhvs_close(&c);
}

static void list(void) {
    PsnrHvsDeviceEntry e[MAX + 1], again[MAX];
    CHECK(psnrhvs_devices(NULL, 1, 0) == PSNRHVS_ERR(EINVAL), "NULL list with max 1");
    CHECK(psnrhvs_devices(e, -1, 0) == PSNRHVS_ERR(EINVAL), "max -1");
    const int count = psnrhvs_devices(NULL, 0, 0);
    CHECK(count >= 1 && count <= MAX, "count %d", count);
    if (count < 1 || count > MAX) return;
    memset(e, 0xa5, sizeof(e));
    CHECK(psnrhvs_devices(e, MAX, 0) == count, "count changed");
    CHECK(psnrhvs_devices(again, MAX, 0) == count && !memcmp(e, again, count * sizeof(e[0])),
          "a second call lists other bytes");
    const unsigned char *const past = (const unsigned char *)&e[count];
    CHECK(past[0] == 0xa5 && past[sizeof(e[0]) - 1] == 0xa5, "wrote past the count");
    PsnrHvsDeviceEntry one[2];
    memset(one, 0x5a, sizeof(one));
    CHECK(psnrhvs_devices(one, 1, 0) == count && !memcmp(&one[0], &e[0], sizeof(one[0])) &&
              ((const unsigned char *)&one[1])[0] == 0x5a,
          "max 1: the first entry only");

    const PsnrHvsDeviceEntry *const host = &e[count - 1];
    CHECK(psnrhvs_backend_kind(host->backend) == PSNRHVS_KIND_HOST && host->automatic &&
              !host->gpu && !host->physical && !host->device && host->name[0],
          "the last entry is not the host CPU: %s %d", psnrhvs_backend_string(host->backend),
          host->device);
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    CHECK(psnrhvs_cpu_count() >= 1 && psnrhvs_cpu_count() <= online, "cpu count %d of %ld online",
          psnrhvs_cpu_count(), online);

    for (int i = 0; i < count; i++) {
        char name[64];
        label(name, sizeof(name), &e[i]);
        const int kind = psnrhvs_backend_kind(e[i].backend);
        printf("%-10s gpu %d physical %d automatic %d  %s  %s\n", name, e[i].gpu, e[i].physical,
               e[i].automatic, e[i].name, e[i].pci);
        CHECK(kind == PSNRHVS_KIND_HOST || kind == PSNRHVS_KIND_DEVICE, "%s: kind %d", name, kind);
        CHECK(kind != PSNRHVS_KIND_HOST || i == count - 1, "%s: the host CPU before the end", name);
        CHECK(e[i].gpu ? e[i].physical >= 1 : e[i].physical == 0,
              "%s: gpu %d, physical %d (0 is the host CPU's)", name, e[i].gpu, e[i].physical);
        CHECK(!e[i].automatic || e[i].gpu || kind == PSNRHVS_KIND_HOST,
              "%s: auto takes a CPU device of a device API", name);
        CHECK(i == 0 || e[i - 1].backend != e[i].backend || e[i].device == e[i - 1].device + 1,
              "%s: devices of a backend not in index order", name);
        CHECK(memchr(e[i].name, 0, sizeof(e[i].name)) && memchr(e[i].pci, 0, sizeof(e[i].pci)),
              "%s: name or pci not terminated", name);
        for (size_t b = 0; b < sizeof(e[i].reserved); b++)
            CHECK(!e[i].reserved[b], "%s: reserved byte %zu is %d", name, b, e[i].reserved[b]);
        for (int j = 0; j < i; j++)
            CHECK(!(e[i].automatic && e[j].automatic && e[i].gpu && e[j].gpu &&
                    e[i].physical == e[j].physical),
                  "%s: a GPU auto already takes through another backend", name);
        /* every backend that lists devices in text lists them here too */
        char text[8192];
        if (kind == PSNRHVS_KIND_DEVICE &&
            !psnrhvs_list_devices(e[i].backend, 0, text, sizeof(text)))
            CHECK(text[0], "%s: listed here, not by psnrhvs_list_devices", name);
    }
    for (int b = 0; psnrhvs_backend_string((enum PsnrHvsBackend)b); b++) {
        char text[8192] = "";
        if (psnrhvs_backend_kind((enum PsnrHvsBackend)b) != PSNRHVS_KIND_DEVICE ||
            psnrhvs_list_devices((enum PsnrHvsBackend)b, 0, text, sizeof(text)))
            continue;
        int lines = 0, entries = 0;
        for (const char *p = text; *p; p++) lines += *p == '\n';
        for (int i = 0; i < count; i++) entries += e[i].backend == (enum PsnrHvsBackend)b;
        CHECK(lines == entries, "%s: %d devices in its listing, %d in the list",
              psnrhvs_backend_string((enum PsnrHvsBackend)b), lines, entries);
    }
    CHECK(psnrhvs_backend_kind((enum PsnrHvsBackend)0) == PSNRHVS_KIND_AUTO &&
              psnrhvs_backend_kind((enum PsnrHvsBackend) - 1) == PSNRHVS_KIND_NONE &&
              psnrhvs_backend_kind((enum PsnrHvsBackend)99) == PSNRHVS_KIND_NONE,
          "backend kinds of auto and of values that name none");
    for (int b = -1; b < 99; b++)
        CHECK(psnrhvs_backend_reads_cuda_memory((enum PsnrHvsBackend)b) ==
                  (psnrhvs_backend_string((enum PsnrHvsBackend)b) &&
                   !strcmp(psnrhvs_backend_string((enum PsnrHvsBackend)b), "cuda")),
              "backend %d: reads CUDA memory only if it is cuda", b);
    auto_matches(e, count);
    /* auto's own walk lists exactly the automatic entries, in order */
    PsnrHvsDeviceEntry a[MAX];
    const int na = psnrhvs_devices(a, MAX, PSNRHVS_DEVICES_AUTO);
    int k = 0;
    for (int i = 0; i < count; i++) {
        if (!e[i].automatic) continue;
        CHECK(k < na && !memcmp(&a[k], &e[i], sizeof(e[i])), "auto's entry %d differs", k);
        k++;
    }
    CHECK(na == k, "auto's walk lists %d, the full list marks %d automatic", na, k);
    CHECK(psnrhvs_devices(a, MAX, 2) == PSNRHVS_ERR(EINVAL), "unknown flag accepted");
}

/* Pinned to one core before the first call, the process counts one. */
static void affinity(void) {
    cpu_set_t set;
    CHECK(!sched_getaffinity(0, sizeof(set), &set), "sched_getaffinity: %s", strerror(errno));
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &set)) first++;
    CPU_ZERO(&set);
    CPU_SET(first, &set);
    CHECK(!sched_setaffinity(0, sizeof(set), &set), "sched_setaffinity: %s", strerror(errno));
    CHECK(psnrhvs_cpu_count() == 1, "pinned to core %d, psnrhvs_cpu_count() is %d", first,
          psnrhvs_cpu_count());
}

/* The backend modules (cuda, sycl) from the build tree: this static test
 * program has no psnrhvs/ beside it; a module once opened stays. */
static void open_modules(void) {
    for (int b = 0; psnrhvs_backend_string((enum PsnrHvsBackend)b); b++) {
        if (psnrhvs_backend_kind((enum PsnrHvsBackend)b) != PSNRHVS_KIND_DEVICE) continue;
        PsnrHvsSettings s;
        psnrhvs_default_settings(&s);
        s.width = s.height = 16, s.backend = (enum PsnrHvsBackend)b;
        s.module_dir = PSNRHVS_TEST_MODULE_DIR;
        PsnrHvsContext *c = NULL;
        if (!psnrhvs_open(&c, &s)) psnrhvs_close(&c);
    }
}

int main(const int argc, char **const argv) {
    if (argc != 2) return 2;
    if (!strcmp(argv[1], "list")) {
        open_modules();
        list();
    } else if (!strcmp(argv[1], "affinity"))
        affinity();
    else
        return 2;
    printf("%s: %s\n", argv[1], failures ? "FAILED" : "ok");
    return failures != 0;
}
