/*
 * psnrhvs: the score command's first stage: the reference and each
 * distorted input opened, all at once (decoders, NVDEC's too, start side by
 * side), and a ladder's outputs named before any file is opened.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "msg.h"
#include "score_int.h"

/* A raw or Y4M file can be read without ever blocking (not a pipe, not stdin). */
static int is_regular_file(const char *const path) {
    struct stat st;
    return strcmp(path, "-") && !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Loaded only when a clip asks (decode_choice.c): a short one opens no module. */
static int cuda_backend_opens(void) {
    return psnrhvs_backend_available(PSNRHVS_BACKEND_CUDA);
}

int run_open_inputs(Run *const run) {
    const CLISettings *const cli = &run->cli;
    const int n = run->n;
    Rendition *const rend = run->rend;
    if (run->ladder) {
        /* Names first: a usage error before any file is opened. */
        if (!cli->output && cli->format >= 0)
            cli_usage_error("--%s with several -d needs -o DIR/ or an -o pattern: the "
                            "renditions' scores would be mixed on stdout",
                            psnrhvs_scores_format_string(run->format));
        for (int r = 0; r < n; r++) rend[r].path = cli->dists[r];
        score_name_outputs(cli, run->format, rend, n);
    }

    /* Compressed inputs (FFmpeg): only the distorted is ever scaled. */
    const InputOptions ropt = {
        .hwaccel = cli->hwaccel,
        .hw_device = run->lib.device,
        .gpu_scorer = run_scores_device_frames(cli, &run->lib) ? cuda_backend_opens : NULL,
        .frames_wanted = cli->frame_cnt ? cli->frame_cnt + cli->frame_skip_ref : 0,
        .quiet = cli->quiet,
        .timing = cli->timing};
    InputOptions dopt = ropt;
    dopt.scale_algo = cli->scale_algo;
    dopt.frames_wanted = cli->frame_cnt ? cli->frame_cnt + cli->frame_skip_dist : 0;
    Input *opened[1 + PSNRHVS_MAX_RENDITIONS];
    const char *paths[1 + PSNRHVS_MAX_RENDITIONS] = {cli->reference};
    const InputOptions *opts[1 + PSNRHVS_MAX_RENDITIONS] = {&ropt};
    for (int r = 0; r < n; r++) paths[1 + r] = cli->dists[r], opts[1 + r] = &dopt;
    if (input_open_many(opened, paths, opts, 1 + n, run->in_ms) < 0) return 1;
    run->ref = opened[0];
    input_set_role(run->ref, "reference");
    int any_decoded = input_decoded(run->ref);
    run->all_files = is_regular_file(cli->reference);
    for (int r = 0; r < n; r++) {
        rend[r].path = cli->dists[r];
        rend[r].in = opened[1 + r];
        input_set_role(rend[r].in, "distorted");
        any_decoded |= input_decoded(rend[r].in);
        run->all_files &= is_regular_file(cli->dists[r]);
    }
    if (cli->hwaccel == INPUT_HWACCEL_CUDA && !cli->quiet && !any_decoded)
        fprintf(cli_err(), "psnrhvs: warning: --hwaccel has no effect: no input is compressed\n");
    return 0;
}
