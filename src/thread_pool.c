/*
 * psnrhvs: a small pthread pool running parallel-for loops.
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Workers sleep on a condition variable between runs. A run publishes
 * (fn, arg, ntasks) under the mutex and bumps a generation counter; tasks are
 * then claimed with an atomic counter, so the mutex is not touched per task.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "thread_pool.h"

struct PsnrHvsThreadPool {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* workers: a new run or shutdown */
    pthread_cond_t done; /* caller: the last worker left the run */
    pthread_t *threads;
    int nthreads; /* calling thread included */
    int nworkers; /* started threads */
    unsigned generation;
    int shutdown;
    int busy; /* workers still inside the current run */
    void (*fn)(void *arg, int task, int worker);
    void *arg;
    int ntasks;
    atomic_int next;
};

typedef struct WorkerStart {
    PsnrHvsThreadPool *pool;
    int id;
} WorkerStart;

static void run_tasks(PsnrHvsThreadPool *const pool, const int id) {
    const int ntasks = pool->ntasks;
    for (;;) {
        const int task = atomic_fetch_add_explicit(&pool->next, 1, memory_order_relaxed);
        if (task >= ntasks) break;
        pool->fn(pool->arg, task, id);
    }
}

static void *worker_main(void *const data) {
    WorkerStart *const start = data;
    PsnrHvsThreadPool *const pool = start->pool;
    const int id = start->id;
    unsigned seen = 0;
    free(start);

    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->shutdown && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->shutdown) break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->lock);
        run_tasks(pool, id);
        pthread_mutex_lock(&pool->lock);
        if (--pool->busy == 0) pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

PsnrHvsThreadPool *psnrhvs_thread_pool_create(int nthreads) {
    PsnrHvsThreadPool *pool;
    if (nthreads < 0) return NULL;
    if (nthreads == 0) {
        const long n = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
    }
    pool = calloc(1, sizeof(*pool));
    if (!pool) return NULL;
    pool->nthreads = nthreads;
    atomic_init(&pool->next, 0);
    if (pthread_mutex_init(&pool->lock, NULL)) goto error_mutex;
    if (pthread_cond_init(&pool->wake, NULL)) goto error_wake;
    if (pthread_cond_init(&pool->done, NULL)) goto error_done;
    if (nthreads > 1) {
        pool->threads = malloc(sizeof(*pool->threads) * (size_t)(nthreads - 1));
        if (!pool->threads) goto error;
        for (int i = 1; i < nthreads; i++) {
            WorkerStart *const start = malloc(sizeof(*start));
            if (!start) goto error;
            start->pool = pool;
            start->id = i;
            if (pthread_create(&pool->threads[i - 1], NULL, worker_main, start)) {
                free(start);
                goto error;
            }
            pool->nworkers++;
        }
    }
    return pool;

error:
    psnrhvs_thread_pool_destroy(pool);
    return NULL;
error_done:
    pthread_cond_destroy(&pool->wake);
error_wake:
    pthread_mutex_destroy(&pool->lock);
error_mutex:
    free(pool);
    return NULL;
}

void psnrhvs_thread_pool_destroy(PsnrHvsThreadPool *const pool) {
    if (!pool) return;
    pthread_mutex_lock(&pool->lock);
    pool->shutdown = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 0; i < pool->nworkers; i++) pthread_join(pool->threads[i], NULL);
    free(pool->threads);
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
    free(pool);
}

int psnrhvs_thread_pool_size(const PsnrHvsThreadPool *const pool) {
    return pool ? pool->nworkers + 1 : 1;
}

void psnrhvs_thread_pool_run(PsnrHvsThreadPool *const pool, const int ntasks,
                             void (*const fn)(void *arg, int task, int worker), void *const arg) {
    if (ntasks <= 0) return;
    if (!pool || pool->nworkers == 0 || ntasks == 1) {
        for (int task = 0; task < ntasks; task++) fn(arg, task, 0);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->arg = arg;
    pool->ntasks = ntasks;
    atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
    pool->busy = pool->nworkers;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    run_tasks(pool, 0);

    /* Workers may still be finishing a task, or may not have woken at all yet
     * (they then find the counter exhausted): wait for every one of them, so
     * the next run cannot be joined late by a stale worker. */
    pthread_mutex_lock(&pool->lock);
    while (pool->busy) pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}
