/*
 * psnrhvs: the score command (psnrhvs -r REF -d DIST...): inputs, the
 * library's context, outputs. A batch job runs it on a thread of its own.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "psnrhvs.h"
#include "cli_parse.h"
#include "format.h"
#include "input/input.h"
#include "input/pair_reader.h"
#include "msg.h"
#include "output/output.h"
#include "parity.h"
#include "score.h"
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

/* "1:02:03" or "2:03" */
static const char *clock_time(char *const buf, const size_t size, const double seconds) {
    const unsigned long s = seconds < 0       ? 0
                            : seconds > 3.6e8 ? 360000000ul
                                              : (unsigned long)seconds;
    if (s >= 3600)
        snprintf(buf, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, size, "%lu:%02lu", s / 60, s % 60);
    return buf;
}

/* One line, rewritten in place; "\033[K" clears what a longer line left. */
static void progress(const unsigned frames, const long long total, const double start,
                     const int final) {
    const double elapsed = cli_now() - start;
    const double fps = elapsed > 0 ? frames / elapsed : 0.0;
    char t[32];
    cli_progress_line(0); /* rewritten, not ended */
    FILE *const f = cli_err();
    if (final)
        fprintf(f, "\rpsnrhvs: %u frames, %.1f fps, %s\033[K\n", frames, fps,
                clock_time(t, sizeof(t), elapsed));
    else if (total >= (long long)frames && fps > 0)
        fprintf(f, "\rpsnrhvs: frame %u/%lld, %.1f fps, ETA %s\033[K", frames, total, fps,
                clock_time(t, sizeof(t), (double)(total - (long long)frames) / fps));
    else
        fprintf(f, "\rpsnrhvs: frame %u, %.1f fps\033[K", frames, fps);
    fflush(f);
    if (!final && f == stderr) cli_progress_line(1);
}

