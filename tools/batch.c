/*
 * psnrhvs: `psnrhvs batch JOBS.csv`. Each job is the score command with the
 * job's flags (score.c), so it does exactly what `psnrhvs -r REF -d DIST
 * ... -o OUT` does (its output written through outfile.c: a temporary file
 * renamed into place), on a thread of this process: the contexts a job used
 * stay open for the next job of the same settings (a GPU's is opened once
 * for the batch, not once a job), and a bad input fails its job only. The
 * main thread schedules: one job per GPU, CPU jobs within a budget of cores.
 * SPDX-License-Identifier: BSD-2-Clause
 */
/* sched_getaffinity, CPU_COUNT, open_memstream */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "psnrhvs.h"
#include "batch.h"
#include "input/bitrate.h"
#include "cli_parse.h"
#include "csv.h"
#include "msg.h"
#include "output/output.h"
#include "score.h"
#include "scores.h"
#include "thread.h"

#define MAX_GPU_SLOTS  64
#define MAX_LINE_BYTES 1024
/* Contexts kept open between jobs, at most. */
#define MAX_POOL 32

/* ---- jobs ---- */

enum JobState { JOB_PENDING, JOB_RUNNING, JOB_DONE, JOB_SKIPPED, JOB_FAILED, JOB_NOT_RUN };

static const char *const state_names[] = {"pending", "running", "done",
                                          "skipped", "failed",  "not_run"};

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
    int cores;        ///< of the budget, while running
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
    int has_key[OUTPUT_NUM_KEYS];
    OutputPool pool[OUTPUT_NUM_KEYS];
} Job;

