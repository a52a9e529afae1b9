/*
 * psnrhvs: the score command's outputs opened before any frame is scored,
 * so that a bad path fails first; none that would write over an input or
 * another output. A ladder's -o DIR/ makes its folder, and a run that fails
 * takes the folders it made away again.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "score_int.h"

/* m->dir[0 .. top) will be the first folder missing of path's; its parents exist. */
static void note_missing_dir(MadeDir *const m, const char *const path) {
    const char *const slash = strrchr(path, '/');
    struct stat st;
    if (m->dir || !slash || slash == path || !(m->dir = strndup(path, (size_t)(slash - path))))
        return;
    if (!stat(m->dir, &st)) {
        free(m->dir);
        m->dir = NULL;
        return;
    }
    m->top = strlen(m->dir);
    for (size_t i = m->top; i-- > 1;) {
        if (m->dir[i] != '/') continue;
        m->dir[i] = '\0';
        const int there = !stat(m->dir, &st);
        m->dir[i] = '/';
        if (there) break;
        m->top = i;
    }
}

/* rmdir: only while empty. */
static void remove_made_dir(MadeDir *const m, const int failed) {
    if (!m->dir) return;
    while (failed && !rmdir(m->dir)) {
        char *const p = strrchr(m->dir, '/');
        if (!p || (size_t)(p - m->dir) < m->top) break;
        *p = '\0';
    }
    free(m->dir);
    m->dir = NULL;
}

void run_remove_made_dirs(Run *const run, const int failed) {
    remove_made_dir(&run->made[1], failed);
    remove_made_dir(&run->made[0], failed);
}

int run_open_outputs(Run *const run) {
    const CLISettings *const cli = &run->cli;
    Rendition *const rend = run->rend;
    const int n = run->n, ladder = run->ladder;
    const char *out_path[PSNRHVS_MAX_RENDITIONS], *plot_path[PSNRHVS_MAX_RENDITIONS];
    NamedFile outs[2 * PSNRHVS_MAX_RENDITIONS] = {{0}}, ins[1 + PSNRHVS_MAX_RENDITIONS] = {{0}};
    int nout = 0, nin = 0;
    ins[nin++] = (NamedFile){cli->reference, "the reference"};
    for (int r = 0; r < n; r++) {
        ins[nin++] = (NamedFile){cli->dists[r], "the distorted"};
        out_path[r] = ladder             ? (cli->output ? rend[r].out_name : NULL)
                      : cli->output      ? cli->output
                      : cli->format >= 0 ? "-"
                                         : NULL;
        plot_path[r] = ladder ? (cli->plot ? rend[r].plot_name : NULL) : cli->plot;
        if (out_path[r]) outs[nout++] = (NamedFile){out_path[r], "output file"};
        if (plot_path[r]) outs[nout++] = (NamedFile){plot_path[r], "plot file"};
    }
    char why[8192];
    if (output_check_clobber(outs, nout, ins, nin, why, sizeof(why)) < 0) {
        fprintf(cli_err(), "psnrhvs: %s\n", why);
        return 1;
    }
    for (int r = 0; r < n; r++) {
        const int out_dir = ladder && out_path[r] && cli->output[strlen(cli->output) - 1] == '/';
        const int plot_dir = ladder && plot_path[r] && cli->plot[strlen(cli->plot) - 1] == '/';
        if (out_dir) note_missing_dir(&run->made[0], out_path[r]);
        if (plot_dir) note_missing_dir(&run->made[1], plot_path[r]);
        if ((out_dir && output_make_parents(out_path[r], why, sizeof(why))) ||
            (plot_dir && output_make_parents(plot_path[r], why, sizeof(why)))) {
            fprintf(cli_err(), "psnrhvs: %s\n", why);
            return 1;
        }
        if (out_path[r] && output_open(&rend[r].of, out_path[r]) < 0) return 1;
        if (plot_path[r] && output_open(&rend[r].plot_of, plot_path[r]) < 0) return 1;
    }
    return 0;
}
