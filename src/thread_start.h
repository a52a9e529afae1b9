/*
 * psnrhvs: starting the library's threads with the process's signals
 * blocked, so that a signal sent to the process reaches one of the
 * application's threads (the CLI's main thread, which removes its
 * temporary outputs), whatever threads the library runs. Faults stay
 * unblocked: they belong to the thread that faults. Threads a driver starts
 * on these threads inherit the same mask.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_THREAD_START_H
#define PSNRHVS_SRC_THREAD_START_H

#include <pthread.h>
#include <signal.h>

static inline int psh_thread_create(pthread_t *const t, void *(*const fn)(void *),
                                    void *const arg) {
    sigset_t mask, old;
    sigfillset(&mask);
    sigdelset(&mask, SIGSEGV);
    sigdelset(&mask, SIGBUS);
    sigdelset(&mask, SIGFPE);
    sigdelset(&mask, SIGILL);
    pthread_sigmask(SIG_SETMASK, &mask, &old);
    const int err = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}

#endif /* PSNRHVS_SRC_THREAD_START_H */
