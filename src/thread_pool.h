/*
 * psnrhvs: a small pthread pool running jobs of numbered tasks, in the
 * order they were submitted. A job is either run to completion by its
 * caller (a parallel for) or submitted and waited for later (the CPU
 * backend's frames in flight); waiting threads run queued tasks meanwhile.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_THREAD_POOL_H
#define PSNRHVS_SRC_THREAD_POOL_H

typedef struct PsnrHvsThreadPool PsnrHvsThreadPool;

typedef void (*PsnrHvsTaskFn)(void *arg, int task, int worker);

/* A job's memory belongs to the caller and must stay valid until it is
 * finished; the fields are the pool's. */
typedef struct PsnrHvsThreadJob {
    PsnrHvsTaskFn fn;
    void *arg;
    int ntasks;
    int claimed;          ///< tasks handed out (under the pool's lock)
    _Atomic int finished; ///< tasks returned
    struct PsnrHvsThreadJob *next;
} PsnrHvsThreadJob;

/* The cores this process may use (affinity, a container's CPU quota): the
 * one count every thread decision of the process starts from. */
int psh_cpu_count(void);

/* nthreads counts the calling thread: 1 starts no worker, 0 means one thread
 * per core psh_cpu_count() gives. Returns NULL on failure. */
PsnrHvsThreadPool *psh_thread_pool_create(int nthreads);

/* Waits for the tasks under way, drops queued ones. NULL is accepted. */
void psh_thread_pool_destroy(PsnrHvsThreadPool *pool);

/* Threads that run tasks, the calling thread included; 1 for NULL. */
int psh_thread_pool_size(const PsnrHvsThreadPool *pool);

/* Queues fn(arg, task, worker) for task = 0 .. ntasks-1 behind the jobs
 * queued before; returns at once. Tasks of a job start in increasing order.
 * worker is in [0, size): 0 is any thread that is not a worker (one that
 * waits or helps), so a context used by one thread at a time may keep
 * per-worker scratch. pool may be NULL: the tasks run here and now. */
void psh_thread_pool_submit(PsnrHvsThreadPool *pool, PsnrHvsThreadJob *job, int ntasks,
                            PsnrHvsTaskFn fn, void *arg);

/* Runs queued tasks (of any job, oldest first) on the calling thread, or
 * sleeps, until every task of job has returned. */
void psh_thread_pool_wait(PsnrHvsThreadPool *pool, PsnrHvsThreadJob *job);

/* Runs one queued task on the calling thread; 0 when none was queued. */
int psh_thread_pool_help(PsnrHvsThreadPool *pool);

/* submit, then wait: a parallel for. */
void psh_thread_pool_run(PsnrHvsThreadPool *pool, int ntasks, PsnrHvsTaskFn fn, void *arg);

#endif /* PSNRHVS_SRC_THREAD_POOL_H */
