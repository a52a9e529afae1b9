/*
 * psnrhvs: `psnrhvs batch JOBS.csv`: the command. Each job is the score
 * command with the job's flags (score.c), so it does exactly what `psnrhvs -r
 * REF -d DIST ... -o OUT` does (its output written through outfile.c: a
 * temporary file renamed into place); a bad input fails its job only. Here:
 * the options, the checks before any job runs, the signals, the summary.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "psnrhvs.h"
#include "batch.h"
#include "batch_int.h"
#include "output/output.h"

volatile sig_atomic_t batch_interrupted;

static void on_interrupt(const int sig) {
    batch_interrupted = sig;
}

static int pipe_cloexec(int fds[2]) {
    if (pipe(fds)) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

/* ---- the command ---- */

static void help(void) {
    printf("Usage: psnrhvs batch [options] JOBS.csv\n"
           "Run the scoring jobs of JOBS.csv (one a row, a header row naming the columns) on\n"
           "every core and GPU. Each job is a `psnrhvs -r REF -d DIST ... -o OUTPUT` run; a\n"
           "job whose output is already complete is skipped, so a rerun after a crash\n"
           "resumes. Columns: reference, distorted, output (required); id, format\n"
           "(xml, json, csv, sub; default from the output's extension, else xml), plot,\n"
           "backend, device, threads; width, height, pixel_format, bitdepth, frame_cnt,\n"
           "frame_skip_ref, frame_skip_dist, subsample, feature, enable_chroma,\n"
           "mask_product, isa, precision, raw, cpumask, gpumask, aom_ctc, no_prediction (as\n"
           "the flags of the same names); args (more flags, split at spaces). Relative paths\n"
           "are relative to the folder of JOBS.csv.\n"
           "\n"
           " -j, --jobs N              CPU jobs at once, at most (default: as the cores allow)\n"
           "     --threads N           threads of each CPU job (default: the free cores shared\n"
           "                           among the jobs waiting, at least 1)\n"
           "     --gpus LIST           auto (default: the GPUs backend auto uses, as\n"
           "                           --list-devices shows), none, or\n"
           "                           BACKEND:DEVICE,... (cuda:0,cuda:1,opencl:0); one job\n"
           "                           (and its jobs at once: --gpu-jobs)\n"
           "     --gpu-threads N       threads feeding each GPU (default: the cores shared\n"
           "                           among the GPUs, at most 16); the rest run CPU jobs\n"
           "     --gpu-jobs N          jobs at once on each GPU (default 5: some start or\n"
           "                           end while the others stream)\n"
           "     --cores N             the CPU budget (default: the cores this process may use)\n"
           "     --summary FILE        the summary table (default: JOBS.summary.csv)\n"
           "     --force               run every job, complete outputs too\n"
           " -q, --quiet               no progress line, no warnings\n"
           "     --help                this text\n"
           "Exit status: 0 every job done or skipped, 1 a job failed, 2 a usage error.\n");
}

enum {
    ARG_THREADS = 256,
    ARG_GPUS,
    ARG_GPU_THREADS,
    ARG_GPU_JOBS,
    ARG_CORES,
    ARG_SUMMARY,
    ARG_FORCE,
    ARG_HELP
};

static const struct option batch_opts[] = {
    {"jobs", required_argument, NULL, 'j'},
    {"threads", required_argument, NULL, ARG_THREADS},
    {"gpus", required_argument, NULL, ARG_GPUS},
    {"gpu-threads", required_argument, NULL, ARG_GPU_THREADS},
    {"gpu-jobs", required_argument, NULL, ARG_GPU_JOBS},
    {"cores", required_argument, NULL, ARG_CORES},
    {"summary", required_argument, NULL, ARG_SUMMARY},
    {"force", no_argument, NULL, ARG_FORCE},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, ARG_HELP},
    {NULL, 0, NULL, 0},
};

/* The options that are not fields of Batch. */
typedef struct BatchOptions {
    const char *gpus, *summary;
    int cores, gpu_threads, gpu_jobs;
} BatchOptions;

