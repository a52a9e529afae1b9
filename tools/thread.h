/*
 * psnrhvs: the CLI's helper threads. Only the main thread takes the
 * signals sent to the process, where the outputs' handlers clean up.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_THREAD_H
#define PSNRHVS_TOOLS_THREAD_H

#include <pthread.h>

/**
 * pthread_create(t, NULL, fn, arg) with every signal blocked from the first
 * instruction, but the faults the thread itself causes (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL), unblocked once it runs. @return pthread_create's.
 */
int cli_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif /* PSNRHVS_TOOLS_THREAD_H */
