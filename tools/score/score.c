/*
 * psnrhvs: the score command (psnrhvs -r REF -d DIST...) as a pipeline of
 * stages, each in the file named for it: open the inputs, agree on the
 * format, open the outputs, prepare (settings, pair reader), open the
 * context, send and receive, write. A batch job runs it on a thread of its
 * own; parity (parity.c) runs the stages up to the pair reader.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "score_int.h"

Run *run_new(const CLISettings *const cli, const PsnrHvsSettings *const lib,
             const ScoreEnv *const env) {
    static const ScoreEnv alone = {0};
    Run *const run = calloc(1, sizeof(*run));
    if (run) run->rend = calloc((size_t)cli->num_dists, sizeof(*run->rend));
    if (!run || !run->rend) {
        free(run);
        fprintf(cli_err(), "psnrhvs: out of memory\n");
        return NULL;
    }
    run->t0 = cli_now();
    run->cli = *cli;
    run->lib = *lib;
    run->env = env ? env : &alone;
    run->n = cli->num_dists;
    run->ladder = run->n > 1;
    run->format = cli->format >= 0 ? (enum PsnrHvsScoreFormat)cli->format : PSNRHVS_SCORES_XML;
    run_log_enter(run);
    return run;
}

int run_free(Run *const run, const int ret) {
    Rendition *const rend = run->rend;
    for (int r = 0; r < run->n; r++) {
        output_abort(&rend[r].of);
        output_abort(&rend[r].plot_of);
    }
    run_remove_made_dirs(run, ret != 0);
    if (run->opener.started) pthread_join(run->opener.thread, NULL);
    run_close_context(run->env, &run->opener.ctx);
    run_close_context(run->env, &run->sc.ctx);
    /* The contexts are closed: nothing reads the GPU frames still held. */
    for (size_t i = 0; run->sc.holds && i < run->sc.ring_size; i++)
        score_free_holds(&run->sc.ring[i]);
    free(run->sc.ring);
    pair_reader_close(&run->pr);
    input_close(&run->ref);
    for (int r = 0; r < run->n; r++) {
        input_close(&rend[r].in);
        free(rend[r].results.frames);
    }
    free(rend);
    run_log_leave(run);
    free(run);
    return ret;
}

/* Done, every output in place, while a GPU still opens (a short run on
 * auto), with a GPU open (its context and pinned memory take a while to
 * tear down), or with NVDEC decoders, slow to destroy (bench/RESULTS.md):
 * the process ends now, and no thread is left in a driver while exit tears
 * the libraries down. Sanitizer builds and --timing runs with NVDEC close
 * as usual. */
static void exit_now(Run *const run) {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    const Scorer *const sc = &run->sc;
    const int on_device = strcmp(psnrhvs_backend_name(sc->ctx), "cpu") != 0;
    if (run->env->keep_process ||
        !(psnrhvs_opening(sc->ctx) || (sc->holds ? !run->cli.timing : on_device)))
        return;
    /* Inputs decoded on the CPU close first: their decoders' last warnings
     * are written, not cut off. */
    if (!sc->holds) {
        pair_reader_close(&run->pr);
        input_close(&run->ref);
        for (int r = 0; r < run->n; r++) input_close(&run->rend[r].in);
    }
    if (!fflush(NULL)) _exit(0);
#else
    (void)run;
#endif
}

int cli_score(const CLISettings *const cli, const PsnrHvsSettings lib, const ScoreEnv *const env) {
    Run *const run = run_new(cli, &lib, env);
    if (!run) return 1;
    int ret = run_open_inputs(run);
    if (!ret) ret = run_agree_format(run);
    if (!ret) ret = run_open_outputs(run);
    if (!ret) ret = run_prepare(run);
    if (!ret) ret = run_open_context(run);
    if (!ret) ret = run_send_receive(run);
    if (!ret) ret = run_write(run);
    if (!ret) exit_now(run);
    return run_free(run, ret);
}
