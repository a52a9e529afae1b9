/*
 * psnrhvs: `psnrhvs batch`, inside: the job and the batch, and what one file
 * of it calls in another: jobs.c reads the jobs file, run.c runs the jobs,
 * view.c shows them (progress line, summary table), main.c is the command.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_BATCH_INT_H
#define PSNRHVS_TOOLS_BATCH_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

#include "clock.h"
#include "psnrhvs.h"
#include "cli_parse.h"
#include "output/output.h"

#define MAX_GPU_SLOTS  64
#define MAX_LINE_BYTES 1024
/* Contexts kept open between jobs, at most. */
#define MAX_POOL 32

/* ---- jobs ---- */

enum JobState { JOB_PENDING, JOB_RUNNING, JOB_DONE, JOB_SKIPPED, JOB_FAILED, JOB_NOT_RUN };

typedef struct Job {
    unsigned line; ///< in the jobs file, for messages
    char *id;
    char *reference, *distorted, *output, *plot; ///< as the child gets them
    const char *format;                          ///< xml, json, csv, sub
    char **opts;                                 ///< the job's other CLI flags
    int num_opts, cap_opts;
    enum PsnrHvsBackend backend;
    int any_backend; ///< no backend column (or auto): any GPU, else the CPU
    int device;      ///< -1: any
    int threads;     ///< -1: batch decides

    enum JobState state;
    pthread_t thread;
    int status;       ///< the score command's exit status, once done
    _Atomic int done; ///< the thread has finished (finish_job joins it)
    int gpu_slot;     ///< -1: on the CPU budget
    int cores;        ///< of the budget, while running (its GPU's: 0)
    int threads_used;
    char device_name[32];
    char message[MAX_LINE_BYTES]; ///< the last message line (the error, or a warning)
    char **argv;                  ///< the job's command line, owned
    int argc;
    CLISettings cli;
    PsnrHvsSettings lib;
    struct Batch *batch;
    _Atomic unsigned long long frames;
    _Atomic long long total; ///< expected frames, -1 unknown
    double start, seconds;
    /* read back from the output */
    size_t num_frames;
    int has_key[PSNRHVS_NUM_KEYS];
    PsnrHvsPool pool[PSNRHVS_NUM_KEYS];
} Job;

typedef struct GpuSlot {
    enum PsnrHvsBackend backend;
    int device;
    int running; ///< its jobs now (at most gpu_jobs)
    int cores;   ///< of the budget, held while it runs any job
} GpuSlot;

/* A context kept open for the next job of the same settings. */
typedef struct PoolEntry {
    PsnrHvsSettings key; ///< the settings it was opened with (no logger)
    PsnrHvsDevice devices[PSNRHVS_MAX_DEVICES];
    PsnrHvsContext *ctx;
    int busy;
    double last_used;
} PoolEntry;

typedef struct Batch {
    Job *jobs;
    int num_jobs;
    const char *jobs_path;
    char *base_dir; ///< relative paths are relative to the jobs file
    int cores, cores_used;
    int max_cpu_jobs, cpu_jobs;
    int threads; ///< --threads, -1: shared out
    GpuSlot gpu[MAX_GPU_SLOTS];
    int num_gpus;
    int gpu_cores; ///< threads feeding a GPU (held once for all its jobs)
    int gpu_jobs;  ///< jobs at once on each GPU
    int force, quiet, tty;
    double start, last_draw;
    int drawn; ///< a progress line is on the terminal
    int running, finished;
    Job **run_list; ///< the running jobs (b->running of them), so a long list costs no scans
    int pending, first_pending;
    int done_pipe[2]; ///< a job's thread writes a byte when it ends
    pthread_mutex_t pool_lock;
    PoolEntry pool[MAX_POOL];
    int pool_n;
} Batch;

/* The signal that stops the batch, 0 none (main.c's handler sets it). */
extern volatile sig_atomic_t batch_interrupted;

/* ---- util.c: what every file uses ---- */

/** Seconds on the monotonic clock. */

/** A usage error: one line on stderr, exit status 2. */
void batch_usage_error(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Out of memory ends the process, status 1. */
void *batch_xmalloc(size_t n);
char *batch_xstrdup(const char *s);
char *batch_xprintf(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/** A decimal integer in [min, max], nothing else. @return 0, or -1. */
int batch_parse_int(const char *s, int min, int max, int *out);

/* ---- jobs.c: the jobs file ---- */

/** Read b->jobs_path into b->jobs; a problem is a usage error. */
void batch_load_jobs(Batch *b);

/** A usage error if an output (a job's, a plot, the summary) is an input or
 * the jobs file. */
void batch_check_clobber(const Batch *b, const char *summary);

/** Free the jobs and their strings. */
void batch_free_jobs(Batch *b);

/* ---- run.c: the machine, running and scheduling the jobs ---- */

/** The GPU slots of --gpus (auto, none, BACKEND:N,...). */
void batch_find_gpus(Batch *b, const char *spec);

/** Skip the complete outputs (unless --force), run the rest until done or
 * interrupted. @return the jobs failed or not run. */
int batch_run(Batch *b);

/* ---- view.c: the terminal and the summary ---- */

/** The progress line; final: the last one, with the totals. */
void batch_draw(Batch *b, int final);

/** A line of its own above the progress line. */
void batch_say(Batch *b, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** The summary table of the jobs (cookie: the Batch), for output_commit_with. */
int batch_summary_write(FILE *f, const void *cookie);

#endif /* PSNRHVS_TOOLS_BATCH_INT_H */
