/*
 * psnrhvs: a small pthread pool running parallel-for loops.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_THREAD_POOL_H
#define PSNRHVS_SRC_THREAD_POOL_H

typedef struct PsnrHvsThreadPool PsnrHvsThreadPool;

/* nthreads counts the calling thread: 1 starts no worker, 0 means one thread
 * per online core. Returns NULL on failure. */
PsnrHvsThreadPool *psnrhvs_thread_pool_create(int nthreads);

/* NULL is accepted. */
void psnrhvs_thread_pool_destroy(PsnrHvsThreadPool *pool);

/* Threads that run tasks, the calling thread included; 1 for NULL. */
int psnrhvs_thread_pool_size(const PsnrHvsThreadPool *pool);

/* Runs fn(arg, task, worker) for task = 0 .. ntasks-1 and returns when all have
 * finished. worker is in [0, size): 0 is the calling thread, which takes tasks
 * too. Tasks are handed out in increasing order, each once. One run at a time
 * per pool (callers on several threads must serialise). pool may be NULL: the
 * calling thread runs every task. */
void psnrhvs_thread_pool_run(PsnrHvsThreadPool *pool, int ntasks,
                             void (*fn)(void *arg, int task, int worker), void *arg);

#endif /* PSNRHVS_SRC_THREAD_POOL_H */
