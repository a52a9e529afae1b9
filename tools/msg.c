/*
 * psnrhvs: the CLI's message stream, per thread (msg.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "msg.h"

#include <stdatomic.h>
#include <stdlib.h>

static _Thread_local FILE *err;
static _Thread_local jmp_buf *usage;
/* stderr ends in a progress line: a message (from any thread) ends it first. */
static atomic_int progress_line;

FILE *cli_err(void) {
    if (err) return err;
    if (atomic_exchange(&progress_line, 0)) fputc('\n', stderr);
    return stderr;
}

void cli_progress_line(const int open) {
    atomic_store(&progress_line, open);
}

void cli_msg_set(FILE *const f, jmp_buf *const u) {
    err = f;
    usage = u;
}

_Noreturn void cli_usage_exit(void) {
    fflush(cli_err());
    if (usage) longjmp(*usage, 2);
    exit(2);
}

_Noreturn void cli_command_usage_error(const char *const cmd, const char *const msg,
                                       const char *const arg) {
    fprintf(cli_err(), "psnrhvs: %s: %s%s%s%s (see psnrhvs %s --help)\n", cmd, msg, arg ? " '" : "",
            arg ? arg : "", arg ? "'" : "", cmd);
    cli_usage_exit();
}
