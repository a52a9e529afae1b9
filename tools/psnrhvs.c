/*
 * psnrhvs: command-line tool, main loop and progress.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "psnrhvs.h"
#include "cli_parse.h"
#include "input/input.h"
#include "input/pair_reader.h"
#include "output/output.h"
#include "parity.h"
#include "batch.h"
#include "report.h"

typedef struct LogState {
    unsigned count;
    int mute; ///< a probe whose failure is expected: count, do not print
} LogState;

/* Library messages explain failures; count them so we do not add a second line. */
static void log_message(void *const cookie, const char *const msg) {
    LogState *const log = cookie;
    log->count++;
    if (!log->mute) fprintf(stderr, "psnrhvs: %s\n", msg);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *backend_tbl_name(const enum PsnrHvsBackend b) {
    switch (b) {
    case PSNRHVS_BACKEND_AUTO:
        return "auto";
    case PSNRHVS_BACKEND_CPU:
        return "cpu";
    case PSNRHVS_BACKEND_CUDA:
        return "cuda";
    case PSNRHVS_BACKEND_OPENCL:
        return "opencl";
    case PSNRHVS_BACKEND_HIP:
        return "hip";
    case PSNRHVS_BACKEND_SYCL:
        return "sycl";
    }
    return "?";
}

static int list_devices(const int verbose) {
    static const enum PsnrHvsBackend backends[] = {
        PSNRHVS_BACKEND_CPU, PSNRHVS_BACKEND_CUDA, PSNRHVS_BACKEND_OPENCL,
        PSNRHVS_BACKEND_HIP, PSNRHVS_BACKEND_SYCL,
    };
    static char buf[65536];
    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
        const enum PsnrHvsBackend b = backends[i];
        if (!psnrhvs_backend_available(b)) {
            printf("%s: not built in\n", backend_tbl_name(b));
            continue;
        }
        buf[0] = '\0';
        const int res = psnrhvs_list_devices(b, verbose, buf, sizeof(buf));
        if (res == PSNRHVS_ERR(ENODEV)) {
            printf("%s: no device\n", backend_tbl_name(b));
        } else if (res < 0) {
            printf("%s: cannot list devices: %s\n", backend_tbl_name(b), strerror(-res));
        } else {
            printf("%s:\n", backend_tbl_name(b));
            /* one device per line, indented */
            for (char *line = buf, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next) *next++ = '\0';
                printf("  %s\n", line);
            }
        }
    }
    return ferror(stdout) ? 1 : 0;
}

/* A Y4M header or a decoded stream wins over nothing, but -w/-h/-p/-b given on
 * the command line must agree with it, unless --scale (size) or
 * --common_bitdepth (depth) lets the sides differ: the flags then describe the
 * raw side. */
static int check_cli_agrees(const CLISettings *const cli, const InputFormat *const fmt,
                            const Input *const in) {
    const char *const name = psnrhvs_input_name(in);
    const char *const what = psnrhvs_input_decoded(in) ? "the decoded video" : "the Y4M header";
    if (cli->width && cli->width != fmt->width && !cli->scale_algo) {
        fprintf(stderr, "psnrhvs: --width %d does not match %s of %s (W%d)\n", cli->width, what,
                name, fmt->width);
        return -1;
    }
    if (cli->height && cli->height != fmt->height && !cli->scale_algo) {
        fprintf(stderr, "psnrhvs: --height %d does not match %s of %s (H%d)\n", cli->height, what,
                name, fmt->height);
        return -1;
    }
    if (cli->have_layout && cli->layout != fmt->layout) {
        fprintf(stderr, "psnrhvs: --pixel_format %s does not match %s of %s (%s)\n",
                psnrhvs_layout_name(cli->layout), what, name, psnrhvs_layout_name(fmt->layout));
        return -1;
    }
    if (cli->bitdepth && cli->bitdepth != fmt->bitdepth && !cli->common_bitdepth) {
        fprintf(stderr, "psnrhvs: --bitdepth %d does not match %s of %s (%d-bit)\n", cli->bitdepth,
                what, name, fmt->bitdepth);
        return -1;
    }
    return 0;
}

/* A raw side: the other side's format, with the flags given on the command line. */
static InputFormat raw_side(const CLISettings *const cli, const InputFormat *const other) {
    InputFormat f = *other;
    if (cli->width) f.width = cli->width;
    if (cli->height) f.height = cli->height;
    if (cli->have_layout) f.layout = cli->layout;
    if (cli->bitdepth) f.bitdepth = cli->bitdepth;
    return f;
}

