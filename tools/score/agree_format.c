/*
 * psnrhvs: the format scored, from what the inputs say and the flags; the
 * rules and the words are the library's (psnrhvs_format_negotiate).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>

#include "agree_format.h"
#include "score_int.h"
#include "msg.h"

static PsnrHvsFormatSide side(Input *const in) {
    PsnrHvsFormatSide s = {.name = input_name(in)};
    if (input_has_format(in, &s.format))
        s.declared = input_decoded(in) ? "the decoded video" : "the Y4M header";
    return s;
}

int format_resolve(const CLISettings *const cli, Input *const ref, Input *const dist,
                   InputFormat *const out, InputFormat *const rf_out, InputFormat *const df_out) {
    const PsnrHvsFormatOptions opt = {
        .width = cli->width,
        .height = cli->height,
        .layout = cli->have_layout ? (int)cli->layout : -1,
        .bitdepth = cli->bitdepth,
        .scale = !!cli->scale_algo,
        .common_bitdepth = !!cli->common_bitdepth,
    };
    PsnrHvsFormatSide r = side(ref), d = side(dist);
    PsnrHvsFileStatus st;
    if (psnrhvs_format_negotiate(&opt, &r, &d, out, &st) < 0) {
        const int usage = st.error == PSNRHVS_FILE_ERROR_USAGE;
        fprintf(cli_err(), "psnrhvs: %s%s\n", st.message, usage ? " (see psnrhvs --help)" : "");
        return usage ? 2 : 1;
    }
    *rf_out = r.format;
    *df_out = d.format;
    return 0;
}

int format_check_planes(const InputFormat *const fmt, const int enable_chroma) {
    PsnrHvsFileStatus st;
    if (!psnrhvs_check_planes(fmt, enable_chroma, &st)) return 0;
    fprintf(cli_err(), "psnrhvs: %s\n", st.message);
    return -1;
}

int format_same(const InputFormat *const a, const InputFormat *const b) {
    return a->width == b->width && a->height == b->height && a->layout == b->layout &&
           a->bitdepth == b->bitdepth;
}

/* The score command's stage: every rendition scored at one format (a
 * ladder's one scorer), the colours compared, the readers told. */
int run_agree_format(Run *const run) {
    const CLISettings *const cli = &run->cli;
    Rendition *const rend = run->rend;
    for (int r = 0; r < run->n; r++) {
        InputFormat rf;
        const int res =
            format_resolve(cli, run->ref, rend[r].in, &rend[r].fmt, &rf, &rend[r].read_fmt);
        if (res) return res;
        if (input_colour_check(run->ref, rend[r].in, cli->colour_error, cli->quiet) < 0) return 1;
        if (!r) {
            run->fmt = rend[0].fmt;
            run->ref_fmt = rf;
        } else if (!format_same(&rend[r].fmt, &run->fmt) || !format_same(&rf, &run->ref_fmt)) {
            const InputFormat *const f = &run->fmt;
            fprintf(cli_err(),
                    "psnrhvs: rendition %s would be scored as %dx%d %s %d-bit and %s as %dx%d %s "
                    "%d-bit: every -d of a ladder needs the reference's size, pixel format and "
                    "bit depth (after --scale and --common_bitdepth)\n",
                    rend[r].path, rend[r].fmt.width, rend[r].fmt.height,
                    layout_name(rend[r].fmt.layout), rend[r].fmt.bitdepth, rend[0].path, f->width,
                    f->height, layout_name(f->layout), f->bitdepth);
            return 1;
        }
    }
    if (format_check_planes(&run->fmt, run->lib.enable_chroma) < 0) return 1;
    if (input_set_formats(run->ref, &run->ref_fmt, &run->fmt) < 0) return 1;
    for (int r = 0; r < run->n; r++)
        if (input_set_formats(rend[r].in, &rend[r].read_fmt, &run->fmt) < 0) return 1;
    return 0;
}