/* The options and the jobs file's name (b->jobs_path). */
static void parse_batch_options(const int argc, char *const *const argv, Batch *const b,
                                BatchOptions *const opt) {
    opterr = 0;
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, ":j:q", batch_opts, NULL)) != -1) {
        switch (o) {
        case 'j':
            if (batch_parse_int(optarg, 1, 4096, &b->max_cpu_jobs) < 0)
                batch_usage_error("invalid --jobs '%s': expected an integer from 1 to 4096",
                                  optarg);
            break;
        case ARG_THREADS:
            if (batch_parse_int(optarg, 0, 1024, &b->threads) < 0)
                batch_usage_error("invalid --threads '%s': expected an integer from 0 to 1024",
                                  optarg);
            break;
        case ARG_GPUS:
            opt->gpus = optarg;
            break;
        case ARG_GPU_THREADS:
            if (batch_parse_int(optarg, 1, 1024, &opt->gpu_threads) < 0)
                batch_usage_error("invalid --gpu-threads '%s': expected an integer from 1 to 1024",
                                  optarg);
            break;
        case ARG_GPU_JOBS:
            if (batch_parse_int(optarg, 1, 64, &opt->gpu_jobs) < 0)
                batch_usage_error("invalid --gpu-jobs '%s': expected an integer from 1 to 64",
                                  optarg);
            break;
        case ARG_CORES:
            if (batch_parse_int(optarg, 1, 1024, &opt->cores) < 0)
                batch_usage_error("invalid --cores '%s': expected an integer from 1 to 1024",
                                  optarg);
            break;
        case ARG_SUMMARY:
            opt->summary = optarg;
            break;
        case ARG_FORCE:
            b->force = 1;
            break;
        case 'q':
            b->quiet = 1;
            break;
        case ARG_HELP:
            help();
            exit(0);
        case ':':
            batch_usage_error("option %s needs a value", argv[optind - 1]);
            break;
        default:
            batch_usage_error("unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc) batch_usage_error("no jobs file given");
    if (optind + 1 < argc) batch_usage_error("unexpected argument '%s'", argv[optind + 1]);
    b->jobs_path = argv[optind];
    if (!strcmp(b->jobs_path, "-") && !opt->summary)
        batch_usage_error("jobs from stdin ('-') need --summary FILE");
}

/* Relative paths in the jobs file are relative to its folder. */
static void set_base_dir(Batch *const b) {
    if (!strcmp(b->jobs_path, "-")) return;
    const char *const slash = strrchr(b->jobs_path, '/');
    if (slash) {
        const size_t len = slash == b->jobs_path ? 1 : (size_t)(slash - b->jobs_path);
        b->base_dir = batch_xmalloc(len + 1);
        memcpy(b->base_dir, b->jobs_path, len);
        b->base_dir[len] = '\0';
    }
}

/* --summary, else jobs.csv -> jobs.summary.csv, beside it. */
static char *make_summary_path(const Batch *const b, const char *const summary) {
    if (summary) return batch_xstrdup(summary);
    const char *const slash = strrchr(b->jobs_path, '/');
    const char *const dot = strrchr(b->jobs_path, '.');
    const size_t stem = dot && (!slash || dot > slash + 1) && !strcasecmp(dot, ".csv")
                            ? (size_t)(dot - b->jobs_path)
                            : strlen(b->jobs_path);
    return batch_xprintf("%.*s.summary.csv", (int)stem, b->jobs_path);
}

static void check_summary_not_output(const Batch *const b, const char *const summary_path) {
    for (int i = 0; i < b->num_jobs; i++)
        if (!strcmp(b->jobs[i].output, summary_path) ||
            (b->jobs[i].plot && !strcmp(b->jobs[i].plot, summary_path)))
            batch_usage_error("%s is both the summary and the output of job %s", summary_path,
                              b->jobs[i].id);
}

/* The CPU budget, and the part of it that feeds the GPUs. */
static void share_cores(Batch *const b, const BatchOptions *const opt) {
    b->cores = opt->cores ? opt->cores : psnrhvs_cpu_count();
    /* A GPU fed by the cores scores 1080p ten times faster than they do
     * (bench/RESULTS.md): the cores go to the GPUs first, up to what one
     * GPU's packing uses. */
    b->gpu_cores = opt->gpu_threads ? opt->gpu_threads : b->num_gpus ? b->cores / b->num_gpus : 1;
    if (!opt->gpu_threads && b->gpu_cores > 16) b->gpu_cores = 16;
    if (b->gpu_cores < 1) b->gpu_cores = 1;
    if (b->gpu_cores > b->cores) b->gpu_cores = b->cores;
    b->gpu_jobs = opt->gpu_jobs;
    b->tty = !b->quiet && isatty(STDERR_FILENO);
}

static void catch_stop_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < 3; i++) {
        struct sigaction old;
        /* one inherited as ignored (nohup) stays ignored */
        if (!sigaction(stop_signals[i], NULL, &old) && old.sa_handler == SIG_IGN) continue;
        sigaction(stop_signals[i], &sa, NULL);
    }
}