/*
 * The format scored (out) and the formats read (rf, df): they differ only
 * where --scale (the distorted, to the reference size) or --common_bitdepth
 * (the lower depth, shifted up) asks.
 * @return 0, 1 (input error, reported) or 2 (usage error, reported)
 */
static int resolve_format(const CLISettings *const cli, Input *const ref, Input *const dist,
                          InputFormat *const out, InputFormat *const rf_out,
                          InputFormat *const df_out) {
    InputFormat rf, df;
    const int ref_has = psnrhvs_input_has_format(ref, &rf);
    const int dist_has = psnrhvs_input_has_format(dist, &df);
    if (ref_has && check_cli_agrees(cli, &rf, ref) < 0) return 1;
    if (dist_has && check_cli_agrees(cli, &df, dist) < 0) return 1;
    if (!ref_has && !dist_has) {
        if (!cli->width || !cli->height) {
            fprintf(stderr, "psnrhvs: raw input needs --width and --height (or use Y4M files) "
                            "(see psnrhvs --help)\n");
            return 2;
        }
        rf = (InputFormat){
            .width = cli->width,
            .height = cli->height,
            .layout = cli->have_layout ? cli->layout : PSNRHVS_PIXEL_LAYOUT_I420,
            .bitdepth = cli->bitdepth ? cli->bitdepth : 8,
        };
        df = rf;
    } else if (!ref_has) {
        rf = raw_side(cli, &df); /* raw side takes the other side's geometry */
    } else if (!dist_has) {
        df = raw_side(cli, &rf);
    }

    const char *const rn = psnrhvs_input_name(ref), *const dn = psnrhvs_input_name(dist);
    if ((rf.width != df.width || rf.height != df.height) && !cli->scale_algo) {
        fprintf(stderr,
                "psnrhvs: reference and distorted differ in size: %dx%d (%s) vs %dx%d (%s); "
                "use --scale to scale the distorted to the reference size\n",
                rf.width, rf.height, rn, df.width, df.height, dn);
        return 1;
    }
    if (rf.layout != df.layout) {
        fprintf(stderr,
                "psnrhvs: reference and distorted differ in pixel format: %s (%s) vs %s (%s)\n",
                psnrhvs_layout_name(rf.layout), rn, psnrhvs_layout_name(df.layout), dn);
        return 1;
    }
    if (rf.bitdepth != df.bitdepth && !cli->common_bitdepth) {
        fprintf(stderr,
                "psnrhvs: reference and distorted differ in bit depth: %d (%s) vs %d (%s); "
                "use --common_bitdepth to shift the %d-bit side up to %d bits\n",
                rf.bitdepth, rn, df.bitdepth, dn,
                rf.bitdepth < df.bitdepth ? rf.bitdepth : df.bitdepth,
                rf.bitdepth > df.bitdepth ? rf.bitdepth : df.bitdepth);
        return 1;
    }
    *out = rf;
    if (df.bitdepth > out->bitdepth) out->bitdepth = df.bitdepth;
    *rf_out = rf;
    *df_out = df;
    return 0;
}

/* psnr_hvs has no block in a plane under 8x8; libvmaf would print NaN. */
static int check_plane_sizes(const InputFormat *const fmt, const int enable_chroma) {
    PlaneGeometry g;
    if (psnrhvs_plane_geometry(fmt, &g) < 0) {
        fprintf(stderr, "psnrhvs: invalid frame size %dx%d\n", fmt->width, fmt->height);
        return -1;
    }
    if (g.scored_w[0] < 8 || g.scored_h[0] < 8) {
        fprintf(stderr,
                "psnrhvs: frame size %dx%d is smaller than 8x8: psnr_hvs has no block to score\n",
                fmt->width, fmt->height);
        return -1;
    }
    if (enable_chroma && g.num_planes == 3 && (g.scored_w[1] < 8 || g.scored_h[1] < 8)) {
        fprintf(stderr,
                "psnrhvs: chroma planes of %dx%d %s are %dx%d, smaller than 8x8: psnr_hvs has no "
                "block to score in them; use --feature psnr_hvs=enable_chroma=false to score "
                "luma only\n",
                fmt->width, fmt->height, psnrhvs_layout_name(fmt->layout), g.scored_w[1],
                g.scored_h[1]);
        return -1;
    }
    return 0;
}