/* One line: which side had no frame to pair (after its skip). */
static void report_no_frames(Input *const ref, Input *const dist, const CLISettings *const cli) {
    const int ref_none = input_frames_read(ref) <= cli->frame_skip_ref;
    const int dist_none = input_frames_read(dist) <= cli->frame_skip_dist;
    const char *const rn = input_name(ref), *const dn = input_name(dist);
    if (ref_none && dist_none && strcmp(rn, dn))
        fprintf(cli_err(), "psnrhvs: no frames to score: neither %s nor %s has a frame%s\n", rn, dn,
                cli->frame_skip_ref || cli->frame_skip_dist ? " after skipping" : "");
    else if (ref_none || dist_none)
        fprintf(cli_err(), "psnrhvs: no frames to score: %s has no frame%s\n", ref_none ? rn : dn,
                (ref_none ? cli->frame_skip_ref : cli->frame_skip_dist) ? " after skipping" : "");
    else
        fprintf(cli_err(), "psnrhvs: no frames to score\n");
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
typedef struct Opener {
    PsnrHvsSettings s;
    const ScoreEnv *env;
    PsnrHvsContext *ctx;
    int res;
    double done; ///< when it was open (--timing)
    pthread_t thread;
    int started;
    LogState *log; ///< the run's: messages of the opening count and go where its others go
    FILE *err;
} Opener;

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
static void close_context(const ScoreEnv *const e, PsnrHvsContext **const c) {
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
    const int n = psnrhvs_devices(e, 64);
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

/* The folders -o DIR/ (--plot DIR/) of a ladder makes: dir, down from its
 * first missing part (top bytes long), so that a run that fails takes them
 * away again (rmdir: only while empty). */
typedef struct MadeDir {
    char *dir;
    size_t top;
} MadeDir;

static void note_missing_dir(MadeDir *const m, const char *const path) {
    const char *const slash = strrchr(path, '/');
    struct stat st;
    if (m->dir || !slash || slash == path || !(m->dir = strndup(path, (size_t)(slash - path))))
        return;
    if (!stat(m->dir, &st)) {
        free(m->dir);
        m->dir = NULL;
        return;
    }
    m->top = strlen(m->dir);
    for (size_t i = m->top; i-- > 1;) {
        if (m->dir[i] != '/') continue;
        m->dir[i] = '\0';
        const int there = !stat(m->dir, &st);
        m->dir[i] = '/';
        if (there) break;
        m->top = i;
    }
    /* m->dir[0 .. top) is the first folder missing; its parents exist. */
}

static void remove_made_dir(MadeDir *const m, const int failed) {
    if (!m->dir) return;
    while (failed && !rmdir(m->dir)) {
        char *const p = strrchr(m->dir, '/');
        if (!p || (size_t)(p - m->dir) < m->top) break;
        *p = '\0';
    }
    free(m->dir);
    m->dir = NULL;
}

/* A raw or Y4M file can be read without ever blocking (not a pipe, not stdin). */
static int is_regular_file(const char *const path) {
    struct stat st;
    return strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode);
}

/* A mapped input cut short while its frames were being sent: they may hold
 * zeros, so the run fails (reported). */
static int mapping_lost(Input *const ref, const Rendition *const rend, const int n) {
    const Input *lost = input_mapping_lost(ref) ? ref : NULL;
    for (int r = 0; r < n && !lost; r++)
        if (input_mapping_lost(rend[r].in)) lost = rend[r].in;
    if (lost)
        fprintf(cli_err(), "psnrhvs: %s was cut short while being read: its frames are truncated\n",
                input_name(lost));
    return lost != NULL;
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
    else if (lib->backend != PSNRHVS_BACKEND_CUDA)
        why = "they are scored by another backend than cuda";
    else if (cli->parity)
        why = "parity runs score host copies";
    if (why) {
        if (!cli->quiet)
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

int cli_score(const CLISettings *const cli_in, PsnrHvsSettings lib, const ScoreEnv *const env) {
    static const ScoreEnv alone = {0};
    const ScoreEnv *const e = env ? env : &alone;
    CLISettings cli = *cli_in;
    LogState log = {0};
    LogState *const outer_log = current_log;
    current_log = &log;
    lib.logger.cookie = NULL;
    lib.logger.callback = log_message;
    /* --timing: where start-up goes, on stderr (bench/cli_gpu.sh reads it). */
    const double t0 = cli_now();
    const int timing = cli.timing;
    double t_open_start = 0, t_first_frame = 0, in_ms[1 + PSNRHVS_MAX_RENDITIONS] = {0};

    int ret = 1;
    const int n = cli.num_dists;
    const int ladder = n > 1;
    Input *ref = NULL;
    Rendition *const rend = calloc((size_t)n, sizeof(*rend));
    Scorer sc = {.ctx = NULL};
    Opener opener = {.ctx = NULL};
    PairReader *pr = NULL;
    InputFormat fmt, ref_fmt;
    MadeDir made[2] = {{NULL, 0}, {NULL, 0}}; /* -o DIR/, --plot DIR/ */
    if (!rend) {
        fprintf(cli_err(), "psnrhvs: out of memory\n");
        current_log = outer_log;
        return 1;
    }
    const enum PsnrHvsScoreFormat format =
        cli.format >= 0 ? (enum PsnrHvsScoreFormat)cli.format : PSNRHVS_SCORES_XML;
    if (ladder) {
        /* Names first: a usage error before any file is opened. */
        if (!cli.output && cli.format >= 0)
            cli_usage_error("--%s with several -d needs -o DIR/ or an -o pattern: the "
                            "renditions' scores would be mixed on stdout",
                            psnrhvs_scores_format_string(format));
        for (int r = 0; r < n; r++) rend[r].path = cli.dists[r];
        score_name_outputs(&cli, format, rend, n);
    }

    /* Compressed inputs (FFmpeg): only the distorted is ever scaled. */
    const InputOptions ropt = {.hwaccel = cli.hwaccel,
                               .hw_device = lib.device,
                               .quiet = cli.quiet,
                               .decode_sessions = cli.decode_sessions,
                               .timing = cli.timing};
    InputOptions dopt = ropt;
    dopt.scale_algo = cli.scale_algo;
    /* All at once: decoders (NVDEC's too) start side by side. */
    Input *opened[1 + PSNRHVS_MAX_RENDITIONS];
    const char *paths[1 + PSNRHVS_MAX_RENDITIONS] = {cli.reference};
    const InputOptions *opts[1 + PSNRHVS_MAX_RENDITIONS] = {&ropt};
    for (int r = 0; r < n; r++) paths[1 + r] = cli.dists[r], opts[1 + r] = &dopt;
    if (input_open_many(opened, paths, opts, 1 + n, in_ms) < 0) goto end;
    ref = opened[0];
    input_set_role(ref, "reference");
    int any_decoded = input_decoded(ref), all_files = is_regular_file(cli.reference);
    for (int r = 0; r < n; r++) {
        rend[r].path = cli.dists[r];
        rend[r].in = opened[1 + r];
        input_set_role(rend[r].in, "distorted");
        any_decoded |= input_decoded(rend[r].in);
        all_files &= is_regular_file(cli.dists[r]);
    }
    if (cli.hwaccel && !cli.quiet && !any_decoded)
        fprintf(cli_err(), "psnrhvs: warning: --hwaccel has no effect: no input is compressed\n");
    for (int r = 0; r < n; r++) {
        InputFormat rf;
        const int fmt_res =
            format_resolve(&cli, ref, rend[r].in, &rend[r].fmt, &rf, &rend[r].read_fmt);
        if (fmt_res) {
            ret = fmt_res;
            goto end;
        }
        if (input_colour_check(ref, rend[r].in, cli.colour_error, cli.quiet) < 0) goto end;
        if (!r) {
            fmt = rend[0].fmt;
            ref_fmt = rf;
        } else if (!format_same(&rend[r].fmt, &fmt) || !format_same(&rf, &ref_fmt)) {
            /* One scorer for the ladder: every rendition at the reference's geometry. */
            fprintf(cli_err(),
                    "psnrhvs: rendition %s would be scored as %dx%d %s %d-bit and %s as %dx%d %s "
                    "%d-bit: every -d of a ladder needs the reference's size, pixel format and "
                    "bit depth (after --scale and --common_bitdepth)\n",
                    rend[r].path, rend[r].fmt.width, rend[r].fmt.height,
                    layout_name(rend[r].fmt.layout), rend[r].fmt.bitdepth, rend[0].path, fmt.width,
                    fmt.height, layout_name(fmt.layout), fmt.bitdepth);
            goto end;
        }
    }
    if (format_check_planes(&fmt, lib.enable_chroma) < 0) goto end;
    if (input_set_formats(ref, &ref_fmt, &fmt) < 0) goto end;
    for (int r = 0; r < n; r++)
        if (input_set_formats(rend[r].in, &rend[r].read_fmt, &fmt) < 0) goto end;

    /* Create the outputs early, so a bad path fails before the scoring; none
     * that would write over an input or another output. */
    const char *out_path[PSNRHVS_MAX_RENDITIONS], *plot_path[PSNRHVS_MAX_RENDITIONS];
    NamedFile outs[2 * PSNRHVS_MAX_RENDITIONS], ins[1 + PSNRHVS_MAX_RENDITIONS];
    int nout = 0, nin = 0;
    ins[nin++] = (NamedFile){cli.reference, "the reference"};
    for (int r = 0; r < n; r++) {
        ins[nin++] = (NamedFile){cli.dists[r], "the distorted"};
        out_path[r] = ladder            ? (cli.output ? rend[r].out_name : NULL)
                      : cli.output      ? cli.output
                      : cli.format >= 0 ? "-"
                                        : NULL;
        plot_path[r] = ladder ? (cli.plot ? rend[r].plot_name : NULL) : cli.plot;
        if (out_path[r]) outs[nout++] = (NamedFile){out_path[r], "output file"};
        if (plot_path[r]) outs[nout++] = (NamedFile){plot_path[r], "plot file"};
    }
    char why[8192];
    if (output_check_clobber(outs, nout, ins, nin, why, sizeof(why)) < 0) {
        fprintf(cli_err(), "psnrhvs: %s\n", why);
        goto end;
    }
    for (int r = 0; r < n; r++) {
        /* -o DIR/ (--plot DIR/) of a ladder: the folder is made. */
        const int out_dir = ladder && out_path[r] && cli.output[strlen(cli.output) - 1] == '/';
        const int plot_dir = ladder && plot_path[r] && cli.plot[strlen(cli.plot) - 1] == '/';
        if (out_dir) note_missing_dir(&made[0], out_path[r]);
        if (plot_dir) note_missing_dir(&made[1], plot_path[r]);
        if ((out_dir && output_make_parents(out_path[r], why, sizeof(why))) ||
            (plot_dir && output_make_parents(plot_path[r], why, sizeof(why)))) {
            fprintf(cli_err(), "psnrhvs: %s\n", why);
            goto end;
        }
        if (out_path[r] && output_open(&rend[r].of, out_path[r]) < 0) goto end;
        if (plot_path[r] && output_open(&rend[r].plot_of, plot_path[r]) < 0) goto end;
    }

    /* Mapped files cut short under us: an error, not a SIGBUS (after the
     * outputs' handlers, which it passes other SIGBUS on to). */
    input_guard_mappings();

    lib.width = fmt.width;
    lib.height = fmt.height;
    lib.layout = fmt.layout;
    lib.bitdepth = fmt.bitdepth;
    lib.renditions = n;
    /* Frames that stay where they are in the mapped files until the end: the
     * library may read them after psnrhvs_send() returns, so the CPU backend
     * scores frames in flight without copying them. */
    const int on_gpu = cli.hwaccel && keep_frames_on_gpu(&cli, &lib, ref, rend, n);
    int in_place = input_in_place(ref);
    for (int r = 0; r < n; r++) in_place = in_place && input_in_place(rend[r].in);
    if (in_place && lib.memory == PSNRHVS_MEMORY_HOST) lib.memory = PSNRHVS_MEMORY_HOST_RETAINED;
    /* Every frame read is scored: the library's range check (every backend
     * has one) stands in for the readers' scan of each 16-bit sample. */
    const int defer_range = in_place && !cli.parity && cli.subsample <= 1 && !cli.frame_skip_ref &&
                            !cli.frame_skip_dist;
    if (defer_range) {
        input_defer_range_check(ref);
        for (int r = 0; r < n; r++) input_defer_range_check(rend[r].in);
    }
    apply_cpumask(&cli, &lib, &log);
    const long long total = expected_frames(ref, rend, n, &cli);
    const PairReaderSettings prs = {
        .skip_ref = cli.frame_skip_ref,
        .skip_dist = cli.frame_skip_dist,
        .frame_cnt = cli.frame_cnt,
        .quiet = cli.quiet,
    };
    Input *dists[PSNRHVS_MAX_RENDITIONS];
    for (int r = 0; r < n; r++) dists[r] = rend[r].in;
    if (pair_reader_open_n(&pr, ref, dists, n, &prs) < 0) goto end;
    if (cli.parity) {
        const ParityOptions po = {
            .configs = cli.num_configs ? cli.configs : NULL,
            .num_configs = cli.num_configs,
            .subsample = cli.subsample,
            .quiet = cli.quiet,
        };
        ret = parity_run(&po, &lib, pr);
        goto end;
    }

    /* The frames to score: auto leaves the GPUs closed for a short clip. */
    if (total > 0) lib.frames_hint = ((uint64_t)total + cli.subsample - 1) / cli.subsample;

    /* One context: --device LIST or all lists its devices, else the
     * settings' backend (auto: the CPU and every GPU) say. */
    PsnrHvsDevice devices[PSNRHVS_MAX_DEVICES];
    int num_devices = cli.num_devices;
    if (cli.all_devices) {
        const int found = count_devices(lib.backend);
        if (found <= 0) {
            if (found == PSNRHVS_ERR(ENOSYS))
                fprintf(cli_err(), "psnrhvs: the %s backend is not built into this psnrhvs\n",
                        cli_backend_name(lib.backend));
            else
                fprintf(cli_err(), "psnrhvs: --device all: the %s backend found no device\n",
                        cli_backend_name(lib.backend));
            goto end;
        }
        num_devices = found < PSNRHVS_MAX_DEVICES ? found : PSNRHVS_MAX_DEVICES;
    }
    for (int j = 0; j < num_devices; j++)
        devices[j] = (PsnrHvsDevice){lib.backend, cli.all_devices ? j : cli.devices[j]};
    if (num_devices > 1) lib.num_devices = num_devices, lib.devices = devices;
    /* Device start-up (a GPU context, kernel builds) overlaps reading the
     * first frames: files are read at once; a pipe only once the scorers are
     * open, so a scorer that fails never waits on it. */
    const unsigned log_before = log.count;
    opener = (Opener){.s = lib, .env = e, .log = current_log, .err = cli_err()};
    t_open_start = cli_now();
    opener.started = !cli_thread_start(&opener.thread, open_context, &opener);
    if (!opener.started) open_context(&opener);
    if (all_files && pair_reader_start(pr) < 0) {
        fprintf(cli_err(), "psnrhvs: %s\n", pair_reader_error(pr));
        goto end;
    }
    if (opener.started) pthread_join(opener.thread, NULL);
    opener.started = 0;
    sc.ctx = opener.ctx;
    opener.ctx = NULL;
    if (!sc.ctx && log.count == log_before)
        report_open_error(opener.res ? opener.res : PSNRHVS_ERR(ENODEV), &opener.s);
    if (defer_range || on_gpu) {
        sc.ring_size = PSNRHVS_MAX_FRAMES_IN_FLIGHT + 1;
        if (!(sc.ring = calloc(sc.ring_size, sizeof(*sc.ring)))) {
            fprintf(cli_err(), "psnrhvs: out of memory\n");
            goto end;
        }
        sc.defer = defer_range;
        sc.holds = on_gpu;
        sc.ref_in = ref;
        for (int r = 0; r < n; r++) sc.dist_in[r] = rend[r].in;
    }
    if (!sc.ctx) goto end;
    sc.renditions = n;
    if (total > 0) /* a quarter and five eighths in: 120 and 300 of 480 */
        sc.mark[0] = (uint64_t)total / 4, sc.mark[1] = (uint64_t)total * 5 / 8;

    const int show_progress = !cli.quiet && isatty(fileno(stderr));
    if (e->progress) e->progress(e->cookie, 0, total);
    const double start = cli_now();
    double last_progress = start;
    unsigned idx = 0;
    FramePair fp;
    int read_res;
    double wait_s = 0, t_wait = cli_now();
    while ((read_res = pair_reader_next(pr, &fp)) > 0) {
        wait_s += cli_now() - t_wait;
        if (!t_first_frame) t_first_frame = cli_now();
        idx = fp.idx;
        /* Keep frames in flight: send until the queue is full, then take the oldest. */
        if (idx % cli.subsample == 0 && score_send(&sc, &fp, rend, &log) < 0) goto end;
        if (mapping_lost(ref, rend, n)) goto end;
        pair_reader_release(pr);
        idx++;
        if (e->cancel && *e->cancel) {
            fprintf(cli_err(), "psnrhvs: interrupted\n");
            goto end;
        }
        if (show_progress || e->progress) {
            const double t = cli_now();
            if (t - last_progress >= 0.25) {
                if (show_progress) progress(idx, total, start, 0);
                if (e->progress) e->progress(e->cookie, idx, total);
                last_progress = t;
            }
        }
        t_wait = cli_now();
    }
    /* The frames before a read error are scored first: errors come in frame order. */
    for (;;) {
        const int res = score_receive(&sc, rend, &log);
        if (res == PSNRHVS_ERR(EAGAIN)) break;
        if (res < 0) goto end;
    }
    /* The library read retained frames until now. */
    if (mapping_lost(ref, rend, n)) goto end;
    if (read_res < 0) {
        fprintf(cli_err(), "psnrhvs: %s\n", pair_reader_error(pr));
        goto end;
    }
    const double elapsed = cli_now() - start;
    if (timing) {
        char each[16 * (1 + PSNRHVS_MAX_RENDITIONS)] = "";
        for (int i = 0, k = 0; i <= n && k >= 0 && (size_t)k < sizeof(each); i++)
            k += snprintf(each + k, sizeof(each) - (size_t)k, " %.1f", in_ms[i]);
        fprintf(cli_err(),
                "psnrhvs: timing: inputs and outputs open %.1f ms (each input, at once:%s ms), "
                "scorers open %.1f ms (%s so far, on their thread), first frame read %.1f ms, "
                "first score %.1f ms, all %.1f ms (from start)\n",
                (t_open_start - t0) * 1e3, each, (opener.done - t_open_start) * 1e3,
                psnrhvs_backend_name(sc.ctx), (t_first_frame - t0) * 1e3, (sc.first - t0) * 1e3,
                (cli_now() - t0) * 1e3);
    }
    if (timing) {
        double reading, waiting;
        pair_reader_times(pr, &reading, &waiting);
        fprintf(cli_err(),
                "psnrhvs: timing: frames: waiting for the reader %.1f ms, in send %.1f ms, in "
                "receive %.1f ms; the reader reading %.1f ms, waiting for room %.1f ms\n",
                wait_s * 1e3, sc.send_s * 1e3, sc.recv_s * 1e3, reading * 1e3, waiting * 1e3);
        if (sc.marked[0] > 0 && sc.marked[1] > 0)
            fprintf(cli_err(),
                    "psnrhvs: timing: scores: %llu received at %.1f ms, %llu at %.1f ms, %llu at "
                    "%.1f ms (from start)\n",
                    (unsigned long long)sc.mark[0], (sc.marked[0] - t0) * 1e3,
                    (unsigned long long)sc.mark[1], (sc.marked[1] - t0) * 1e3,
                    (unsigned long long)sc.received, (sc.last - t0) * 1e3);
    }
    if (show_progress && idx) progress(idx, total, start, 1);
    if (e->progress) e->progress(e->cookie, idx, total);
    for (int r = 0; r < n; r++) {
        if (!rend[r].results.num) {
            report_no_frames(ref, rend[r].in, &cli);
            goto end;
        }
    }

    char engine[64];
    const char *const isa = psnrhvs_isa_name(sc.ctx);
    snprintf(engine, sizeof(engine), "%s%s%s", psnrhvs_backend_name(sc.ctx), isa ? ":" : "",
             isa ? isa : "");
    for (int r = 0; r < n; r++)
        if (score_write_rendition(&rend[r], ref, &cli, format, engine, elapsed, ladder) < 0)
            goto end;
    input_mark_scored(ref);
    for (int r = 0; r < n; r++) input_mark_scored(rend[r].in);
    ret = 0;
    /* Done, every output in place, while a GPU still opens (a short run on
     * auto), with a GPU open (its context and pinned memory took 0.12-0.2 s
     * to tear down after a 4K run, run w), or with NVDEC decoders, which
     * take 0.27 s each to destroy on the H200 (run t): the process ends
     * now, and no thread is left in a driver while exit tears the libraries
     * down. Sanitizer builds and --timing runs with NVDEC (the
     * chunks' summary is written at close) close as usual. */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    const int on_device = strcmp(psnrhvs_backend_name(sc.ctx), "cpu") != 0;
    if (!e->keep_process && (psnrhvs_opening(sc.ctx) || (sc.holds ? !timing : on_device))) {
        /* Inputs decoded on the CPU close first: their decoders' last logs
         * (--timing's chunk summary) are written, not cut off. */
        if (!sc.holds) {
            pair_reader_close(&pr);
            input_close(&ref);
            for (int r = 0; r < n; r++) input_close(&rend[r].in);
        }
        if (!fflush(NULL)) _exit(0);
    }
#endif

end:
    for (int r = 0; r < n; r++) {
        output_abort(&rend[r].of);
        output_abort(&rend[r].plot_of);
    }
    remove_made_dir(&made[1], ret != 0);
    remove_made_dir(&made[0], ret != 0);
    if (opener.started) pthread_join(opener.thread, NULL);
    close_context(e, &opener.ctx);
    close_context(e, &sc.ctx);
    /* The contexts are closed: nothing reads the GPU frames still held. */
    for (size_t i = 0; sc.holds && i < sc.ring_size; i++) score_free_holds(&sc.ring[i]);
    free(sc.ring);
    pair_reader_close(&pr);
    input_close(&ref);
    for (int r = 0; r < n; r++) {
        input_close(&rend[r].in);
        free(rend[r].results.frames);
    }
    free(rend);
    current_log = outer_log;
    return ret;
}
