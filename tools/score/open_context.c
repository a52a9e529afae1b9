/*
 * psnrhvs: the score command's library side: the settings from the inputs
 * and the flags (geometry, memory, --cpumask), the pair reader, and the
 * context, opened on a thread of its own while the first frames are read;
 * the run's log of the library's messages.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "parity.h"
#include "score_int.h"
#include "test_hooks.h"
#include "thread.h"

/* The run this thread scores (a batch job runs on a thread of its own). */
static _Thread_local LogState *current_log;

/* Library messages explain failures; count them so we do not add a second
 * line. A context kept from an earlier job logs into the run now using it;
 * a thread of the library's (a GPU opening) has no run: its messages go
 * straight out. */
static void log_message(void *const cookie, const char *const msg) {
    (void)cookie;
    LogState *const log = current_log;
    if (log) log->count++;
    if (!log || !log->mute)
        fprintf(cli_err(), "psnrhvs: %s\n", msg);
    else
        snprintf(log->last, sizeof(log->last), "%s", msg);
}

static void report_open_error(const int res, const PsnrHvsSettings *const s) {
    switch (res) {
    case PSNRHVS_ERR(ENOSYS):
        fprintf(cli_err(), "psnrhvs: the %s backend is not built into this psnrhvs\n",
                cli_backend_name(s->backend));
        break;
    case PSNRHVS_ERR(ENODEV):
        fprintf(cli_err(), "psnrhvs: the %s backend found no device %d\n",
                cli_backend_name(s->backend), s->device);
        break;
    case PSNRHVS_ERR(ERANGE):
        fprintf(cli_err(), "psnrhvs: a plane to score is smaller than 8x8\n");
        break;
    default:
        fprintf(cli_err(), "psnrhvs: cannot open the scorer: %s\n", strerror(-res));
        break;
    }
}

/*
 * vmaf's --cpumask turns instruction sets off; psnrhvs's settings say which
 * one to use: no AVX2 leaves the scalar path (both SIMD kernels need AVX2),
 * no AVX-512 leaves AVX2 where the CPU has it. The scores are the same bits
 * either way; only the speed changes. SSE and AVX512ICL bits change nothing:
 * psnrhvs has no kernels for them. On AArch64 vmaf's mask is its ARM one:
 * bit 0 is NEON, and the x86 bits mean nothing.
 */
static void apply_cpumask(const CLISettings *const cli, PsnrHvsSettings *const lib,
                          LogState *const log) {
    if (!cli->have_cpumask || cli->have_isa) return; /* an explicit --isa was checked at parsing */
#if defined(__aarch64__)
    /* vmaf's ARM mask has one bit, NEON; without it the scalar path runs */
    if (cli->cpumask & CLI_CPUMASK_NEON) lib->isa = PSNRHVS_ISA_SCALAR;
    return;
#endif
    if (cli->cpumask & CLI_CPUMASK_AVX2) {
        lib->isa = PSNRHVS_ISA_SCALAR;
        return;
    }
    if (!(cli->cpumask & CLI_CPUMASK_AVX512)) return;
    /* AVX2 if this CPU and library have it: a small probe tells. */
    PsnrHvsSettings probe = *lib;
    probe.backend = PSNRHVS_BACKEND_CPU;
    probe.width = probe.height = 16;
    probe.layout = PSNRHVS_PIXEL_LAYOUT_I400;
    probe.bitdepth = 8;
    probe.threads = 1;
    probe.isa = PSNRHVS_ISA_AVX2;
    PsnrHvsContext *ctx = NULL;
    log->mute = 1;
    const int res = psnrhvs_open(&ctx, &probe);
    log->mute = 0;
    if (ctx) psnrhvs_close(&ctx);
    lib->isa = res ? PSNRHVS_ISA_SCALAR : PSNRHVS_ISA_AVX2;
}

/* Opening the context runs on a thread of its own while the reader reads
 * the first frames: a named device backend's context creation and kernel
 * builds take their time (auto returns once the CPU is ready, the GPUs
 * join as they open). */
