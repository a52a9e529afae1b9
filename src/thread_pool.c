/*
 * psnrhvs: a small pthread pool running jobs of numbered tasks.
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * One mutex guards the queue of jobs with tasks left to hand out: a task is
 * taken under it, and counted as finished with an atomic add, so a task
 * costs one lock round trip (the lock is taken again only to wake waiters
 * when a job's last task returns). Tasks are coarse (a block row, a slice of
 * a copy); in exchange jobs can be queued and waited for independently.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "psnrhvs.h"
#include "thread_pool.h"
#include "thread_start.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct PsnrHvsThreadPool {
    pthread_mutex_t lock;
    pthread_cond_t work; /* workers: a task was queued, or shutdown */
    pthread_cond_t done; /* waiters: a job finished */
    pthread_t *threads;
    int nthreads; /* calling thread included */
    int nworkers; /* started threads */
    int shutdown;
    PsnrHvsThreadJob *head, *tail; /* jobs with tasks not yet handed out */
};

typedef struct WorkerStart {
    PsnrHvsThreadPool *pool;
    int id;
} WorkerStart;

/* Called with the lock held: the next task in queue order, if any. */
static int take(PsnrHvsThreadPool *const pool, PsnrHvsThreadJob **const job, int *const task) {
    PsnrHvsThreadJob *const j = pool->head;
    if (!j) return 0;
    *job = j;
    *task = j->claimed++;
    if (j->claimed == j->ntasks) {
        pool->head = j->next;
        if (!pool->head) pool->tail = NULL;
    }
    return 1;
}

/* Runs a taken task, dropping the lock meanwhile. The job may be reused by
 * its owner as soon as its last task is counted: nothing touches it after. */
static void run_task(PsnrHvsThreadPool *const pool, PsnrHvsThreadJob *const job, const int task,
                     const int worker) {
    const int ntasks = job->ntasks;
    pthread_mutex_unlock(&pool->lock);
    job->fn(job->arg, task, worker);
    const int last =
        atomic_fetch_add_explicit(&job->finished, 1, memory_order_acq_rel) + 1 == ntasks;
    pthread_mutex_lock(&pool->lock);
    if (last) pthread_cond_broadcast(&pool->done);
}

static void *worker_main(void *const data) {
    /* Started with every signal blocked (lib.c opens backends so): the
     * caller's signals go to its threads, but a fault this worker causes
     * (a mapped file cut short under a retained picture) is its own. */
    sigset_t faults;
    sigemptyset(&faults);
    sigaddset(&faults, SIGSEGV);
    sigaddset(&faults, SIGBUS);
    sigaddset(&faults, SIGFPE);
    sigaddset(&faults, SIGILL);
    pthread_sigmask(SIG_UNBLOCK, &faults, NULL);
    WorkerStart *const start = data;
    PsnrHvsThreadPool *const pool = start->pool;
    const int id = start->id;
    free(start);
    pthread_mutex_lock(&pool->lock);
    while (!pool->shutdown) {
        PsnrHvsThreadJob *job;
        int task;
        if (take(pool, &job, &task))
            run_task(pool, job, task, id);
        else
            pthread_cond_wait(&pool->work, &pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* The cores this process may use: online ones, within its affinity mask
 * and a container's CPU quota (cgroup v2 cpu.max, v1 cfs_quota_us). */
static int cpu_count;

static long quota_cpus(const char *const path, const char *const period_path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char quota[32] = "";
    long period = 0;
    const int n = fscanf(f, "%31s %ld", quota, &period);
    fclose(f);
    if (n < 1 || !strcmp(quota, "max") || atol(quota) <= 0) return 0;
    if (period_path) {
        if (!(f = fopen(period_path, "r"))) return 0;
        if (fscanf(f, "%ld", &period) != 1) period = 0;
        fclose(f);
    } else if (n < 2) {
        return 0;
    }
    return period > 0 ? (atol(quota) + period - 1) / period : 0;
}

static void count_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef __linux__
    cpu_set_t set;
    if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0) n = CPU_COUNT(&set);
    long q = quota_cpus("/sys/fs/cgroup/cpu.max", NULL);
    if (!q)
        q = quota_cpus("/sys/fs/cgroup/cpu/cpu.cfs_quota_us",
                       "/sys/fs/cgroup/cpu/cpu.cfs_period_us");
    if (q > 0 && q < n) n = q;
#endif
    cpu_count = n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

int psh_cpu_count(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, count_cpus);
    return cpu_count;
}

int psnrhvs_cpu_count(void) {
    return psh_cpu_count();
}

PsnrHvsThreadPool *psh_thread_pool_create(int nthreads) {
    if (nthreads < 0) return NULL;
    if (nthreads == 0) nthreads = psh_cpu_count();
    PsnrHvsThreadPool *const pool = calloc(1, sizeof(*pool));
    if (!pool) return NULL;
    pool->nthreads = nthreads;
    if (pthread_mutex_init(&pool->lock, NULL)) goto error_mutex;
    if (pthread_cond_init(&pool->work, NULL)) goto error_work;
    if (pthread_cond_init(&pool->done, NULL)) goto error_done;
    if (nthreads > 1) {
        pool->threads = malloc(sizeof(*pool->threads) * (size_t)(nthreads - 1));
        if (!pool->threads) goto error;
        for (int i = 1; i < nthreads; i++) {
            WorkerStart *const start = malloc(sizeof(*start));
            if (!start) goto error;
            start->pool = pool;
            start->id = i;
            if (psh_thread_create(&pool->threads[i - 1], worker_main, start)) {
                free(start);
                goto error;
            }
            pool->nworkers++;
        }
    }
    return pool;

error:
    psh_thread_pool_destroy(pool);
    return NULL;
error_done:
    pthread_cond_destroy(&pool->work);
error_work:
    pthread_mutex_destroy(&pool->lock);
error_mutex:
    free(pool);
    return NULL;
}

void psh_thread_pool_destroy(PsnrHvsThreadPool *const pool) {
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->shutdown = 1;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < pool->nworkers; i++) pthread_join(pool->threads[i], NULL);
    free(pool->threads);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->work);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