/* What --gpus gave: with auto, the GPUs --list-devices says auto uses. */
static void print_start_line(const Batch *const b) {
    fprintf(stderr, "psnrhvs: batch: %d job%s, %d cores, GPUs:", b->num_jobs,
            b->num_jobs == 1 ? "" : "s", b->cores);
    for (int g = 0; g < b->num_gpus; g++)
        fprintf(stderr, "%s %s:%d", g ? "," : "", cli_backend_name(b->gpu[g].backend),
                b->gpu[g].device);
    /* on a terminal, as the progress lines that follow: the rest cleared */
    fprintf(stderr, "%s%s\n", b->num_gpus ? "" : " none", b->tty ? "\x1b[K" : "");
}

/* The summary written; on a stop signal, the process ended by it. */
static int write_summary(Batch *const b, const char *const summary_path, const int failed) {
    OutputFile *of = NULL;
    int ret = failed ? 1 : 0;
    if (output_open(&of, summary_path) < 0 || output_commit_with(&of, batch_summary_write, b) < 0)
        ret = 1;
    if (!b->quiet && !batch_interrupted)
        fprintf(stderr, "psnrhvs: batch: summary in %s\n", summary_path);
    if (batch_interrupted) {
        fprintf(stderr, "psnrhvs: batch: interrupted; the summary is in %s\n", summary_path);
        output_remove_temporaries(); /* a job still blocked ends with the process */
        signal(batch_interrupted, SIG_DFL);
        raise(batch_interrupted);
    }
    return ret;
}

int batch_main(int argc, char *const *argv, const char *const prog) {
    Batch b = {.threads = -1};
    BatchOptions opt = {.gpus = "auto", .gpu_jobs = 5};
    parse_batch_options(argc, argv, &b, &opt);
    set_base_dir(&b);
    char *const summary_path = make_summary_path(&b, opt.summary);
    batch_find_gpus(&b, opt.gpus); /* a bad --gpus is a usage error before the jobs are read */
    batch_load_jobs(&b);
    check_summary_not_output(&b, summary_path);

    batch_check_clobber(&b, summary_path);

    /* A bad summary path fails now, not after the last job. */
    OutputFile *of = NULL;
    if (output_open(&of, summary_path) < 0) return 1;
    output_abort(&of);

    (void)prog;
    share_cores(&b, &opt);

    if (pipe_cloexec(b.done_pipe) || pthread_mutex_init(&b.pool_lock, NULL)) {
        fprintf(stderr, "psnrhvs: batch: %s\n", strerror(errno));
        return 1;
    }
    catch_stop_signals();

    if (!b.quiet) print_start_line(&b);
    const int failed = batch_run(&b);
    if (!b.quiet) batch_draw(&b, 1);

    const int ret = write_summary(&b, summary_path, failed);
    for (int i = 0; i < b.pool_n; i++) psnrhvs_close(&b.pool[i].ctx);
    batch_free_jobs(&b);
    free(b.base_dir);
    free(summary_path);
    close(b.done_pipe[0]), close(b.done_pipe[1]);
    return ret;
}
