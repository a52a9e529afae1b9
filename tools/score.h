/*
 * psnrhvs: the score command, for the CLI's main and for psnrhvs batch,
 * which runs it on threads with contexts kept open between its jobs.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_SCORE_H
#define PSNRHVS_TOOLS_SCORE_H

#include <signal.h>

#include "cli_parse.h"
#include "psnrhvs.h"

typedef struct ScoreEnv {
    /* A context for s (opened, or one kept open from an earlier run), and
     * giving it back; NULL: psnrhvs_open() and psnrhvs_close(). */
    int (*open)(void *cookie, PsnrHvsContext **c, const PsnrHvsSettings *s);
    void (*close)(void *cookie, PsnrHvsContext **c);
    /* Frames read so far, and those expected (-1: unknown), a few times a second. */
    void (*progress)(void *cookie, unsigned frames, long long total);
    void *cookie;
    const volatile sig_atomic_t *cancel; ///< set: the run stops at its next frame (an error)
    int keep_process;                    ///< never end the process early (a job among others)
} ScoreEnv;

/**
 * Score cli's inputs with lib's settings (the logger is the run's own).
 * Messages go to cli_err() (msg.h). env may be NULL (a run alone).
 * @return the exit status: 0, 1 (an error, reported) or 2 (a usage error).
 */
int cli_score(const CLISettings *cli, PsnrHvsSettings lib, const ScoreEnv *env);

#endif /* PSNRHVS_TOOLS_SCORE_H */