static void *open_context(void *const arg) {
    Opener *const o = arg;
    current_log = o->log;
    if (cli_err() != o->err) cli_msg_set(o->err, NULL); /* a thread of its own */
    o->res =
        o->env->open ? o->env->open(o->env->cookie, &o->ctx, &o->s) : psnrhvs_open(&o->ctx, &o->s);
    o->done = cli_now();
    return NULL;
}

/* Given back to the batch's pool, or closed. */
void run_close_context(const ScoreEnv *const e, PsnrHvsContext **const c) {
    if (!*c) return;
    if (e->close)
        e->close(e->cookie, c);
    else
        psnrhvs_close(c);
    *c = NULL;
}

/* --device all: the backend's devices in the library's list. */
static int count_devices(const enum PsnrHvsBackend b) {
    if (!psnrhvs_backend_available(b)) {
        char why[256];
        const int res = psnrhvs_list_devices(b, 0, why, sizeof(why));
        return res < 0 ? res : 0;
    }
    PsnrHvsDeviceEntry e[64];
    const int n = psnrhvs_devices(e, 64, 0);
    int found = 0;
    for (int i = 0; i < n && i < 64; i++) found += e[i].backend == b;
    return found;
}

/* The frames to expect: the smallest bound known (file sizes, --frame_cnt),
 * the longest rendition's for a ladder, or -1. */
static long long expected_frames(Input *const ref, const Rendition *const rend, const int n,
                                 const CLISettings *const cli) {
    const long long ref_left = input_frames_left(ref);
    long long total = ref_left < 0                                ? -1
                      : ref_left > (long long)cli->frame_skip_ref ? ref_left - cli->frame_skip_ref
                                                                  : 0;
    long long dist_max = -2; /* -2: none yet, -1: one unknown */
    for (int r = 0; r < n; r++) {
        const long long left = input_frames_left(rend[r].in);
        const long long d = left < 0                                 ? -1
                            : left > (long long)cli->frame_skip_dist ? left - cli->frame_skip_dist
                                                                     : 0;
        if (d < 0 || dist_max == -1)
            dist_max = -1;
        else if (d > dist_max)
            dist_max = d;
    }
    if (dist_max >= 0 && (total < 0 || dist_max < total)) total = dist_max;
    if (cli->frame_cnt && (total < 0 || (long long)cli->frame_cnt < total))
        total = (long long)cli->frame_cnt;
    return total;
}

/* A mapped input cut short while its frames were being sent: they may hold
 * zeros, so the run fails (reported). */
int run_mapping_lost(const Run *const run) {
    const Input *lost = input_mapping_lost(run->ref) ? run->ref : NULL;
    for (int r = 0; r < run->n && !lost; r++)
        if (input_mapping_lost(run->rend[r].in)) lost = run->rend[r].in;
    if (lost)
        fprintf(cli_err(), "psnrhvs: %s was cut short while being read: its frames are truncated\n",
                input_name(lost));
    return lost != NULL;
}

int run_scores_device_frames(const CLISettings *const cli, const PsnrHvsSettings *const lib) {
    return !cli->parity && !cli->num_devices && !cli->all_devices &&
           (psnrhvs_backend_kind(lib->backend) == PSNRHVS_KIND_AUTO ||
            psnrhvs_backend_reads_cuda_memory(lib->backend));
}

static int same_device_frames(const DeviceFrames *const a, const DeviceFrames *const b) {
    return a->chroma_interleaved == b->chroma_interleaved && a->msb_aligned == b->msb_aligned;
}

/*
 * --hwaccel cuda: frames decoded on the GPU stay there when every distorted
 * input is (and none is converted) and the CUDA backend scores them, the
 * default then: the library reads NVDEC's frames in place (NV12/P010 as they
 * are). The reference joins them when it is decoded there too, else it is
 * uploaded from host memory (a raw or Y4M source, a shifted one). Otherwise
 * they are copied to host memory, with a note saying why.
 * A test hook forces the copy (bench/hwaccel_gpu.sh compares).
 * @return 1 when kept on the GPU (lib set up for it), else 0.
 */
