/*
 * psnrhvs: reading a raw or Y4M regular file through a memory mapping, and
 * the SIGBUS guard that turns a file cut short under us into an error.
 * SPDX-License-Identifier: BSD-2-Clause
 */
/* madvise and MADV_* are not in C11/POSIX.1's strict namespace. */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "input/convert.h"
#include "input/input.h"
#include "input/input_int.h"
#include "test_hooks.h"

/* ---- the SIGBUS guard: a mapped file cut short under us reads as zeros,
 * flagged, and is reported as a truncation, never a crash ---- */

#define MAX_GUARDED 64
static struct {
    uintptr_t start;
    size_t size;
    volatile sig_atomic_t lost;
} guarded[MAX_GUARDED];
static volatile sig_atomic_t num_guarded;
static struct sigaction guard_old;
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int guard_installed;

static void guard_handler(const int sig, siginfo_t *const si, void *const uc) {
    (void)uc;
    const uintptr_t a = (uintptr_t)si->si_addr;
    if (si->si_code > 0) {
        for (int i = 0; i < num_guarded; i++) {
            if (a - guarded[i].start < guarded[i].size) {
                /* Zero pages over the whole mapping: the access is retried and succeeds. */
                if (mmap((void *)guarded[i].start, guarded[i].size, PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
                    guarded[i].lost = 1;
                    return;
                }
            }
        }
    }
    /* Not ours: what was there before (the output's cleanup, or the default)
     * takes it: a fault repeats, a signal sent is sent again. */
    sigaction(sig, &guard_old, NULL);
    if (si->si_code <= 0) raise(sig);
}

void input_guard_mappings(void) {
    pthread_mutex_lock(&guard_lock);
    if (guard_installed || !num_guarded) {
        pthread_mutex_unlock(&guard_lock);
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = guard_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    if (!sigaction(SIGBUS, &sa, &guard_old)) guard_installed = 1;
    pthread_mutex_unlock(&guard_lock);
}

int input_mapping_lost(const Input *const in) {
    return in->map && in->guard >= 0 && guarded[in->guard].lost;
}

/* Prefetch this many frames ahead of the one read (MADV_WILLNEED). */
#define MAP_AHEAD_FRAMES 4
/* Pages behind the frames scored are dropped this many bytes at a time:
 * each drop interrupts every core running the process (a TLB flush). */
#define MAP_DROP_BYTES ((size_t)64 << 20)

/* Map a raw or Y4M regular file (not stdin, not a pipe, not a decoded one);
 * on any failure the input stays on the read() path. */
void input_try_map(Input *const in, const char *const path) {
    if (!strcmp(path, "-") || test_hook_no_mmap()) return;
    if (!in->file) return;
    const int fd = fileno(in->s.f);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) return;
    if ((unsigned long long)st.st_size > SIZE_MAX) return;
    const size_t logical = (size_t)psnrhvs_file_offset(in->file);
    void *const m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) return;
    madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
    in->map = m;
    in->map_size = (size_t)st.st_size;
    in->guard = -1;
    /* A slot a closed input left (size 0), else a new one; batch's jobs map
     * files on several threads. The size goes last: the handler matches it. */
    pthread_mutex_lock(&guard_lock);
    int slot = 0;
    while (slot < num_guarded && guarded[slot].size) slot++;
    if (slot < MAX_GUARDED) {
        guarded[slot].lost = 0;
        guarded[slot].start = (uintptr_t)m;
        guarded[slot].size = (size_t)st.st_size;
        in->guard = slot;
        if (slot == num_guarded) num_guarded = slot + 1;
    }
    pthread_mutex_unlock(&guard_lock);
    in->map_pos = logical;
    const long page = sysconf(_SC_PAGESIZE);
    in->page = page > 0 ? (size_t)page : 4096;
}

/* Fault the pages of [p, p + len) in on this (a reader) thread, so the thread
 * that sends the frame never waits on the page cache or the disk. */
static int prefault(const Input *const in, const uint8_t *const p, const size_t len) {
    const uintptr_t start = (uintptr_t)p & ~(uintptr_t)(in->page - 1);
    const size_t span = (size_t)((uintptr_t)p + len - start);
#ifdef MADV_POPULATE_READ
    if (!madvise((void *)start, span, MADV_POPULATE_READ)) return 0;
    if (errno == EFAULT) return -1; /* past the end of the file: cut short under us */
        /* EINVAL (a kernel before 5.14), EINTR, ENOMEM...: touch the pages instead */
#endif
    volatile uint8_t sink = 0;
    for (size_t off = 0; off < span; off += in->page)
        sink ^= *(const volatile uint8_t *)(start + off);
    (void)sink;
    return 0;
}

/* Ask the kernel to read the next frames while this one is scored. */
static void read_ahead(const Input *const in, const size_t from, const size_t per_frame) {
    if (from >= in->map_size) return;
    const uintptr_t start = (uintptr_t)(in->map + from) & ~(uintptr_t)(in->page - 1);
    size_t len = per_frame * MAP_AHEAD_FRAMES;
    if (len > in->map_size - from) len = in->map_size - from;
    madvise((void *)start, (size_t)((uintptr_t)(in->map + from) + len - start), MADV_WILLNEED);
}