int psh_thread_pool_size(const PsnrHvsThreadPool *const pool) {
    return pool ? pool->nworkers + 1 : 1;
}

void psh_thread_pool_submit(PsnrHvsThreadPool *const pool, PsnrHvsThreadJob *const job,
                            const int ntasks, const PsnrHvsTaskFn fn, void *const arg) {
    job->fn = fn;
    job->arg = arg;
    job->ntasks = ntasks > 0 ? ntasks : 0;
    job->claimed = 0;
    atomic_store_explicit(&job->finished, 0, memory_order_relaxed);
    job->next = NULL;
    if (!job->ntasks) return;
    if (!pool || !pool->nworkers) {
        for (int task = 0; task < job->ntasks; task++) fn(arg, task, 0);
        job->claimed = job->ntasks;
        atomic_store_explicit(&job->finished, job->ntasks, memory_order_release);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    if (pool->tail)
        pool->tail->next = job;
    else
        pool->head = job;
    pool->tail = job;
    if (job->ntasks == 1)
        pthread_cond_signal(&pool->work);
    else
        pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);
}

void psh_thread_pool_wait(PsnrHvsThreadPool *const pool, PsnrHvsThreadJob *const job) {
    if (!pool || !pool->nworkers) return; /* submit ran it */
    if (atomic_load_explicit(&job->finished, memory_order_acquire) == job->ntasks) return;
    pthread_mutex_lock(&pool->lock);
    while (atomic_load_explicit(&job->finished, memory_order_acquire) < job->ntasks) {
        PsnrHvsThreadJob *j;
        int task;
        if (take(pool, &j, &task))
            run_task(pool, j, task, 0);
        else
            pthread_cond_wait(&pool->done, &pool->lock);
    }
    pthread_mutex_unlock(&pool->lock);
}

int psh_thread_pool_help(PsnrHvsThreadPool *const pool) {
    if (!pool || !pool->nworkers) return 0;
    pthread_mutex_lock(&pool->lock);
    PsnrHvsThreadJob *job;
    int task;
    const int ran = take(pool, &job, &task);
    if (ran) run_task(pool, job, task, 0);
    pthread_mutex_unlock(&pool->lock);
    return ran;
}

void psh_thread_pool_run(PsnrHvsThreadPool *const pool, const int ntasks, const PsnrHvsTaskFn fn,
                         void *const arg) {
    PsnrHvsThreadJob job;
    psh_thread_pool_submit(pool, &job, ntasks, fn, arg);
    psh_thread_pool_wait(pool, &job);
}