static int keep_frames_on_gpu(const CLISettings *const cli, PsnrHvsSettings *const lib,
                              Input *const ref, const Rendition *const rend, const int n) {
    DeviceFrames first, df, rf;
    int any = 0, all = 1;
    for (int r = 0; r < n; r++) {
        const int on = input_device_frames(rend[r].in, r ? &df : &first);
        any |= on;
        all = all && on && (!r || same_device_frames(&df, &first));
    }
    const int ref_on = input_device_frames(ref, &rf);
    if (!any && !ref_on) return 0;
    if (!cli->backend_given) lib->backend = PSNRHVS_BACKEND_CUDA;
    const char *why = NULL;
    if (test_hook_hwaccel_copy())
        why = "PSNRHVS_TEST_HWACCEL_COPY is set";
    else if (!all)
        why = "not every distorted input is decoded on the GPU as it is (a raw or Y4M input, a "
              "codec NVDEC lacks, --scale)";
    else if (!run_scores_device_frames(cli, lib))
        why = cli->parity ? "parity runs score host copies"
                          : "they are scored by another backend than cuda";
    if (why) {
        if (!cli->quiet && cli->hwaccel == INPUT_HWACCEL_CUDA)
            fprintf(cli_err(),
                    "psnrhvs: note: --hwaccel cuda: decoded frames are copied to host memory: %s\n",
                    why);
        return 0;
    }
    lib->memory = PSNRHVS_MEMORY_DEVICE;
    lib->chroma_interleaved = first.chroma_interleaved;
    lib->msb_aligned = first.msb_aligned;
    /* A reference decoded on the GPU stored otherwise than the encodes
     * (4:4:4 against NV12 cannot be; P016 against P010 can) is copied. */
    lib->reference_on_host = !ref_on || !same_device_frames(&rf, &first);
    if (!lib->reference_on_host) input_keep_on_device(ref);
    for (int r = 0; r < n; r++) input_keep_on_device(rend[r].in);
    return 1;
}

void run_log_enter(Run *const run) {
    run->outer_log = current_log;
    current_log = &run->log;
    run->lib.logger.cookie = NULL;
    run->lib.logger.callback = log_message;
}

void run_log_leave(Run *const run) {
    current_log = run->outer_log;
}

int run_prepare(Run *const run) {
    const CLISettings *const cli = &run->cli;
    PsnrHvsSettings *const lib = &run->lib;
    const int n = run->n;
    /* Mapped files cut short under us: an error, not a SIGBUS (after the
     * outputs' handlers, which it passes other SIGBUS on to). */
    input_guard_mappings();

    lib->width = run->fmt.width;
    lib->height = run->fmt.height;
    lib->layout = run->fmt.layout;
    lib->bitdepth = run->fmt.bitdepth;
    lib->renditions = n;
    /* Frames that stay where they are in the mapped files until the end: the
     * library may read them after psnrhvs_send() returns, so the CPU backend
     * scores frames in flight without copying them. */
    run->on_gpu = keep_frames_on_gpu(cli, lib, run->ref, run->rend, n);
    int in_place = input_in_place(run->ref);
    for (int r = 0; r < n; r++) in_place = in_place && input_in_place(run->rend[r].in);
    if (in_place && lib->memory == PSNRHVS_MEMORY_HOST) lib->memory = PSNRHVS_MEMORY_HOST_RETAINED;
    /* Every frame read is scored: the library's range check (every backend
     * has one) stands in for the readers' scan of each 16-bit sample. */
    run->defer_range = in_place && !cli->parity && cli->subsample <= 1 && !cli->frame_skip_ref &&
                       !cli->frame_skip_dist;
    if (run->defer_range) {
        input_defer_range_check(run->ref);
        for (int r = 0; r < n; r++) input_defer_range_check(run->rend[r].in);
    }
    apply_cpumask(cli, lib, &run->log);
    run->total = expected_frames(run->ref, run->rend, n, cli);
    const PairReaderSettings prs = {
        .skip_ref = cli->frame_skip_ref,
        .skip_dist = cli->frame_skip_dist,
        .frame_cnt = cli->frame_cnt,
        .quiet = cli->quiet,
    };
    Input *dists[PSNRHVS_MAX_RENDITIONS];
    for (int r = 0; r < n; r++) dists[r] = run->rend[r].in;
    return pair_reader_open_n(&run->pr, run->ref, dists, n, &prs) < 0;
}

