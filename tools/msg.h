/*
 * psnrhvs: where the CLI's messages go. stderr, but for a job of psnrhvs
 * batch (a thread of its own): its message buffer, and a usage error ends
 * the job instead of the process.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_MSG_H
#define PSNRHVS_TOOLS_MSG_H

#include <setjmp.h>
#include <stdio.h>

/** This thread's message stream: stderr unless cli_msg_set() said otherwise. */
FILE *cli_err(void);

/**
 * 1: stderr now ends in a progress line, rewritten in place; the next
 * message through cli_err() ends that line first. 0: it does not (say so
 * before drawing it again).
 */
void cli_progress_line(int open);

/**
 * This thread's messages to f (NULL: stderr again), and where a usage error
 * jumps (NULL: it exits with status 2).
 */
void cli_msg_set(FILE *f, jmp_buf *usage);

/** The usage error's way out: longjmp(..., 2) where set, else exit(2). */
_Noreturn void cli_usage_exit(void);

/** "psnrhvs: CMD: MSG 'ARG' (see psnrhvs CMD --help)" (arg may be NULL), then
 *  cli_usage_exit(). */
_Noreturn void cli_command_usage_error(const char *cmd, const char *msg, const char *arg);

#endif /* PSNRHVS_TOOLS_MSG_H */