/* The bytes of the mapping that still exist: a file cut short while we run
 * must give a truncation error, never a SIGBUS. */
static size_t mapped_size(const Input *const in) {
    struct stat st;
    if (fstat(fileno(in->s.f), &st)) return 0;
    const unsigned long long now = st.st_size > 0 ? (unsigned long long)st.st_size : 0;
    return now < in->map_size ? (size_t)now : in->map_size;
}

void input_done_below(Input *const in, const void *const p) {
    if (!in || !in->map) return;
    const uintptr_t a = (uintptr_t)p, m = (uintptr_t)in->map;
    if (a >= m && a - m <= in->map_size)
        atomic_store_explicit(&in->done_below, (size_t)(a - m), memory_order_relaxed);
}

/* On the reader thread, which mostly waits for room: the pages of the
 * frames scored leave the process (the file stays in the page cache, and
 * a page read again faults back in). Whole runs took as long either way
 * (bench/RESULTS.md); the resident size is what changes. */
static void drop_behind(Input *const in) {
    const size_t below =
        atomic_load_explicit(&in->done_below, memory_order_relaxed) / in->page * in->page;
    if (below < in->dropped + MAP_DROP_BYTES) return;
    madvise((void *)(uintptr_t)(in->map + in->dropped), below - in->dropped, MADV_DONTNEED);
    in->dropped = below;
}

/* input_read() of a mapped file. */
int input_mapped_read(Input *const in, InputFrame *const frame) {
    drop_behind(in);
    const size_t size = mapped_size(in);
    size_t pos = in->map_pos;
    if (pos > size) pos = size;
    const size_t bytes = in->ngeo.frame_bytes;
    /* The library checks the FRAME line and that the samples are all there. */
    size_t header;
    PsnrHvsFileStatus st;
    const int res = psnrhvs_file_locate(in->file, in->map + pos, size - pos, &header, &st);
    if (res <= 0) return res < 0 ? input_file_error(in, &st) : 0;
    const uint8_t *const payload = in->map + pos + header;
    if (prefault(in, payload, bytes) < 0 || mapped_size(in) < pos + header + bytes ||
        input_mapping_lost(in)) {
        stream_error(&in->s, "truncated frame %u in %s: the file was cut short while being read",
                     in->frames_read, in->s.name);
        return -1;
    }
    in->map_pos = pos + header + bytes;
    read_ahead(in, in->map_pos, header + bytes);

    const uint16_t probe = 1;
    uint8_t little;
    memcpy(&little, &probe, 1);
    /* 16-bit samples are used as uint16_t: in place only when aligned and
     * little endian, else copied (and swapped) as read() would. */
    const int copy = in->ngeo.bytes_per_sample == 2 && (((uintptr_t)payload & 1) || !little);
    PsnrHvsPicture src;
    const uint8_t *samples = payload;
    if (copy && !in->conv && !frame->buf && input_frame_buffer(in, frame) < 0) {
        stream_error(&in->s, "cannot allocate %zu bytes for a frame of %s", in->geo.frame_bytes,
                     in->s.name);
        return -1;
    }
    uint8_t *const buf = in->conv ? in->scratch.buf : frame->buf;
    if (copy) {
        memcpy(buf, payload, bytes);
        psnrhvs_file_le16_to_native(buf, bytes);
        samples = buf;
    }
    psnrhvs_picture_layout(&in->ngeo, samples, &src);
    /* Deferred: the library checks the range of what it scores, and the CLI
     * asks for this message only for a frame it refused. */
    if (in->ngeo.bytes_per_sample == 2 && !(in->defer_range && !copy) &&
        input_check_sample_range(in, samples) < 0)
        return -1;
    if (input_mapping_lost(in)) {
        stream_error(&in->s, "truncated frame %u in %s: the file was cut short while being read",
                     in->frames_read, in->s.name);
        return -1;
    }
    if (in->conv) {
        if (converter_run(in->conv, &src, &frame->pic) < 0) {
            stream_error(&in->s, "cannot convert frame %u of %s", in->frames_read, in->s.name);
            return -1;
        }
    } else {
        frame->pic = src;
    }
    in->frames_read++;
    return 1;
}

int input_mapped(const Input *const in) {
    return in->map != NULL;
}

int input_in_place(const Input *const in) {
    if (!in->map || in->conv) return 0;
    if (in->ngeo.bytes_per_sample == 1) return 1;
    /* Y4M FRAME lines may differ in length: a payload at an odd offset is
     * copied into a buffer that the next frame reuses. */
    const uint16_t probe = 1;
    uint8_t little;
    memcpy(&little, &probe, 1);
    PsnrHvsFileInfo info;
    psnrhvs_file_info(in->file, &info);
    return little && !info.frame_header_bytes && in->ngeo.frame_bytes % 2 == 0;
}

void input_unmap(Input *const in) {
    if (in->guard >= 0) { /* no longer ours: the slot is free again */
        pthread_mutex_lock(&guard_lock);
        guarded[in->guard].size = 0;
        pthread_mutex_unlock(&guard_lock);
    }
    munmap((void *)(uintptr_t)in->map, in->map_size);
}
