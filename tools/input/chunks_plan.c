/*
 * psnrhvs: decoding in keyframe chunks: the plan: how many sessions, their
 * threads and the chunks' size (from --decode-sessions and the container),
 * the memory budget for frames queued ahead, and the CUDA driver's symbols.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psnrhvs.h"
#include "input/chunks_int.h"
#include "input/decode_choice.h"
#include "test_hooks.h"

/*
 * How many sessions (docs/cli.md, "Decoding in chunks"):
 *  - one by default, with FFmpeg's frame threads on the CPU, as before
 *    chunks: more sessions did not pay where measured (bench/RESULTS.md);
 *  - --decode-sessions N asks for N; a CPU session gets cores / N frame
 *    threads; chunks start at keyframes 48 frames apart or more (the tests
 *    set both smaller through test_hooks.h).
 * One session regardless: a pipe (nothing is read ahead of what the pair
 * reader asks for), a codec not split, a file shorter than two chunks, an
 * index with fewer than two keyframes min_chunk apart; no more sessions than
 * the index has such keyframes.
 */
void chunks_make_plan(Plan *const p, const AVFormatContext *const fc, const int stream,
                      const AVCodecContext *const dec, const int seekable, const int forced) {
    const AVStream *const st = fc->streams[stream];
    const long cores = psnrhvs_cpu_count();
    memset(p, 0, sizeof(*p));
    p->nvdec = dec->hw_device_ctx != NULL;
    const int chunk = test_hook_decode_chunk();
    p->min_chunk = chunk ? chunk : 48;
    /* One session unless asked: NVDEC sessions opened for every chunk gained
     * nothing, and CPU sessions were slower than one with frame threads
     * (H.264) or about as fast (HEVC) (bench/RESULTS.md). */
    p->sessions = forced > 0 ? (forced < MAX_SESSIONS ? forced : MAX_SESSIONS) : 1;
    const int threads = test_hook_decode_threads();
    p->threads = p->nvdec  ? 1
                 : threads ? threads
                           : (int)(cores / p->sessions > 1 ? cores / p->sessions : 1);
    p->frames = decode_frames_estimate(fc, stream);
    /* A whole-sample index (MP4): the keyframes min_chunk apart. */
    p->keyframes = -1;
    const int entries = avformat_index_get_entries_count(st);
    if (p->frames > 0 && entries >= p->frames * 9 / 10) {
        int n = 0, last = -p->min_chunk;
        for (int i = 0; i < entries; i++) {
            const AVIndexEntry *const e = avformat_index_get_entry((AVStream *)st, i);
            if (e && (e->flags & AVINDEX_KEYFRAME) && i - last >= p->min_chunk) n++, last = i;
        }
        p->keyframes = n;
    }
    const char *const cname = avcodec_get_name(st->codecpar->codec_id);
    if (!seekable)
        snprintf(p->why, sizeof(p->why), "a pipe is read as it comes");
    else if (p->sessions == 1)
        snprintf(p->why, sizeof(p->why), "%s",
                 forced ? "--decode-sessions 1" : "the default; --decode-sessions N asks for N");
    else if (keyscan_codec(st->codecpar->codec_id) == KEY_OTHER)
        snprintf(p->why, sizeof(p->why), "%s is not split into chunks", cname);
    else if (p->frames >= 0 && p->frames < 2LL * p->min_chunk)
        snprintf(p->why, sizeof(p->why), "%lld frames, shorter than two chunks of %d", p->frames,
                 p->min_chunk);
    else if (p->keyframes >= 0 && p->keyframes < 2)
        snprintf(p->why, sizeof(p->why), "its index has no two keyframes %d frames apart",
                 p->min_chunk);
    if (p->why[0]) {
        p->sessions = 1;
        return;
    }
    if (p->keyframes > 0 && p->keyframes < p->sessions) p->sessions = p->keyframes;
}

/* ---- the CUDA driver, as FFmpeg loaded it ---------------------------------- */

void *chunks_cuda_sym(const char *const name) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static void *lib; /* kept open: the symbols outlive FFmpeg's own reference */
    pthread_mutex_lock(&lock);
    if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *const l = lib;
    pthread_mutex_unlock(&lock);
    return l ? dlsym(l, name) : NULL;
}

/* ---- the memory budget for frames of runs ahead ---------------------------- */

/* A GPU's memory, from the driver FFmpeg opened. */
static size_t gpu_memory(const int device) {
    int (*init)(unsigned) = (int (*)(unsigned))chunks_cuda_sym("cuInit");
    int (*get)(int *, int) = (int (*)(int *, int))chunks_cuda_sym("cuDeviceGet");
    int (*total)(size_t *, int) = (int (*)(size_t *, int))chunks_cuda_sym("cuDeviceTotalMem_v2");
    size_t bytes = 0;
    int dev = 0;
    if (!init || !get || !total || init(0) || get(&dev, device) || total(&bytes, dev)) bytes = 0;
    return bytes;
}

/* An eighth of the memory the frames live in (GPU or host), 16 GiB at most,
 * for the frames every input queues (a test hook sets it smaller). */
size_t chunks_frame_budget(const Plan *const p, const int device) {
    const long mb = test_hook_decode_buffer_mb();
    if (mb) return (size_t)mb << 20;
    size_t total = p->nvdec ? gpu_memory(device) : 0;
    if (!p->nvdec) {
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0) total = (size_t)pages * (size_t)page;
    }
    size_t b = total ? total / 8 : (size_t)4 << 30;
    if (b > (size_t)16 << 30) b = (size_t)16 << 30;
    return b;
}
