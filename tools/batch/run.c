/*
 * psnrhvs: `psnrhvs batch`: running the jobs. Each is the score command
 * (score.c) on a thread of its own; the contexts a job used stay open for
 * the next job of the same settings (a GPU's is opened once for the batch,
 * not once a job). The main thread schedules: a few jobs per GPU fed by
 * the cores it holds, CPU jobs within the rest of the budget, until all
 * are done or a signal comes.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "batch_int.h"
#include "msg.h"
#include "score.h"
#include "read_scores.h"
#include "thread.h"

/* ---- the machine ---- */

static void add_gpu(Batch *const b, const enum PsnrHvsBackend be, const int device) {
    for (int i = 0; i < b->num_gpus; i++)
        if (b->gpu[i].backend == be && b->gpu[i].device == device) return;
    if (b->num_gpus < MAX_GPU_SLOTS) b->gpu[b->num_gpus++] = (GpuSlot){be, device, 0, 0};
}

/* "auto": the GPUs backend auto scores on (the library's device list). */
void batch_find_gpus(Batch *const b, const char *const spec) {
    if (!strcmp(spec, "none")) return;
    if (!strcmp(spec, "auto")) {
        PsnrHvsDeviceEntry e[64];
        const int n = psnrhvs_devices(e, 64, PSNRHVS_DEVICES_AUTO);
        for (int i = 0; i < n && i < 64; i++)
            if (e[i].automatic && e[i].gpu) add_gpu(b, e[i].backend, e[i].device);
        return;
    }
    char *const copy = batch_xstrdup(spec);
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *const colon = strchr(t, ':');
        if (colon) *colon = '\0';
        enum PsnrHvsBackend be;
        int dev = 0;
        if (cli_backend_from_name(t, &be) < 0 || psnrhvs_backend_kind(be) != PSNRHVS_KIND_DEVICE ||
            (colon && batch_parse_int(colon + 1, 0, INT_MAX, &dev) < 0))
            batch_usage_error("bad --gpus item '%s%s%s' (expected auto, none or a list of "
                              "cuda:N, hip:N, opencl:N, vulkan:N)",
                              t, colon ? ":" : "", colon ? colon + 1 : "");
        add_gpu(b, be, dev);
    }
    free(copy);
}

/* ---- a job: its output, its command line, its messages ---- */

/*
 * Is the output already complete? The atomic rename means a file at the
 * output's path was written whole by a run that finished (a killed run
 * leaves at most a .psnrhvs-XXXXXX temporary beside it, never the file
 * itself); reading it back also catches a file put there by something else
 * that is cut short or in another format. Its pooled values fill the summary.
 */
static int read_back(Job *const j, char *const why, const size_t why_size) {
    PsnrHvsScoreSet s;
    if (scores_read(&s, j->output, why, why_size) < 0) return -1;
    if (strcmp(psnrhvs_scores_format_string(s.format), j->format)) {
        snprintf(why, why_size, "%s holds %s, the job asks for %s", j->output,
                 psnrhvs_scores_format_string(s.format), j->format);
        psnrhvs_scores_free(&s);
        return -1;
    }
    j->num_frames = s.num_frames;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
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
            batch_say(b, "psnrhvs: batch: job %s: not complete, running it again: %s", j->id, why);
        return 0;
    }
    /* The plot is written before the output: one missing now was removed
     * since, and only a run makes it again. */
    if (j->plot && (stat(j->plot, &st) || !S_ISREG(st.st_mode))) {
        if (!b->quiet)
            batch_say(b, "psnrhvs: batch: job %s: its plot %s is missing, running it again", j->id,
                      j->plot);
        return 0;
    }
    return 1;
}

