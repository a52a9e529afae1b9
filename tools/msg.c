/*
 * psnrhvs: the CLI's message stream, per thread (msg.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "msg.h"

#include <stdlib.h>

static _Thread_local FILE *err;
static _Thread_local jmp_buf *usage;

FILE *cli_err(void) {
    return err ? err : stderr;
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