typedef struct GpuSlot {
    enum PsnrHvsBackend backend;
    int device;
    int busy;
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
    int num_gpus, gpu_cores;
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

static volatile sig_atomic_t interrupted;

static void on_interrupt(const int sig) {
    interrupted = sig;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void batch_usage_error(const char *const fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static void batch_usage_error(const char *const fmt, ...) {
    char msg[2048], shown[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* one line, whatever a quoted field of the jobs file holds (UTF-8 names stay) */
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && n + 5 < sizeof(shown); p++)
        if (*p < 0x20 || *p == 0x7f)
            n += (size_t)snprintf(shown + n, sizeof(shown) - n, "\\x%02x", *p);
        else
            shown[n++] = (char)*p;
    shown[n] = '\0';
    fprintf(stderr, "psnrhvs: batch: %s (see psnrhvs batch --help)\n", shown);
    exit(2);
}

static void *xmalloc(const size_t n) {
    void *const p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "psnrhvs: out of memory\n");
        exit(1);
    }
    return p;
}

static char *xstrdup(const char *const s) {
    char *const d = xmalloc(strlen(s) + 1);
    strcpy(d, s);
    return d;
}

static char *xprintf(const char *const fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static char *xprintf(const char *const fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *const s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- the jobs file (CSV records: csv.h) ---- */

enum ColKind {
    COL_ID,
    COL_REFERENCE,
    COL_DISTORTED,
    COL_OUTPUT,
    COL_FORMAT,
    COL_PLOT,
    COL_BACKEND,
    COL_DEVICE,
    COL_THREADS,
    COL_ARGS,
    COL_VALUE,   ///< --NAME VALUE
    COL_FLAG,    ///< --NAME when true
    COL_FEATURE, ///< --feature psnr_hvs=NAME=VALUE
};

static const struct {
    const char *name;
    enum ColKind kind;
} columns[] = {
    {"id", COL_ID},
    {"reference", COL_REFERENCE},
    {"distorted", COL_DISTORTED},
    {"output", COL_OUTPUT},
    {"format", COL_FORMAT},
    {"plot", COL_PLOT},
    {"backend", COL_BACKEND},
    {"device", COL_DEVICE},
    {"threads", COL_THREADS},
    {"args", COL_ARGS},
    {"width", COL_VALUE},
    {"height", COL_VALUE},
    {"pixel_format", COL_VALUE},
    {"bitdepth", COL_VALUE},
    {"frame_cnt", COL_VALUE},
    {"frame_skip_ref", COL_VALUE},
    {"frame_skip_dist", COL_VALUE},
    {"subsample", COL_VALUE},
    {"feature", COL_VALUE},
    {"isa", COL_VALUE},
    {"precision", COL_VALUE},
    {"cpumask", COL_VALUE},
    {"gpumask", COL_VALUE},
    {"aom_ctc", COL_VALUE},
    {"raw", COL_FLAG},
    {"no_prediction", COL_FLAG},
    {"enable_chroma", COL_FEATURE},
    {"mask_product", COL_FEATURE},
};
#define NUM_COLUMNS ((int)(sizeof(columns) / sizeof(columns[0])))

/* Flags batch sets itself: in an args cell they would contradict the columns. */
static const char *const reserved_flags[] = {
    "-r",        "--reference", "-d",        "--distorted", "-o",         "--output",
    "--xml",     "--json",      "--csv",     "--sub",       "-q",         "--quiet",
    "--backend", "--device",    "--threads", "--plot",      "--backends", "--list-devices",
    "--help",    "-v",          "--version", "parity",      "batch",      "report",
};

static void add_opt(Job *const j, const char *const s) {
    if (j->num_opts + 1 >= j->cap_opts) {
        j->cap_opts = j->cap_opts ? j->cap_opts * 2 : 16;
        char **const o = realloc(j->opts, (size_t)j->cap_opts * sizeof(char *));
        if (!o) {
            fprintf(stderr, "psnrhvs: out of memory\n");
            exit(1);
        }
        j->opts = o;
    }
    j->opts[j->num_opts++] = xstrdup(s);
}

static char *resolve_path(const Batch *const b, const char *const path) {
    if (path[0] == '/' || !b->base_dir) return xstrdup(path);
    return xprintf("%s/%s", b->base_dir, path);
}

static int parse_int(const char *const s, const int min, const int max, int *const out) {
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < min || v > max || *s == '+' || *s == ' ') return -1;
    *out = (int)v;
    return 0;
}

static int parse_bool(const char *const s) {
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"", "0", "false", "no", "off"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        if (!strcasecmp(s, yes[i])) return 1;
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (!strcasecmp(s, no[i])) return 0;
    return -1;
}

static const char *format_from_name(const char *const path) {
    const char *const dot = strrchr(path, '.');
    const char *const slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return "xml";
    if (!strcasecmp(dot, ".json")) return "json";
    if (!strcasecmp(dot, ".csv")) return "csv";
    if (!strcasecmp(dot, ".sub")) return "sub";
    return "xml"; /* libvmaf's default */
}

static char *read_all(const char *const path, size_t *const len) {
    FILE *const f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "psnrhvs: batch: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n == cap) {
            char *const nb = realloc(buf, cap *= 2);
            if (!nb) {
                fprintf(stderr, "psnrhvs: out of memory\n");
                exit(1);
            }
            buf = nb;
        }
        const size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (!r) break;
    }
    const int bad = ferror(f);
    const int saved = errno;
    if (f != stdin) fclose(f);
    if (bad) {
        fprintf(stderr, "psnrhvs: batch: cannot read %s: %s\n", path, strerror(saved));
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Turn one row into a job; a problem is a usage error naming the line. */
static void make_job(Batch *const b, Job *const j, const CsvRow *const row,
                     const int *const col_kind, const char *const *const col_name,
                     const int ncols) {
    const char *const file = b->jobs_path;
    j->line = row->line;
    j->device = -1;
    j->threads = -1;
    j->any_backend = 1;
    j->backend = PSNRHVS_BACKEND_AUTO;
    j->gpu_slot = -1;
    j->total = -1;
    if (row->n > ncols) {
        for (int i = ncols; i < row->n; i++)
            if (row->fields[i][0])
                batch_usage_error("%s line %u: %d fields, the header has %d", file, row->line,
                                  row->n, ncols);
    }
    const char *format = NULL, *reference = NULL, *distorted = NULL, *output = NULL;
    char feature[256] = "";
    for (int c = 0; c < ncols && c < row->n; c++) {
        const char *const v = row->fields[c];
        const char *const name = col_name[c];
        if (!*v && col_kind[c] != COL_FLAG) continue;
        switch ((enum ColKind)col_kind[c]) {
        case COL_ID:
            j->id = xstrdup(v);
            break;
        case COL_REFERENCE:
            reference = v;
            break;
        case COL_DISTORTED:
            distorted = v;
            break;
        case COL_OUTPUT:
            output = v;
            break;
        case COL_FORMAT: {
            static const char *const formats[] = {"xml", "json", "csv", "sub"};
            format = NULL; /* one of these literals: the row's text does not last */
            for (int f = 0; f < 4; f++)
                if (!strcmp(v, formats[f])) format = formats[f];
            if (!format)
                batch_usage_error("%s line %u: unknown format '%s' (expected xml, json, csv or "
                                  "sub)",
                                  file, row->line, v);
            break;
        }
        case COL_PLOT:
            j->plot = resolve_path(b, v);
            break;
        case COL_BACKEND:
            if (psnrhvs_cli_backend_from_name(v, &j->backend) < 0)
                batch_usage_error("%s line %u: unknown backend '%s' (expected cpu, cuda, opencl, "
                                  "hip, sycl, vulkan or auto)",
                                  file, row->line, v);
            j->any_backend = j->backend == PSNRHVS_BACKEND_AUTO;
            break;
        case COL_DEVICE:
            if (parse_int(v, 0, INT_MAX, &j->device) < 0)
                batch_usage_error("%s line %u: invalid device '%s'", file, row->line, v);
            break;
        case COL_THREADS:
            if (parse_int(v, 0, 1024, &j->threads) < 0)
                batch_usage_error("%s line %u: invalid threads '%s' (0 to 1024)", file, row->line,
                                  v);
            break;
        case COL_ARGS: {
            /* split at spaces: no quoting (paths with spaces have their columns) */
            char *const copy = xstrdup(v);
            for (char *save = NULL, *t = strtok_r(copy, " \t", &save); t;
                 t = strtok_r(NULL, " \t", &save)) {
                const size_t flen = strcspn(t, "=");
                for (size_t r = 0; r < sizeof(reserved_flags) / sizeof(reserved_flags[0]); r++)
                    if (strlen(reserved_flags[r]) == flen && !strncmp(t, reserved_flags[r], flen))
                        batch_usage_error("%s line %u: %.*s in args: batch sets it (use the "
                                          "columns reference, distorted, output, format, plot, "
                                          "backend, device, threads)",
                                          file, row->line, (int)flen, t);
                add_opt(j, t);
            }
            free(copy);
            break;
        }
        case COL_VALUE: {
            char *const flag = xprintf("--%s", name);
            add_opt(j, flag);
            add_opt(j, v);
            free(flag);
            break;
        }
        case COL_FLAG: {
            const int on = parse_bool(v);
            if (on < 0)
                batch_usage_error("%s line %u: %s is '%s' (expected true or false, 1 or 0, or "
                                  "empty)",
                                  file, row->line, name, v);
            if (on) {
                char *const flag = xprintf("--%s", name);
                add_opt(j, flag);
                free(flag);
            }
            break;
        }
        case COL_FEATURE:
            if (strlen(feature) + strlen(name) + strlen(v) + 4 >= sizeof(feature))
                batch_usage_error("%s line %u: feature options too long", file, row->line);
            strcat(feature, *feature ? ":" : "psnr_hvs=");
            strcat(feature, name);
            strcat(feature, "=");
            strcat(feature, v);
            break;
        }
    }
    if (*feature) {
        add_opt(j, "--feature");
        add_opt(j, feature);
    }
    if (!reference) batch_usage_error("%s line %u: no reference", file, row->line);
    if (!distorted) batch_usage_error("%s line %u: no distorted", file, row->line);
    if (!output) batch_usage_error("%s line %u: no output", file, row->line);
    if (!strcmp(reference, "-") || !strcmp(distorted, "-") || !strcmp(output, "-"))
        batch_usage_error("%s line %u: '-' (stdin or stdout) cannot be a job's file", file,
                          row->line);
    if (j->plot && !strcmp(j->plot, "-"))
        batch_usage_error("%s line %u: '-' cannot be a job's plot", file, row->line);
    j->reference = resolve_path(b, reference);
    j->distorted = resolve_path(b, distorted);
    j->output = resolve_path(b, output);
    j->format = format ? format : format_from_name(output);
    if (j->device >= 0 && (j->any_backend || j->backend == PSNRHVS_BACKEND_CPU))
        batch_usage_error(
            "%s line %u: a device without a GPU backend (cuda, opencl, hip or vulkan)", file,
            row->line);
}

static int cmp_str(const void *const a, const void *const b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_jobs(Batch *const b) {
    size_t len;
    char *const buf = read_all(b->jobs_path, &len);
    if (!buf) exit(1);
    const char *p = buf, *const end = buf + len;
    if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) p += 3; /* a spreadsheet's BOM */
    unsigned line = 1;
    CsvRow row = {0};
    char err[256];
    int res = csv_next(&p, end, &line, &row, err, sizeof(err));
    if (res < 0) batch_usage_error("%s %s", b->jobs_path, err);
    if (!res) batch_usage_error("%s has no header row", b->jobs_path);

    const int ncols = row.n;
    int *const col_kind = xmalloc((size_t)ncols * sizeof(int));
    char **const col_name = xmalloc((size_t)ncols * sizeof(char *));
    int have_ref = 0, have_dist = 0, have_out = 0;
    for (int c = 0; c < ncols; c++) {
        col_name[c] = xstrdup(row.fields[c]);
        for (char *q = col_name[c]; *q; q++)
            if (*q == '-') *q = '_'; /* pixel-format as pixel_format */
        col_kind[c] = -1;
        for (int k = 0; k < NUM_COLUMNS; k++)
            if (!strcasecmp(col_name[c], columns[k].name)) {
                col_kind[c] = columns[k].kind;
                strcpy(col_name[c], columns[k].name);
            }
        if (col_kind[c] < 0) {
            char list[1024] = "";
            for (int k = 0; k < NUM_COLUMNS; k++) {
                strcat(list, k ? ", " : "");
                strcat(list, columns[k].name);
            }
            batch_usage_error("%s: unknown column '%s' in the header (columns: %s)", b->jobs_path,
                              row.fields[c], list);
        }
        for (int d = 0; d < c; d++)
            if (!strcmp(col_name[d], col_name[c]))
                batch_usage_error("%s: column '%s' twice in the header", b->jobs_path, col_name[c]);
        have_ref |= col_kind[c] == COL_REFERENCE;
        have_dist |= col_kind[c] == COL_DISTORTED;
        have_out |= col_kind[c] == COL_OUTPUT;
    }
    if (!have_ref || !have_dist || !have_out)
        batch_usage_error("%s: the header row needs the columns reference, distorted and output",
                          b->jobs_path);

    int cap = 0;
    while ((res = csv_next(&p, end, &line, &row, err, sizeof(err))) > 0) {
        if (b->num_jobs == cap) {
            cap = cap ? cap * 2 : 64;
            Job *const nj = realloc(b->jobs, (size_t)cap * sizeof(Job));
            if (!nj) {
                fprintf(stderr, "psnrhvs: out of memory\n");
                exit(1);
            }
            b->jobs = nj;
        }
        Job *const j = &b->jobs[b->num_jobs];
        memset(j, 0, sizeof(*j));
        make_job(b, j, &row, col_kind, (const char *const *)col_name, ncols);
        b->num_jobs++;
        if (!j->id) j->id = xprintf("%d", b->num_jobs);
    }
    if (res < 0) batch_usage_error("%s %s", b->jobs_path, err);
    if (!b->num_jobs) batch_usage_error("%s has no jobs (only a header)", b->jobs_path);

    /* Two jobs writing one file would each take the other's output for complete. */
    char **const paths = xmalloc((size_t)b->num_jobs * 2 * sizeof(char *));
    int n = 0;
    for (int i = 0; i < b->num_jobs; i++) {
        paths[n++] = b->jobs[i].output;
        if (b->jobs[i].plot) paths[n++] = b->jobs[i].plot;
    }
    qsort(paths, (size_t)n, sizeof(char *), cmp_str);
    for (int i = 1; i < n; i++)
        if (!strcmp(paths[i], paths[i - 1]))
            batch_usage_error("%s: %s is the output (or plot) of two jobs", b->jobs_path, paths[i]);
    free(paths);
    csv_row_clear(&row);
    free(row.fields);
    for (int c = 0; c < ncols; c++) free(col_name[c]);
    free(col_name);
    free(col_kind);
    free(buf);
}

/* No output (a job's, a plot, the summary) that is an input of any job or
 * the jobs file itself. */
static void check_clobber(const Batch *const b, const char *const summary) {
    NamedFile *const outs = xmalloc(((size_t)b->num_jobs * 2 + 1) * sizeof(NamedFile));
    NamedFile *const ins = xmalloc(((size_t)b->num_jobs * 2 + 1) * sizeof(NamedFile));
    int nout = 0, nin = 0;
    outs[nout++] = (NamedFile){summary, "the summary"};
    ins[nin++] = (NamedFile){b->jobs_path, "the jobs file"};
    for (int i = 0; i < b->num_jobs; i++) {
        const Job *const j = &b->jobs[i];
        outs[nout++] = (NamedFile){j->output, xprintf("the output of job %s", j->id)};
        if (j->plot) outs[nout++] = (NamedFile){j->plot, xprintf("the plot of job %s", j->id)};
        ins[nin++] = (NamedFile){j->reference, xprintf("the reference of job %s", j->id)};
        ins[nin++] = (NamedFile){j->distorted, xprintf("the distorted of job %s", j->id)};
    }
    char why[8192];
    const int res = output_check_clobber(outs, nout, ins, nin, why, sizeof(why));
    for (int i = 1; i < nout; i++) free((char *)outs[i].role);
    for (int i = 1; i < nin; i++) free((char *)ins[i].role);
    free(outs);
    free(ins);
    if (res < 0) batch_usage_error("%s", why);
}

/* ---- the machine ---- */

static int cpu_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef __linux__
    cpu_set_t set;
    if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0) n = CPU_COUNT(&set);
    /* a container's CPU quota (cgroup v2): "max 100000" or "200000 100000" */
    FILE *const f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (f) {
        char quota[32];
        long period;
        if (fscanf(f, "%31s %ld", quota, &period) == 2 && strcmp(quota, "max") && period > 0) {
            const long q = (atol(quota) + period - 1) / period;
            if (q > 0 && q < n) n = q;
        }
        fclose(f);
    }
#endif
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

static void add_gpu(Batch *const b, const enum PsnrHvsBackend be, const int device) {
    for (int i = 0; i < b->num_gpus; i++)
        if (b->gpu[i].backend == be && b->gpu[i].device == device) return;
    if (b->num_gpus < MAX_GPU_SLOTS) b->gpu[b->num_gpus++] = (GpuSlot){be, device, 0};
}

/* "auto": every CUDA and HIP device (OpenCL and Vulkan list CPUs and the same
 * GPUs too: only when named). */
static void find_gpus(Batch *const b, const char *const spec) {
    if (!strcmp(spec, "none")) return;
    if (!strcmp(spec, "auto")) {
        static const enum PsnrHvsBackend kinds[] = {PSNRHVS_BACKEND_CUDA, PSNRHVS_BACKEND_HIP};
        static char buf[65536];
        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
            if (!psnrhvs_backend_available(kinds[k])) continue;
            buf[0] = '\0';
            if (psnrhvs_list_devices(kinds[k], 0, buf, sizeof(buf)) < 0) continue;
            int d = 0;
            for (const char *q = buf; *q; q++)
                if (*q == '\n') add_gpu(b, kinds[k], d++);
        }
        return;
    }
    char *const copy = xstrdup(spec);
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *const colon = strchr(t, ':');
        if (colon) *colon = '\0';
        enum PsnrHvsBackend be;
        int dev = 0;
        if (psnrhvs_cli_backend_from_name(t, &be) < 0 || be == PSNRHVS_BACKEND_CPU ||
            be == PSNRHVS_BACKEND_AUTO || (colon && parse_int(colon + 1, 0, INT_MAX, &dev) < 0))
            batch_usage_error("bad --gpus item '%s%s%s' (expected auto, none or a list of "
                              "cuda:N, hip:N, opencl:N, vulkan:N)",
                              t, colon ? ":" : "", colon ? colon + 1 : "");
        add_gpu(b, be, dev);
    }
    free(copy);
}