/* The job's command line (strings its own: the parsed settings point at them). */
static void job_argv(const Batch *const b, Job *const j) {
    char **const argv = batch_xmalloc((size_t)(j->num_opts + 24) * sizeof(char *));
    int n = 0;
    argv[n++] = batch_xstrdup("psnrhvs");
    argv[n++] = batch_xstrdup("-r");
    argv[n++] = batch_xstrdup(j->reference);
    argv[n++] = batch_xstrdup("-d");
    argv[n++] = batch_xstrdup(j->distorted);
    for (int i = 0; i < j->num_opts; i++) argv[n++] = batch_xstrdup(j->opts[i]);
    if (j->gpu_slot >= 0) {
        argv[n++] = batch_xstrdup("--backend");
        argv[n++] = batch_xstrdup(cli_backend_name(b->gpu[j->gpu_slot].backend));
        argv[n++] = batch_xstrdup("--device");
        argv[n++] = batch_xprintf("%d", b->gpu[j->gpu_slot].device);
    } else if (!j->any_backend) {
        argv[n++] = batch_xstrdup("--backend");
        argv[n++] = batch_xstrdup(cli_backend_name(j->backend));
        if (j->device >= 0) {
            argv[n++] = batch_xstrdup("--device");
            argv[n++] = batch_xprintf("%d", j->device);
        }
    } else {
        argv[n++] = batch_xstrdup("--backend");
        argv[n++] = batch_xstrdup("cpu");
    }
    argv[n++] = batch_xstrdup("--threads");
    argv[n++] = batch_xprintf("%d", j->threads_used);
    argv[n++] = batch_xprintf("--%s", j->format);
    argv[n++] = batch_xstrdup("-o");
    argv[n++] = batch_xstrdup(j->output);
    if (j->plot) {
        argv[n++] = batch_xstrdup("--plot");
        argv[n++] = batch_xstrdup(j->plot);
    }
    argv[n++] = batch_xstrdup("-q"); /* no progress line; warnings are the job's message */
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
    batch_say(b, "psnrhvs: batch: job %s failed: %s", j->id, msg);
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
            b->pool[i].last_used = cli_now();
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
        .cancel = &batch_interrupted,
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
        cli_parse(j->argc, j->argv, 0, &j->cli, &j->lib);
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
    const int err = cli_thread_start(&j->thread, job_main, j);
    if (err) {
        snprintf(why, sizeof(why), "cannot start its thread: %s", strerror(err));
        fail_job(b, j, why);
        free_argv(j);
        return;
    }
    j->state = JOB_RUNNING;
    j->start = cli_now();
    b->run_list[b->running++] = j;
}

static void finish_job(Batch *const b, Job *const j) {
    pthread_join(j->thread, NULL);
    free_argv(j);
    j->seconds = cli_now() - j->start;
    for (int i = 0; i < b->running; i++)
        if (b->run_list[i] == j) b->run_list[i] = b->run_list[--b->running];
    if (j->gpu_slot >= 0) {
        GpuSlot *const s = &b->gpu[j->gpu_slot];
        if (!--s->running) b->cores_used -= s->cores, s->cores = 0;
    } else
        b->cpu_jobs--;
    b->cores_used -= j->cores;
    char msg[MAX_LINE_BYTES + 64];
    if (j->status == 0) {
        char why[600];
        struct stat st;
        /* A device or a pipe (-o /dev/null) has nothing to read back: the
         * job is done, its summary row without values. */
        const int regular = stat(j->output, &st) || S_ISREG(st.st_mode);
        if (regular && read_back(j, why, sizeof(why)) < 0) {
            fail_job(b, j, why);
            return;
        }
        j->state = JOB_DONE;
        b->finished++;
        if (j->message[0] && !b->quiet)
            batch_say(b, "psnrhvs: batch: job %s: %s", j->id, j->message);
        return;
    }
    if (j->message[0])
        snprintf(msg, sizeof(msg), "%s", j->message);
    else
        snprintf(msg, sizeof(msg), "exit status %d", j->status);
    if (batch_interrupted) snprintf(msg, sizeof(msg), "interrupted");
    fail_job(b, j, msg);
}

/* ---- scheduling ---- */