/* --device LIST or all: its devices; else the settings' backend (auto: the
 * CPU and every GPU) says. @return 0 or -1 (reported). */
static int list_devices(Run *const run) {
    const CLISettings *const cli = &run->cli;
    PsnrHvsSettings *const lib = &run->lib;
    int num_devices = cli->num_devices;
    if (cli->all_devices) {
        const int found = count_devices(lib->backend);
        if (found <= 0) {
            if (found == PSNRHVS_ERR(ENOSYS))
                fprintf(cli_err(), "psnrhvs: the %s backend is not built into this psnrhvs\n",
                        cli_backend_name(lib->backend));
            else
                fprintf(cli_err(), "psnrhvs: --device all: the %s backend found no device\n",
                        cli_backend_name(lib->backend));
            return -1;
        }
        num_devices = found < PSNRHVS_MAX_DEVICES ? found : PSNRHVS_MAX_DEVICES;
    }
    for (int j = 0; j < num_devices; j++)
        run->devices[j] = (PsnrHvsDevice){lib->backend, cli->all_devices ? j : cli->devices[j]};
    if (num_devices > 1) lib->num_devices = num_devices, lib->devices = run->devices;
    return 0;
}

int run_open_context(Run *const run) {
    const CLISettings *const cli = &run->cli;
    PsnrHvsSettings *const lib = &run->lib;
    Scorer *const sc = &run->sc;
    /* The frames to score: auto leaves the GPUs closed for a short clip. */
    if (run->total > 0)
        lib->frames_hint = ((uint64_t)run->total + cli->subsample - 1) / cli->subsample;
    if (list_devices(run) < 0) return 1;
    /* Device start-up (a GPU context, kernel builds) overlaps reading the
     * first frames: files are read at once; a pipe only once the scorers are
     * open, so a scorer that fails never waits on it. */
    const unsigned log_before = run->log.count;
    Opener *const o = &run->opener;
    *o = (Opener){.s = *lib, .env = run->env, .log = current_log, .err = cli_err()};
    run->t_open_start = cli_now();
    o->started = !cli_thread_start(&o->thread, open_context, o);
    if (!o->started) open_context(o);
    if (run->all_files && pair_reader_start(run->pr) < 0) {
        fprintf(cli_err(), "psnrhvs: %s\n", pair_reader_error(run->pr));
        return 1;
    }
    if (o->started) pthread_join(o->thread, NULL);
    o->started = 0;
    sc->ctx = o->ctx;
    o->ctx = NULL;
    if (!sc->ctx && run->log.count == log_before)
        report_open_error(o->res ? o->res : PSNRHVS_ERR(ENODEV), &o->s);
    if (run->defer_range || run->on_gpu) {
        sc->ring_size = PSNRHVS_MAX_FRAMES_IN_FLIGHT + 1;
        if (!(sc->ring = calloc(sc->ring_size, sizeof(*sc->ring)))) {
            fprintf(cli_err(), "psnrhvs: out of memory\n");
            return 1;
        }
        sc->defer = run->defer_range;
        sc->holds = run->on_gpu;
        sc->ref_in = run->ref;
        for (int r = 0; r < run->n; r++) sc->dist_in[r] = run->rend[r].in;
    }
    if (!sc->ctx) return 1;
    sc->renditions = run->n;
    if (run->total > 0) /* a quarter and five eighths in: 120 and 300 of 480 */
        sc->mark[0] = (uint64_t)run->total / 4, sc->mark[1] = (uint64_t)run->total * 5 / 8;
    return 0;
}
