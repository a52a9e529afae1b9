/*
 * psnrhvs: helper threads that leave the process's signals to main.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "thread.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>

typedef struct Start {
    void *(*fn)(void *);
    void *arg;
} Start;

static void *trampoline(void *const data) {
    const Start st = *(const Start *)data;
    free(data);
    /* A fault is the faulting thread's: the mapped-file guard (input.c)
     * turns a SIGBUS into an error there. Kept blocked, it would kill. */
    sigset_t faults;
    sigemptyset(&faults);
    sigaddset(&faults, SIGSEGV);
    sigaddset(&faults, SIGBUS);
    sigaddset(&faults, SIGFPE);
    sigaddset(&faults, SIGILL);
    pthread_sigmask(SIG_UNBLOCK, &faults, NULL);
    return st.fn(st.arg);
}

int cli_thread_start(pthread_t *const t, void *(*const fn)(void *), void *const arg) {
    Start *const st = malloc(sizeof(*st));
    if (!st) return ENOMEM;
    st->fn = fn;
    st->arg = arg;
    /* A signal sent while the thread starts (before a sanitizer's runtime
     * has set it up, say) is never delivered to it. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    const int err = pthread_create(t, NULL, trampoline, st);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) free(st);
    return err;
}