static void report_open_error(const int res, const PsnrHvsSettings *const s) {
    switch (res) {
    case PSNRHVS_ERR(ENOSYS):
        fprintf(stderr, "psnrhvs: the %s backend is not built into this psnrhvs\n",
                backend_tbl_name(s->backend));
        break;
    case PSNRHVS_ERR(ENODEV):
        fprintf(stderr, "psnrhvs: the %s backend found no device %d\n",
                backend_tbl_name(s->backend), s->device);
        break;
    case PSNRHVS_ERR(ERANGE):
        fprintf(stderr, "psnrhvs: a plane to score is smaller than 8x8\n");
        break;
    default:
        fprintf(stderr, "psnrhvs: cannot open the scorer: %s\n", strerror(-res));
        break;
    }
}

typedef struct Results {
    OutputFrame *frames;
    size_t num, cap;
} Results;

static int results_reserve(Results *const r, const size_t n) {
    if (n <= r->cap) return 0;
    size_t cap = r->cap ? r->cap * 2 : 64;
    while (cap < n) cap *= 2;
    OutputFrame *const f = realloc(r->frames, cap * sizeof(*f));
    if (!f) {
        fprintf(stderr, "psnrhvs: out of memory\n");
        return -1;
    }
    r->frames = f;
    r->cap = cap;
    return 0;
}

static int receive_one(PsnrHvsContext *const ctx, Results *const r, LogState *const log) {
    PsnrHvsScore score;
    const unsigned before = log->count;
    const int res = psnrhvs_receive(ctx, &score);
    if (res < 0) {
        if (res != PSNRHVS_ERR(EAGAIN) && log->count == before)
            fprintf(stderr, "psnrhvs: scoring failed: %s\n", strerror(-res));
        return res;
    }
    /* Room was reserved before the send. */
    r->frames[r->num].frame_num = (unsigned)score.tag;
    r->frames[r->num].score = score;
    r->num++;
    return 0;
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
    const double elapsed = now_seconds() - start;
    const double fps = elapsed > 0 ? frames / elapsed : 0.0;
    char t[32];
    if (final)
        fprintf(stderr, "\rpsnrhvs: %u frames, %.1f fps, %s\033[K\n", frames, fps,
                clock_time(t, sizeof(t), elapsed));
    else if (total >= (long long)frames && fps > 0)
        fprintf(stderr, "\rpsnrhvs: frame %u/%lld, %.1f fps, ETA %s\033[K", frames, total, fps,
                clock_time(t, sizeof(t), (double)(total - (long long)frames) / fps));
    else
        fprintf(stderr, "\rpsnrhvs: frame %u, %.1f fps\033[K", frames, fps);
    fflush(stderr);
}

/* The pairs to expect: the smallest bound known (file sizes, --frame_cnt), or -1. */
static long long expected_frames(Input *const ref, Input *const dist,
                                 const CLISettings *const cli) {
    long long total = cli->frame_cnt ? (long long)cli->frame_cnt : -1;
    const long long left[2] = {psnrhvs_input_frames_left(ref), psnrhvs_input_frames_left(dist)};
    const unsigned skip[2] = {cli->frame_skip_ref, cli->frame_skip_dist};
    for (int i = 0; i < 2; i++) {
        if (left[i] < 0) continue;
        const long long n = left[i] > (long long)skip[i] ? left[i] - (long long)skip[i] : 0;
        if (total < 0 || n < total) total = n;
    }
    return total;
}

/* One line: which side had no frame to pair (after its skip). */
static void report_no_frames(Input *const ref, Input *const dist, const CLISettings *const cli) {
    const int ref_none = psnrhvs_input_frames_read(ref) <= cli->frame_skip_ref;
    const int dist_none = psnrhvs_input_frames_read(dist) <= cli->frame_skip_dist;
    const char *const rn = psnrhvs_input_name(ref), *const dn = psnrhvs_input_name(dist);
    if (ref_none && dist_none && strcmp(rn, dn))
        fprintf(stderr, "psnrhvs: no frames to score: neither %s nor %s has a frame%s\n", rn, dn,
                cli->frame_skip_ref || cli->frame_skip_dist ? " after skipping" : "");
    else if (ref_none || dist_none)
        fprintf(stderr, "psnrhvs: no frames to score: %s has no frame%s\n", ref_none ? rn : dn,
                (ref_none ? cli->frame_skip_ref : cli->frame_skip_dist) ? " after skipping" : "");
    else
        fprintf(stderr, "psnrhvs: no frames to score\n");
}

/*
 * vmaf's --cpumask turns instruction sets off; psnrhvs's settings say which
 * one to use: no AVX2 leaves the scalar path (both SIMD kernels need AVX2),
 * no AVX-512 leaves AVX2 where the CPU has it. The scores are the same bits
 * either way; only the speed changes. SSE and AVX512ICL bits change nothing:
 * psnrhvs has no kernels for them.
 */
