/*
 * psnrhvs: the format scored, from what the inputs say and the flags; the
 * rules and the words are the library's (psnrhvs_format_negotiate).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>

#include "format.h"
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