/* ---- running a job ---- */

static int pipe_cloexec(int fds[2]) {
    if (pipe(fds)) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

/* The progress line: rewritten in place on a terminal, a plain line otherwise. */
static void draw(Batch *const b, const int final) {
    const double t = now_seconds(), elapsed = t - b->start;
    int done = 0, skipped = 0, failed = 0, running = 0, left = 0;
    unsigned long long frames = 0;
    double known_total = 0;
    int known = 0;
    for (int i = 0; i < b->num_jobs; i++) {
        const Job *const j = &b->jobs[i];
        switch (j->state) {
        case JOB_DONE:
        case JOB_FAILED:
            if (j->state == JOB_DONE)
                done++;
            else
                failed++;
            frames += j->frames;
            known_total += (double)j->frames;
            known++;
            break;
        case JOB_SKIPPED:
            skipped++;
            break;
        case JOB_RUNNING:
            running++;
            frames += j->frames;
            if (j->total >= 0) {
                const double t = (double)j->total, f = (double)j->frames;
                known_total += t > f ? t : f;
                known++;
            } else {
                left++; /* counted as an average job */
            }
            break;
        default:
            left++;
            break;
        }
    }
    const double fps = elapsed > 0 ? (double)frames / elapsed : 0;
    char eta[48] = "";
    if (!final && known && fps > 0) {
        /* jobs not started (or of unknown length) count as the average of the others */
        const double total = known_total + left * (known_total / known);
        const double rem = total > (double)frames ? (total - (double)frames) / fps : 0;
        const unsigned long s = rem > 3.6e8 ? 360000000ul : (unsigned long)rem;
        if (s >= 3600)
            snprintf(eta, sizeof(eta), ", ETA %lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
        else
            snprintf(eta, sizeof(eta), ", ETA %lu:%02lu", s / 60, s % 60);
    }
    char extra[128] = "";
    int n = 0;
    if (skipped)
        n += snprintf(extra + n, sizeof(extra) - (size_t)n, "%s%d skipped", n ? ", " : "", skipped);
    if (failed)
        n += snprintf(extra + n, sizeof(extra) - (size_t)n, "%s%d failed", n ? ", " : "", failed);
    if (running && !final)
        n += snprintf(extra + n, sizeof(extra) - (size_t)n, "%s%d running", n ? ", " : "", running);
    if (final) {
        const unsigned long s = elapsed > 3.6e8 ? 360000000ul : (unsigned long)elapsed;
        char t[32];
        if (s >= 3600)
            snprintf(t, sizeof(t), "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
        else
            snprintf(t, sizeof(t), "%lu:%02lu", s / 60, s % 60);
        fprintf(stderr,
                "%spsnrhvs: batch: %d jobs: %d done, %d skipped, %d failed%s; %llu frames in %s "
                "(%.1f frames/s)%s\n",
                b->tty ? "\r" : "", b->num_jobs, done, skipped, failed,
                left ? ", some not run" : "", frames, t, fps, b->tty ? "\033[K" : "");
    } else {
        fprintf(stderr, "%spsnrhvs: batch: %d/%d jobs%s%s%s, %llu frames, %.1f frames/s%s%s",
                b->tty ? "\r" : "", done + skipped + failed, b->num_jobs, n ? " (" : "", extra,
                n ? ")" : "", frames, fps, eta, b->tty ? "\033[K" : "\n");
    }
    fflush(stderr);
    b->drawn = b->tty && !final;
    b->last_draw = t;
}

/* A line of its own above the progress line. */
static void say(Batch *const b, const char *const fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void say(Batch *const b, const char *const fmt, ...) {
    if (b->drawn) fputs("\r\033[K", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (b->drawn) draw(b, 0);
    fflush(stderr);
}

/*
 * Is the output already complete? The atomic rename means a file at the
 * output's path was written whole by a run that finished (a killed run
 * leaves at most a .psnrhvs-XXXXXX temporary beside it, never the file
 * itself); reading it back also catches a file put there by something else
 * that is cut short or in another format. Its pooled values fill the summary.
 */
static int read_back(Job *const j, char *const why, const size_t why_size) {
    ScoreSet s;
    if (psnrhvs_scores_read(&s, j->output, why, why_size) < 0) return -1;
    if (strcmp(psnrhvs_scores_format_name(s.format), j->format)) {
        snprintf(why, why_size, "%s holds %s, the job asks for %s", j->output,
                 psnrhvs_scores_format_name(s.format), j->format);
        psnrhvs_scores_free(&s);
        return -1;
    }
    j->num_frames = s.num_frames;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) {
        j->has_key[k] = s.has_key[k];
        j->pool[k] = s.pool[k];
    }
    psnrhvs_scores_free(&s);
    return 0;
}

static int output_complete(Batch *const b, Job *const j) {
    struct stat st;
    if (stat(j->output, &st)) return 0; /* not there (or not reachable: the run will say) */
    char why[600];
    if (!S_ISREG(st.st_mode)) return 0;
    if (read_back(j, why, sizeof(why)) < 0) {
        if (!b->quiet)
            say(b, "psnrhvs: batch: job %s: not complete, running it again: %s", j->id, why);
        return 0;
    }
    return 1;
}

/* The job's command line (strings its own: the parsed settings point at them). */
static void job_argv(const Batch *const b, Job *const j) {
    char **const argv = xmalloc((size_t)(j->num_opts + 24) * sizeof(char *));
    int n = 0;
    argv[n++] = xstrdup("psnrhvs");
    argv[n++] = xstrdup("-r");
    argv[n++] = xstrdup(j->reference);
    argv[n++] = xstrdup("-d");
    argv[n++] = xstrdup(j->distorted);
    for (int i = 0; i < j->num_opts; i++) argv[n++] = xstrdup(j->opts[i]);
    if (j->gpu_slot >= 0) {
        argv[n++] = xstrdup("--backend");
        argv[n++] = xstrdup(psnrhvs_cli_backend_name(b->gpu[j->gpu_slot].backend));
        argv[n++] = xstrdup("--device");
        argv[n++] = xprintf("%d", b->gpu[j->gpu_slot].device);
    } else if (!j->any_backend) {
        argv[n++] = xstrdup("--backend");
        argv[n++] = xstrdup(psnrhvs_cli_backend_name(j->backend));
        if (j->device >= 0) {
            argv[n++] = xstrdup("--device");
            argv[n++] = xprintf("%d", j->device);
        }
    } else {
        argv[n++] = xstrdup("--backend");
        argv[n++] = xstrdup("cpu");
    }
    argv[n++] = xstrdup("--threads");
    argv[n++] = xprintf("%d", j->threads_used);
    argv[n++] = xprintf("--%s", j->format);
    argv[n++] = xstrdup("-o");
    argv[n++] = xstrdup(j->output);
    if (j->plot) {
        argv[n++] = xstrdup("--plot");
        argv[n++] = xstrdup(j->plot);
    }
    argv[n++] = xstrdup("-q"); /* no progress line; warnings are the job's message */
    argv[n] = NULL;
    j->argv = argv;
    j->argc = n;
}

static void free_argv(Job *const j) {
    for (int i = 0; j->argv && i < j->argc; i++) free(j->argv[i]);
    free(j->argv);
    j->argv = NULL;
}

static void fail_job(Batch *const b, Job *const j, const char *const msg) {
    j->state = JOB_FAILED;
    size_t len = strlen(msg);
    if (len >= sizeof(j->message)) len = sizeof(j->message) - 1;
    memcpy(j->message, msg, len);
    j->message[len] = '\0';
    b->finished++;
    say(b, "psnrhvs: batch: job %s failed: %s", j->id, msg);
}

/* The last line of a job's messages: its error, or its last warning. */
static void take_message(Job *const j, const char *const text, const size_t len) {
    size_t end = len;
    while (end && (text[end - 1] == '\n' || text[end - 1] == '\r')) end--;
    size_t start = end;
    while (start && text[start - 1] != '\n') start--;
    const char *line = text + start;
    size_t n = end - start;
    if (n > 9 && !strncmp(line, "psnrhvs: ", 9)) line += 9, n -= 9; /* the job's own prefix */
    if (n >= sizeof(j->message)) n = sizeof(j->message) - 1;
    memcpy(j->message, line, n);
    j->message[n] = '\0';
}

/* ---- contexts kept open between jobs ---- */

static int same_settings(const PoolEntry *const e, const PsnrHvsSettings *const s) {
    const PsnrHvsSettings *const k = &e->key;
    if (k->width != s->width || k->height != s->height || k->layout != s->layout ||
        k->bitdepth != s->bitdepth || k->enable_chroma != s->enable_chroma ||
        k->mask_product != s->mask_product || k->backend != s->backend || k->device != s->device ||
        k->threads != s->threads || k->isa != s->isa || k->exact_helpers != s->exact_helpers ||
        k->frames_in_flight != s->frames_in_flight || k->memory != s->memory ||
        k->renditions != s->renditions || k->chroma_interleaved != s->chroma_interleaved ||
        k->msb_aligned != s->msb_aligned || k->reference_on_host != s->reference_on_host ||
        k->num_devices != s->num_devices)
        return 0;
    return !s->num_devices ||
           !memcmp(e->devices, s->devices, (size_t)s->num_devices * sizeof(*s->devices));
}

static int pool_open(void *const cookie, PsnrHvsContext **const c, const PsnrHvsSettings *const s) {
    Batch *const b = ((Job *)cookie)->batch;
    pthread_mutex_lock(&b->pool_lock);
    for (int i = 0; i < b->pool_n; i++) {
        PoolEntry *const e = &b->pool[i];
        if (!e->busy && same_settings(e, s)) {
            e->busy = 1;
            *c = e->ctx;
            pthread_mutex_unlock(&b->pool_lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&b->pool_lock);
    const int err = psnrhvs_open(c, s);
    if (err) return err;
    pthread_mutex_lock(&b->pool_lock);
    int slot = b->pool_n < MAX_POOL ? b->pool_n++ : -1;
    if (slot < 0) { /* full: the idle one used longest ago makes room */
        for (int i = 0; i < b->pool_n; i++)
            if (!b->pool[i].busy && (slot < 0 || b->pool[i].last_used < b->pool[slot].last_used))
                slot = i;
        if (slot >= 0) psnrhvs_close(&b->pool[slot].ctx);
    }
    if (slot >= 0) {
        PoolEntry *const e = &b->pool[slot];
        e->key = *s;
        e->key.logger = (PsnrHvsLogger){0};
        if (s->num_devices)
            memcpy(e->devices, s->devices, (size_t)s->num_devices * sizeof(*s->devices));
        e->key.devices = NULL;
        e->ctx = *c;
        e->busy = 1;
    }
    pthread_mutex_unlock(&b->pool_lock);
    return 0; /* no room at all: used once, closed when given back */
}

static void pool_close(void *const cookie, PsnrHvsContext **const c) {
    Batch *const b = ((Job *)cookie)->batch;
    pthread_mutex_lock(&b->pool_lock);
    for (int i = 0; i < b->pool_n; i++) {
        if (b->pool[i].ctx == *c) {
            b->pool[i].busy = 0;
            b->pool[i].last_used = now_seconds();
            *c = NULL;
        }
    }
    pthread_mutex_unlock(&b->pool_lock);
    if (*c) psnrhvs_close(c);
}

static void job_progress(void *const cookie, const unsigned frames, const long long total) {
    Job *const j = cookie;
    atomic_store(&j->frames, frames);
    atomic_store(&j->total, total);
}

/* ---- running a job ---- */

/* A job's thread: the score command, its messages kept. */
static void *job_main(void *const arg) {
    Job *const j = arg;
    char *text = NULL;
    size_t len = 0;
    FILE *const f = open_memstream(&text, &len);
    const ScoreEnv env = {
        .open = pool_open,
        .close = pool_close,
        .progress = job_progress,
        .cookie = j,
        .cancel = &interrupted,
        .keep_process = 1,
    };
    jmp_buf usage;
    cli_msg_set(f, &usage);
    if (!f)
        j->status = 1, snprintf(j->message, sizeof(j->message), "out of memory");
    else if (setjmp(usage))
        j->status = 2; /* a usage error in the run (a ladder's names) */
    else
        j->status = cli_score(&j->cli, j->lib, &env);
    cli_msg_set(NULL, NULL);
    if (f && !fclose(f)) take_message(j, text, len);
    free(text);
    atomic_store(&j->done, 1);
    const char byte = 1;
    while (write(j->batch->done_pipe[1], &byte, 1) < 0 && errno == EINTR) continue;
    return NULL;
}

static void start_job(Batch *const b, Job *const j) {
    char why[4096];
    /* Outputs in folders that are not there yet: the folders are made. */
    if (output_make_parents(j->output, why, sizeof(why)) ||
        (j->plot && output_make_parents(j->plot, why, sizeof(why)))) {
        fail_job(b, j, why);
        return;
    }
    job_argv(b, j);
    /* The job's flags parsed here, on the main thread (getopt's state is
     * the process's); a usage error is the job's. */
    char *text = NULL;
    size_t len = 0;
    FILE *const f = open_memstream(&text, &len);
    jmp_buf usage;
    int bad = !f;
    cli_msg_set(f, &usage);
    if (f && !setjmp(usage)) {
        optind = 0; /* glibc: a fresh scan */
        psnrhvs_default_settings(&j->lib);
        psnrhvs_cli_parse(j->argc, j->argv, &j->cli, &j->lib);
    } else {
        bad = 1;
    }
    cli_msg_set(NULL, NULL);
    if (f && !fclose(f)) take_message(j, text, len);
    free(text);
    if (bad) {
        fail_job(b, j, j->message[0] ? j->message : "out of memory");
        free_argv(j);
        return;
    }
    j->message[0] = '\0';
    j->batch = b;
    atomic_store(&j->done, 0);
    if (cli_thread_start(&j->thread, job_main, j)) {
        fail_job(b, j, "cannot start its thread");
        free_argv(j);
        return;
    }
    j->state = JOB_RUNNING;
    j->start = now_seconds();
    b->run_list[b->running++] = j;
}

static void finish_job(Batch *const b, Job *const j) {
    pthread_join(j->thread, NULL);
    free_argv(j);
    j->seconds = now_seconds() - j->start;
    for (int i = 0; i < b->running; i++)
        if (b->run_list[i] == j) b->run_list[i] = b->run_list[--b->running];
    if (j->gpu_slot >= 0)
        b->gpu[j->gpu_slot].busy = 0;
    else
        b->cpu_jobs--;
    b->cores_used -= j->cores;
    char msg[MAX_LINE_BYTES + 64];
    if (j->status == 0) {
        char why[600];
        if (read_back(j, why, sizeof(why)) < 0) {
            fail_job(b, j, why);
            return;
        }
        j->state = JOB_DONE;
        b->finished++;
        if (j->message[0] && !b->quiet) say(b, "psnrhvs: batch: job %s: %s", j->id, j->message);
        return;
    }
    if (j->message[0])
        snprintf(msg, sizeof(msg), "%s", j->message);
    else
        snprintf(msg, sizeof(msg), "exit status %d", j->status);
    if (interrupted) snprintf(msg, sizeof(msg), "interrupted");
    fail_job(b, j, msg);
}

/* Place a job: a free GPU or room in the CPU budget. @return 1 if started. */
static int try_start(Batch *const b, Job *const j, const int cpu_pending) {
    const int nothing_running = b->running == 0;
    /* a GPU: one job each, and a few cores to feed it */
    if (j->any_backend || (j->backend != PSNRHVS_BACKEND_CPU)) {
        int matching = 0;
        for (int g = 0; g < b->num_gpus; g++) {
            const GpuSlot *const s = &b->gpu[g];
            if (!j->any_backend &&
                (s->backend != j->backend || (j->device >= 0 && s->device != j->device)))
                continue;
            matching++;
            if (s->busy) continue;
            const int cores = j->threads >= 0 ? (j->threads ? j->threads : b->cores) : b->gpu_cores;
            const int need = cores < b->cores ? cores : b->cores;
            if (!nothing_running && b->cores_used + need > b->cores) return 0;
            j->gpu_slot = g;
            j->cores = need;
            j->threads_used = cores;
            b->gpu[g].busy = 1;
            b->cores_used += need;
            snprintf(j->device_name, sizeof(j->device_name), "%s:%d",
                     psnrhvs_cli_backend_name(s->backend), s->device);
            start_job(b, j);
            return 1;
        }
        /* all its GPUs busy: wait for one (a named GPU backend never falls back to the CPU) */
        if (matching && !j->any_backend) return 0;
        if (matching && j->any_backend && b->cores_used >= b->cores) return 0;
    }
    /* the CPU budget (a GPU backend without a device found here runs too, and says why it fails) */
    if (b->max_cpu_jobs && b->cpu_jobs >= b->max_cpu_jobs) return 0;
    const int free_cores = b->cores - b->cores_used;
    int threads;
    if (j->threads >= 0)
        threads = j->threads ? j->threads : b->cores;
    else if (b->threads >= 0)
        threads = b->threads ? b->threads : b->cores;
    else {
        /* share the free cores among the jobs that could start now */
        int slots = cpu_pending < free_cores ? cpu_pending : free_cores;
        if (b->max_cpu_jobs && b->max_cpu_jobs - b->cpu_jobs < slots)
            slots = b->max_cpu_jobs - b->cpu_jobs;
        threads = slots > 0 ? free_cores / slots : 1;
        if (threads < 1) threads = 1;
    }
    const int need = threads < b->cores ? threads : b->cores;
    if (!nothing_running && b->cores_used + need > b->cores) return 0;
    j->gpu_slot = -1;
    j->cores = need;
    j->threads_used = threads;
    b->cpu_jobs++;
    b->cores_used += need;
    if (j->any_backend || j->backend == PSNRHVS_BACKEND_CPU)
        snprintf(j->device_name, sizeof(j->device_name), "cpu");
    else if (j->device >= 0)
        snprintf(j->device_name, sizeof(j->device_name), "%s:%d",
                 psnrhvs_cli_backend_name(j->backend), j->device);
    else
        snprintf(j->device_name, sizeof(j->device_name), "%s",
                 psnrhvs_cli_backend_name(j->backend));
    start_job(b, j);
    return 1;
}

static void schedule(Batch *const b) {
    if (interrupted) return;
    while (b->first_pending < b->num_jobs && b->jobs[b->first_pending].state != JOB_PENDING)
        b->first_pending++;
    for (int i = b->first_pending; i < b->num_jobs && b->pending; i++) {
        Job *const j = &b->jobs[i];
        if (j->state != JOB_PENDING) continue;
        if (try_start(b, j, b->pending)) b->pending--;
        if (b->cores_used >= b->cores && b->running) {
            /* no core left: only a free GPU could take more */
            int free_gpu = 0;
            for (int g = 0; g < b->num_gpus; g++) free_gpu |= !b->gpu[g].busy;
            if (!free_gpu) break;
        }
    }
}

/* ---- the summary table ---- */

static void csv_field(FILE *const f, const char *const s) {
    if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' && (!*s || s[strlen(s) - 1] != ' ')) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static const char *const stat_names[4] = {"min", "max", "mean", "harmonic_mean"};

static int summary_write(FILE *const f, const void *const cookie) {
    const Batch *const b = cookie;
    fputs("id,status,reference,distorted,output,format,frames,device,threads,seconds,bitrate,"
          "bitrate_source",
          f);
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++)
        for (int s = 0; s < 4; s++)
            fprintf(f, ",%s_%s", psnrhvs_output_key_name((enum OutputKey)k), stat_names[s]);
    fputs(",message\n", f);
    for (int i = 0; i < b->num_jobs; i++) {
        const Job *const j = &b->jobs[i];
        const int ran = j->state == JOB_DONE || j->state == JOB_FAILED;
        const int values = j->state == JOB_DONE || j->state == JOB_SKIPPED;
        csv_field(f, j->id);
        fprintf(f, ",%s,", state_names[j->state]);
        csv_field(f, j->reference);
        fputc(',', f);
        csv_field(f, j->distorted);
        fputc(',', f);
        csv_field(f, j->output);
        fprintf(f, ",%s,", j->format);
        if (values) fprintf(f, "%zu", j->num_frames);
        fputc(',', f);
        if (ran)
            fprintf(f, "%s,%d,%.3f", j->device_name, j->threads_used, j->seconds);
        else
            fputs(",,", f);
        /* The distorted input's kbit/s, for rate tables (bdrate, report):
         * skipped jobs too, so that a resumed summary equals a whole run's. */
        fputc(',', f);
        InputBitrate br;
        char err[256], buf[64];
        if (values && input_bitrate(j->distorted, &br, err, sizeof(err)) == 0)
            fprintf(f, "%s,%s", psnrhvs_shortest(buf, sizeof(buf), br.kbps), br.source);
        else
            fputc(',', f);
        for (int k = 0; k < OUTPUT_NUM_KEYS; k++) {
            const double v[4] = {j->pool[k].min, j->pool[k].max, j->pool[k].mean,
                                 j->pool[k].harmonic_mean};
            for (int s = 0; s < 4; s++) {
                char buf[64];
                fputc(',', f);
                if (values && j->has_key[k]) fputs(psnrhvs_shortest(buf, sizeof(buf), v[s]), f);
            }
        }
        fputc(',', f);
        csv_field(f, j->state == JOB_NOT_RUN ? "interrupted before it started" : j->message);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* ---- main ---- */

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
           "     --gpus LIST           auto (default: every CUDA and HIP device), none, or\n"
           "                           BACKEND:DEVICE,... (cuda:0,cuda:1,opencl:0); one job\n"
           "                           per GPU at a time\n"
           "     --cores N             the CPU budget (default: the cores this process may use)\n"
           "     --summary FILE        the summary table (default: JOBS.summary.csv)\n"
           "     --force               run every job, complete outputs too\n"
           " -q, --quiet               no progress line, no warnings\n"
           "     --help                this text\n"
           "Exit status: 0 every job done or skipped, 1 a job failed, 2 a usage error.\n");
}

int psnrhvs_batch_main(int argc, char *const *argv, const char *const prog) {
    enum { ARG_THREADS = 256, ARG_GPUS, ARG_CORES, ARG_SUMMARY, ARG_FORCE, ARG_HELP };
    static const struct option opts[] = {
        {"jobs", required_argument, NULL, 'j'},
        {"threads", required_argument, NULL, ARG_THREADS},
        {"gpus", required_argument, NULL, ARG_GPUS},
        {"cores", required_argument, NULL, ARG_CORES},
        {"summary", required_argument, NULL, ARG_SUMMARY},
        {"force", no_argument, NULL, ARG_FORCE},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, ARG_HELP},
        {NULL, 0, NULL, 0},
    };
    Batch b = {.threads = -1};
    const char *gpus = "auto", *summary = NULL;
    int cores = 0;
    opterr = 0;
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, ":j:q", opts, NULL)) != -1) {
        switch (o) {
        case 'j':
            if (parse_int(optarg, 1, 4096, &b.max_cpu_jobs) < 0)
                batch_usage_error("invalid --jobs '%s': expected an integer from 1 to 4096",
                                  optarg);
            break;
        case ARG_THREADS:
            if (parse_int(optarg, 0, 1024, &b.threads) < 0)
                batch_usage_error("invalid --threads '%s': expected an integer from 0 to 1024",
                                  optarg);
            break;
        case ARG_GPUS:
            gpus = optarg;
            break;
        case ARG_CORES:
            if (parse_int(optarg, 1, 1024, &cores) < 0)
                batch_usage_error("invalid --cores '%s': expected an integer from 1 to 1024",
                                  optarg);
            break;
        case ARG_SUMMARY:
            summary = optarg;
            break;
        case ARG_FORCE:
            b.force = 1;
            break;
        case 'q':
            b.quiet = 1;
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
    b.jobs_path = argv[optind];
    if (!strcmp(b.jobs_path, "-") && !summary)
        batch_usage_error("jobs from stdin ('-') need --summary FILE");

    if (strcmp(b.jobs_path, "-")) {
        const char *const slash = strrchr(b.jobs_path, '/');
        if (slash) {
            const size_t len = slash == b.jobs_path ? 1 : (size_t)(slash - b.jobs_path);
            b.base_dir = xmalloc(len + 1);
            memcpy(b.base_dir, b.jobs_path, len);
            b.base_dir[len] = '\0';
        }
    }
    char *summary_path;
    if (summary) {
        summary_path = xstrdup(summary);
    } else {
        /* jobs.csv -> jobs.summary.csv, beside it */
        const char *const slash = strrchr(b.jobs_path, '/');
        const char *const dot = strrchr(b.jobs_path, '.');
        const size_t stem = dot && (!slash || dot > slash + 1) && !strcasecmp(dot, ".csv")
                                ? (size_t)(dot - b.jobs_path)
                                : strlen(b.jobs_path);
        summary_path = xprintf("%.*s.summary.csv", (int)stem, b.jobs_path);
    }
    find_gpus(&b, gpus); /* a bad --gpus is a usage error before the jobs are read */
    load_jobs(&b);
    for (int i = 0; i < b.num_jobs; i++)
        if (!strcmp(b.jobs[i].output, summary_path) ||
            (b.jobs[i].plot && !strcmp(b.jobs[i].plot, summary_path)))
            batch_usage_error("%s is both the summary and the output of job %s", summary_path,
                              b.jobs[i].id);

    check_clobber(&b, summary_path);

    /* A bad summary path fails now, not after the last job. */
    OutputFile *of = NULL;
    if (psnrhvs_output_open(&of, summary_path) < 0) return 1;
    psnrhvs_output_abort(&of);

    (void)prog;
    b.cores = cores ? cores : cpu_count();
    b.gpu_cores = b.num_gpus ? b.cores / (2 * b.num_gpus) : 1;
    if (b.gpu_cores < 1) b.gpu_cores = 1;
    if (b.gpu_cores > 4) b.gpu_cores = 4;
    b.tty = !b.quiet && isatty(STDERR_FILENO);

    if (pipe_cloexec(b.done_pipe) || pthread_mutex_init(&b.pool_lock, NULL)) {
        fprintf(stderr, "psnrhvs: batch: %s\n", strerror(errno));
        return 1;
    }

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

    b.start = now_seconds();
    for (int i = 0; i < b.num_jobs; i++) {
        Job *const j = &b.jobs[i];
        if (!b.force && output_complete(&b, j)) {
            j->state = JOB_SKIPPED;
            b.finished++;
        } else {
            b.pending++;
        }
    }
    b.run_list = xmalloc((size_t)b.num_jobs * sizeof(Job *));

    int drawn_finished = 0;
    schedule(&b);
    if (!b.quiet) draw(&b, 0);
    double t_interrupted = 0;
    while (b.running || (!interrupted && b.finished < b.num_jobs)) {
        /* On an interrupt the running jobs stop at their next frame (cancel);
         * one blocked on its input (a pipe no one writes) is given up after a
         * second: the process ends with the signal, its temporary file gone. */
        if (interrupted && !t_interrupted) t_interrupted = now_seconds();
        if (interrupted && now_seconds() - t_interrupted > 1.0) {
            for (int i = 0; i < b.running; i++) {
                b.run_list[i]->state = JOB_FAILED;
                snprintf(b.run_list[i]->message, sizeof(b.run_list[i]->message), "interrupted");
            }
            b.running = 0;
            break;
        }
        /* A job that ends writes a byte; the wait also paces the progress line. */
        struct pollfd pfd = {b.done_pipe[0], POLLIN, 0};
        const int r = poll(&pfd, 1, b.tty ? 250 : 1000);
        if (r < 0 && errno != EINTR) {
            fprintf(stderr, "psnrhvs: batch: poll: %s\n", strerror(errno));
            break;
        }
        if (r > 0) {
            char drain[64];
            while (read(b.done_pipe[0], drain, sizeof(drain)) < 0 && errno == EINTR) continue;
        }
        for (int i = b.running - 1; i >= 0; i--) {
            Job *const j = b.run_list[i];
            if (atomic_load(&j->done)) finish_job(&b, j);
        }
        schedule(&b);
        /* a terminal: 4 times a second; a log: at most once a second, at least every 10 s */
        const double since = now_seconds() - b.last_draw;
        if (!b.quiet && b.finished < b.num_jobs &&
            (b.tty ? since >= 0.25 : since >= 10 || (since >= 1 && b.finished != drawn_finished))) {
            draw(&b, 0);
            drawn_finished = b.finished;
        }
        /* nothing running and nothing to start: cannot happen, but never spin */
        if (b.running == 0 && !interrupted && !b.pending) break;
    }
    free(b.run_list);
    int failed = 0;
    for (int i = 0; i < b.num_jobs; i++) {
        Job *const j = &b.jobs[i];
        if (j->state == JOB_PENDING) j->state = JOB_NOT_RUN;
        failed += j->state == JOB_FAILED || j->state == JOB_NOT_RUN;
    }
    if (!b.quiet) draw(&b, 1);

    int ret = failed ? 1 : 0;
    if (psnrhvs_output_open(&of, summary_path) < 0 ||
        psnrhvs_output_commit_with(&of, summary_write, &b) < 0)
        ret = 1;
    if (!b.quiet && !interrupted) fprintf(stderr, "psnrhvs: batch: summary in %s\n", summary_path);
    if (interrupted) {
        fprintf(stderr, "psnrhvs: batch: interrupted; the summary is in %s\n", summary_path);
        output_remove_temporaries(); /* a job still blocked ends with the process */
        signal(interrupted, SIG_DFL);
        raise(interrupted);
    }
    for (int i = 0; i < b.pool_n; i++) psnrhvs_close(&b.pool[i].ctx);
    for (int i = 0; i < b.num_jobs; i++) {
        Job *const j = &b.jobs[i];
        free(j->id), free(j->reference), free(j->distorted), free(j->output), free(j->plot);
        for (int k = 0; k < j->num_opts; k++) free(j->opts[k]);
        free(j->opts);
    }
    free(b.jobs);
    free(b.base_dir);
    free(summary_path);
    close(b.done_pipe[0]), close(b.done_pipe[1]);
    return ret;
}