/* Place a job: a free GPU or room in the CPU budget. @return 1 if started. */
static int try_start(Batch *const b, Job *const j, const int cpu_pending) {
    const int nothing_running = b->running == 0;
    /* a GPU: one job each, and a few cores to feed it */
    if (j->any_backend || psnrhvs_backend_kind(j->backend) != PSNRHVS_KIND_HOST) {
        int matching = 0;
        for (int g = 0; g < b->num_gpus; g++) {
            const GpuSlot *const s = &b->gpu[g];
            if (!j->any_backend &&
                (s->backend != j->backend || (j->device >= 0 && s->device != j->device)))
                continue;
            matching++;
            if (s->running >= b->gpu_jobs) continue;
            /* A job's own threads are its own; else it shares the cores its
             * GPU holds while any of its jobs runs. */
            const int own = j->threads >= 0;
            const int threads = own ? (j->threads ? j->threads : b->cores) : b->gpu_cores;
            int need = threads < b->cores ? threads : b->cores;
            if (!own && s->cores) need = 0;
            if (!nothing_running && b->cores_used + need > b->cores) return 0;
            j->gpu_slot = g;
            j->cores = own ? need : 0;
            j->threads_used = threads;
            b->gpu[g].running++;
            if (!own) b->gpu[g].cores += need;
            b->cores_used += need;
            snprintf(j->device_name, sizeof(j->device_name), "%s:%d", cli_backend_name(s->backend),
                     s->device);
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
    if (j->any_backend || psnrhvs_backend_kind(j->backend) == PSNRHVS_KIND_HOST)
        snprintf(j->device_name, sizeof(j->device_name), "cpu");
    else if (j->device >= 0)
        snprintf(j->device_name, sizeof(j->device_name), "%s:%d", cli_backend_name(j->backend),
                 j->device);
    else
        snprintf(j->device_name, sizeof(j->device_name), "%s", cli_backend_name(j->backend));
    start_job(b, j);
    return 1;
}

static void schedule(Batch *const b) {
    if (batch_interrupted) return;
    while (b->first_pending < b->num_jobs && b->jobs[b->first_pending].state != JOB_PENDING)
        b->first_pending++;
    for (int i = b->first_pending; i < b->num_jobs && b->pending; i++) {
        Job *const j = &b->jobs[i];
        if (j->state != JOB_PENDING) continue;
        if (try_start(b, j, b->pending)) b->pending--;
        if (b->cores_used >= b->cores && b->running) {
            /* no core left: only a free GPU could take more */
            int free_gpu = 0;
            for (int g = 0; g < b->num_gpus; g++) free_gpu |= b->gpu[g].running < b->gpu_jobs;
            if (!free_gpu) break;
        }
    }
}

int batch_run(Batch *const b) {
    b->start = cli_now();
    for (int i = 0; i < b->num_jobs; i++) {
        Job *const j = &b->jobs[i];
        if (!b->force && output_complete(b, j)) {
            j->state = JOB_SKIPPED;
            b->finished++;
        } else {
            b->pending++;
        }
    }
    b->run_list = batch_xmalloc((size_t)b->num_jobs * sizeof(Job *));

    int drawn_finished = 0;
    schedule(b);
    if (!b->quiet) batch_draw(b, 0);
    double t_interrupted = 0;
    while (b->running || (!batch_interrupted && b->finished < b->num_jobs)) {
        /* On an interrupt the running jobs stop at their next frame (cancel);
         * one blocked on its input (a pipe no one writes) is given up after a
         * second: the process ends with the signal, its temporary file gone. */
        if (batch_interrupted && !t_interrupted) t_interrupted = cli_now();
        if (batch_interrupted && cli_now() - t_interrupted > 1.0) {
            for (int i = 0; i < b->running; i++) {
                b->run_list[i]->state = JOB_FAILED;
                snprintf(b->run_list[i]->message, sizeof(b->run_list[i]->message), "interrupted");
            }
            b->running = 0;
            break;
        }
        /* A job that ends writes a byte; the wait also paces the progress line. */
        struct pollfd pfd = {b->done_pipe[0], POLLIN, 0};
        const int r = poll(&pfd, 1, b->tty ? 250 : 1000);
        if (r < 0 && errno != EINTR) {
            fprintf(stderr, "psnrhvs: batch: poll: %s\n", strerror(errno));
            break;
        }
        if (r > 0) {
            char drain[64];
            while (read(b->done_pipe[0], drain, sizeof(drain)) < 0 && errno == EINTR) continue;
        }
        for (int i = b->running - 1; i >= 0; i--) {
            Job *const j = b->run_list[i];
            if (atomic_load(&j->done)) finish_job(b, j);
        }
        schedule(b);
        /* a terminal: 4 times a second; a log: at most once a second, at least every 10 s */
        const double since = cli_now() - b->last_draw;
        if (!b->quiet && b->finished < b->num_jobs &&
            (b->tty ? since >= 0.25
                    : since >= 10 || (since >= 1 && b->finished != drawn_finished))) {
            batch_draw(b, 0);
            drawn_finished = b->finished;
        }
        /* nothing running and nothing to start: cannot happen, but never spin */
        if (b->running == 0 && !batch_interrupted && !b->pending) break;
    }
    free(b->run_list);
    int failed = 0;
    for (int i = 0; i < b->num_jobs; i++) {
        Job *const j = &b->jobs[i];
        if (j->state == JOB_PENDING) j->state = JOB_NOT_RUN;
        failed += j->state == JOB_FAILED || j->state == JOB_NOT_RUN;
    }
    return failed;
}