static void apply_cpumask(const CLISettings *const cli, PsnrHvsSettings *const lib,
                          LogState *const log) {
    if (!cli->have_cpumask || cli->have_isa) return; /* an explicit --isa was checked at parsing */
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

int main(const int argc, char *const *const argv) {
    CLISettings cli;
    PsnrHvsSettings lib;
    LogState log = {0};
    /* Subcommands with flags of their own. */
    if (argc > 1 && !strcmp(argv[1], "batch"))
        return psnrhvs_batch_main(argc - 1, argv + 1, argv[0]);
    if (argc > 1 && !strcmp(argv[1], "report")) return psnrhvs_report_main(argc - 1, argv + 1);
    psnrhvs_default_settings(&lib);
    lib.logger.cookie = &log;
    lib.logger.callback = log_message;
    psnrhvs_cli_parse(argc, argv, &cli, &lib);
    if (cli.list_devices) return list_devices(cli.verbose);

    int ret = 1;
    Input *ref = NULL, *dist = NULL;
    OutputFile *of = NULL, *plot_of = NULL;
    PsnrHvsContext *ctx = NULL;
    PairReader *pr = NULL;
    Results results = {0};
    InputFormat fmt, ref_fmt, dist_fmt;

    /* Compressed inputs (FFmpeg): only the distorted is ever scaled. */
    InputOptions iopt = {.hwaccel = cli.hwaccel, .hw_device = lib.device, .quiet = cli.quiet};
    if (psnrhvs_input_open2(&ref, cli.reference, &iopt) < 0) goto end;
    iopt.scale_algo = cli.scale_algo;
    if (psnrhvs_input_open2(&dist, cli.distorted, &iopt) < 0) goto end;
    psnrhvs_input_set_role(ref, "reference");
    psnrhvs_input_set_role(dist, "distorted");
    if (cli.hwaccel && !cli.quiet && !psnrhvs_input_decoded(ref) && !psnrhvs_input_decoded(dist))
        fprintf(stderr, "psnrhvs: warning: --hwaccel has no effect: no input is compressed\n");
    const int fmt_res = resolve_format(&cli, ref, dist, &fmt, &ref_fmt, &dist_fmt);
    if (fmt_res) {
        ret = fmt_res;
        goto end;
    }
    if (check_plane_sizes(&fmt, lib.enable_chroma) < 0) goto end;
    if (psnrhvs_input_set_formats(ref, &ref_fmt, &fmt) < 0 ||
        psnrhvs_input_set_formats(dist, &dist_fmt, &fmt) < 0)
        goto end;

    /* Create the output early, so a bad path fails before the scoring. */
    const char *const out_path = cli.output ? cli.output : cli.muxer ? "-" : NULL;
    const Muxer *const muxer = cli.muxer ? cli.muxer : &psnrhvs_muxer_xml;
    if (out_path && psnrhvs_output_open(&of, out_path) < 0) goto end;
    if (cli.plot && psnrhvs_output_open(&plot_of, cli.plot) < 0) goto end;

    lib.width = fmt.width;
    lib.height = fmt.height;
    lib.layout = fmt.layout;
    lib.bitdepth = fmt.bitdepth;
    apply_cpumask(&cli, &lib, &log);
    const long long total = expected_frames(ref, dist, &cli);
    const PairReaderSettings prs = {
        .skip_ref = cli.frame_skip_ref,
        .skip_dist = cli.frame_skip_dist,
        .frame_cnt = cli.frame_cnt,
        .quiet = cli.quiet,
        /* An encode with a frame more or less is misaligned: an error, not a warning. */
        .strict_length = psnrhvs_input_decoded(ref) || psnrhvs_input_decoded(dist),
    };
    if (psnrhvs_pair_reader_open(&pr, ref, dist, &prs) < 0) goto end;
    if (cli.parity) {
        const ParityOptions po = {
            .configs = cli.num_configs ? cli.configs : NULL,
            .num_configs = cli.num_configs,
            .subsample = cli.subsample,
            .quiet = cli.quiet,
        };
        ret = psnrhvs_parity_run(&po, &lib, pr);
        goto end;
    }
    const unsigned log_before = log.count;
    const int open_res = psnrhvs_open(&ctx, &lib);
    if (open_res < 0) {
        if (log.count == log_before) report_open_error(open_res, &lib);
        goto end;
    }

    const int show_progress = !cli.quiet && isatty(fileno(stderr));
    const int batch_fd = psnrhvs_batch_child_fd(); /* a job of psnrhvs batch */
    if (batch_fd >= 0) psnrhvs_batch_child_progress(batch_fd, 0, total);
    const double start = now_seconds();
    double last_progress = start;
    unsigned idx = 0;
    size_t sent = 0;
    FramePair fp;
    int read_res;
    while ((read_res = psnrhvs_pair_reader_next(pr, &fp)) > 0) {
        idx = fp.idx;
        if (idx % cli.subsample == 0) {
            if (results_reserve(&results, sent + 1) < 0) goto end;
            /* Keep frames in flight: send until the queue is full, then take the oldest. */
            for (;;) {
                const unsigned before = log.count;
                const int res = psnrhvs_send(ctx, fp.ref, fp.dist, idx);
                if (!res) break;
                if (res != PSNRHVS_ERR(EAGAIN)) {
                    if (log.count == before)
                        fprintf(stderr, "psnrhvs: scoring frame %u failed: %s\n", idx,
                                strerror(-res));
                    goto end;
                }
                const int rres = receive_one(ctx, &results, &log);
                if (rres == PSNRHVS_ERR(EAGAIN)) {
                    fprintf(stderr, "psnrhvs: the scorer is full with nothing queued\n");
                    goto end;
                }
                if (rres < 0) goto end;
            }
            sent++;
        }
        psnrhvs_pair_reader_release(pr);
        idx++;
        if (show_progress || batch_fd >= 0) {
            const double t = now_seconds();
            if (t - last_progress >= 0.25) {
                if (show_progress) progress(idx, total, start, 0);
                if (batch_fd >= 0) psnrhvs_batch_child_progress(batch_fd, idx, total);
                last_progress = t;
            }
        }
    }
    /* The frames before a read error are scored first: errors come in frame order. */
    for (;;) {
        const int res = receive_one(ctx, &results, &log);
        if (res == PSNRHVS_ERR(EAGAIN)) break;
        if (res < 0) goto end;
    }
    if (read_res < 0) {
        fprintf(stderr, "psnrhvs: %s\n", psnrhvs_pair_reader_error(pr));
        goto end;
    }
    const double elapsed = now_seconds() - start;
    if (show_progress && idx) progress(idx, total, start, 1);
    if (batch_fd >= 0) psnrhvs_batch_child_progress(batch_fd, idx, total);
    if (!results.num) {
        report_no_frames(ref, dist, &cli);
        goto end;
    }

    char version[64];
    snprintf(version, sizeof(version), "psnrhvs-%s", psnrhvs_version());
    PsnrHvsScore first = results.frames[0].score;
    char engine[64];
    const char *const isa = psnrhvs_isa_name(ctx);
    snprintf(engine, sizeof(engine), "%s%s%s", psnrhvs_backend_name(ctx), isa ? ":" : "",
             isa ? isa : "");
    OutputData data = {
        .version = version,
        .engine = engine,
        .width = fmt.width,
        .height = fmt.height,
        .fps = elapsed > 0 ? (double)results.num / elapsed : 0.0,
        .num_planes = first.num_planes == 1 ? 1 : 3,
        .frames = results.frames,
        .num_frames = results.num,
        .precision = cli.precision,
        .raw = cli.raw,
    };
    psnrhvs_output_pool(&data);
    /* The plot first: a complete output then means a complete plot (batch's resume). */
    if (plot_of) {
        ScoreSet plot_scores;
        if (psnrhvs_scores_from_output(&plot_scores, &data) < 0) {
            fprintf(stderr, "psnrhvs: out of memory\n");
            goto end;
        }
        char title[512];
        const char *const dn = psnrhvs_input_name(dist), *const rn = psnrhvs_input_name(ref);
        const char *const ds = strrchr(dn, '/'), *const rs = strrchr(rn, '/');
        snprintf(title, sizeof(title), "%s vs %s", ds ? ds + 1 : dn, rs ? rs + 1 : rn);
        const PlotData pd = {.scores = &plot_scores, .title = title};
        const int pres = psnrhvs_output_commit_with(&plot_of, psnrhvs_plot_write, &pd);
        psnrhvs_scores_free(&plot_scores);
        if (pres < 0) goto end;
    }
    if (of) {
        if (psnrhvs_output_commit(&of, muxer, &data) < 0) goto end;
    } else if (psnrhvs_output_summary(stdout, &data) < 0 || fflush(stdout)) {
        fprintf(stderr, "psnrhvs: cannot write to stdout\n");
        goto end;
    }
    ret = 0;

end:
    psnrhvs_output_abort(&of);
    psnrhvs_output_abort(&plot_of);
    if (ctx) psnrhvs_close(&ctx);
    psnrhvs_pair_reader_close(&pr);
    psnrhvs_input_close(&ref);
    psnrhvs_input_close(&dist);
    free(results.frames);
    return ret;
}
