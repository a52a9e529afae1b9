/*
 * psnrhvs: the score command's outputs: each rendition's file names, and
 * its scores written out (output file, plot, or summary on stdout).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <string.h>

#include "psnrhvs.h"
#include "cli_parse.h"
#include "input/input.h"
#include "msg.h"
#include "output/outname.h"
#include "output/output.h"
#include "report.h"
#include "score_int.h"
#include "read_scores.h"

/* Several -d: each rendition's output and plot name, checked before any frame is read. */
int score_name_outputs(const CLISettings *const cli, const enum PsnrHvsScoreFormat format,
                       Rendition *const rend, const int n) {
    char err[512];
    for (int r = 0; r < n; r++) {
        if (cli->output &&
            output_name(rend[r].out_name, sizeof(rend[r].out_name), cli->output, rend[r].path, r,
                        psnrhvs_scores_format_string(format), err, sizeof(err)) < 0)
            cli_usage_error("%s", err);
        if (cli->plot && output_name(rend[r].plot_name, sizeof(rend[r].plot_name), cli->plot,
                                     rend[r].path, r, "svg", err, sizeof(err)) < 0)
            cli_usage_error("--plot: %s", err);
    }
    for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
            if (cli->output && !strcmp(rend[a].out_name, rend[b].out_name))
                cli_usage_error(
                    "-d %s and -d %s would both write %s: use %%d in the -o pattern, or "
                    "give the files different names",
                    rend[a].path, rend[b].path, rend[a].out_name);
            if (cli->plot && !strcmp(rend[a].plot_name, rend[b].plot_name))
                cli_usage_error("-d %s and -d %s would both plot to %s: use %%d in the "
                                "--plot pattern",
                                rend[a].path, rend[b].path, rend[a].plot_name);
        }
    }
    return 0;
}

/* Write one rendition's plot (first: a complete output then means a complete
 * plot, batch's resume) and output, or its summary. @return 0 or -1 (reported). */
int score_write_rendition(Rendition *const rd, Input *const ref, const CLISettings *const cli,
                          const enum PsnrHvsScoreFormat format, const char *const engine,
                          const double elapsed, const int labelled) {
    char version[64];
    snprintf(version, sizeof(version), "psnrhvs-%s", psnrhvs_version());
    const PsnrHvsScore first = rd->results.frames[0].score;
    PsnrHvsOutput data = {
        .version = version,
        .engine = engine,
        .width = rd->fmt.width,
        .height = rd->fmt.height,
        .fps = elapsed > 0 ? (double)rd->results.num / elapsed : 0.0,
        .num_planes = first.num_planes == 1 ? 1 : 3,
        .frames = rd->results.frames,
        .num_frames = rd->results.num,
        .precision = cli->precision,
        .raw = cli->raw,
    };
    if (rd->plot_of || rd->of) {
        /* Both or neither: a failed output leaves the old plot too. */
        const int has_output = rd->of != NULL;
        PsnrHvsScoreSet plot_scores = {0};
        if (rd->plot_of && scores_from_output(&plot_scores, &data) < 0) {
            fprintf(cli_err(), "psnrhvs: out of memory\n");
            return -1;
        }
        char title[512];
        const char *const dn = input_name(rd->in), *const rn = input_name(ref);
        const char *const ds = strrchr(dn, '/'), *const rs = strrchr(rn, '/');
        snprintf(title, sizeof(title), "%s vs %s", ds ? ds + 1 : dn, rs ? rs + 1 : rn);
        const PlotData pd = {.scores = &plot_scores, .title = title};
        const OutputFormat of = {format, &data};
        const OutputWrite w[2] = {{&rd->plot_of, plot_write, &pd},
                                  {&rd->of, output_format_write, &of}};
        const int res = output_commit_many(w, 2);
        psnrhvs_scores_free(&plot_scores);
        if (res < 0 || has_output) return res;
    }
    if (labelled) printf("%s\n", input_name(rd->in));
    if (psnrhvs_output_summary(&data, output_fwrite, stdout) < 0 || fflush(stdout)) {
        fprintf(cli_err(), "psnrhvs: cannot write to stdout\n");
        return -1;
    }
    return 0;
}

/* One line: which side had no frame to pair (after its skip). */
static void report_no_frames(Input *const ref, Input *const dist, const CLISettings *const cli) {
    const int ref_none = input_frames_read(ref) <= cli->frame_skip_ref;
    const int dist_none = input_frames_read(dist) <= cli->frame_skip_dist;
    const char *const rn = input_name(ref), *const dn = input_name(dist);
    if (ref_none && dist_none && strcmp(rn, dn))
        fprintf(cli_err(), "psnrhvs: no frames to score: neither %s nor %s has a frame%s\n", rn, dn,
                cli->frame_skip_ref || cli->frame_skip_dist ? " after skipping" : "");
    else if (ref_none || dist_none)
        fprintf(cli_err(), "psnrhvs: no frames to score: %s has no frame%s\n", ref_none ? rn : dn,
                (ref_none ? cli->frame_skip_ref : cli->frame_skip_dist) ? " after skipping" : "");
    else
        fprintf(cli_err(), "psnrhvs: no frames to score\n");
}

int run_write(Run *const run) {
    Rendition *const rend = run->rend;
    for (int r = 0; r < run->n; r++) {
        if (!rend[r].results.num) {
            report_no_frames(run->ref, rend[r].in, &run->cli);
            return 1;
        }
    }
    char engine[128];
    const char *const isa = psnrhvs_isa_name(run->sc.ctx);
    snprintf(engine, sizeof(engine), "%s%s%s", psnrhvs_backend_name(run->sc.ctx), isa ? ":" : "",
             isa ? isa : "");
    /* Where compressed inputs were decoded (--hwaccel auto chose it). */
    int nvdec = 0, cpu = 0;
    for (int i = -1; i < run->n; i++) {
        const char *const on = input_decoded_on(i < 0 ? run->ref : rend[i].in);
        if (on && !strcmp(on, "NVDEC"))
            nvdec = 1;
        else if (on)
            cpu = 1;
    }
    if (nvdec || cpu)
        snprintf(engine + strlen(engine), sizeof(engine) - strlen(engine), ", decoded on %s%s",
                 nvdec ? "NVDEC" : "the CPU", nvdec && cpu ? " and the CPU" : "");
    for (int r = 0; r < run->n; r++)
        if (score_write_rendition(&rend[r], run->ref, &run->cli, run->format, engine, run->elapsed,
                                  run->ladder) < 0)
            return 1;
    input_mark_scored(run->ref);
    for (int r = 0; r < run->n; r++) input_mark_scored(rend[r].in);
    return 0;
}
