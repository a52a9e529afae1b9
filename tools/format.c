/*
 * psnrhvs: the format scored, from what the inputs say and the flags.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>

#include "format.h"
#include "msg.h"

/* A Y4M header or a decoded stream wins over nothing, but -w/-h/-p/-b given on
 * the command line must agree with it, unless --scale (size) or
 * --common_bitdepth (depth) lets the sides differ: the flags then describe the
 * raw side. */
static int check_cli_agrees(const CLISettings *const cli, const InputFormat *const fmt,
                            const Input *const in) {
    const char *const name = input_name(in);
    const char *const what = input_decoded(in) ? "the decoded video" : "the Y4M header";
    if (cli->width && cli->width != fmt->width && !cli->scale_algo) {
        fprintf(cli_err(), "psnrhvs: --width %d does not match %s of %s (W%d)\n", cli->width, what,
                name, fmt->width);
        return -1;
    }
    if (cli->height && cli->height != fmt->height && !cli->scale_algo) {
        fprintf(cli_err(), "psnrhvs: --height %d does not match %s of %s (H%d)\n", cli->height,
                what, name, fmt->height);
        return -1;
    }
    if (cli->have_layout && cli->layout != fmt->layout) {
        fprintf(cli_err(), "psnrhvs: --pixel_format %s does not match %s of %s (%s)\n",
                layout_name(cli->layout), what, name, layout_name(fmt->layout));
        return -1;
    }
    if (cli->bitdepth && cli->bitdepth != fmt->bitdepth && !cli->common_bitdepth) {
        fprintf(cli_err(), "psnrhvs: --bitdepth %d does not match %s of %s (%d-bit)\n",
                cli->bitdepth, what, name, fmt->bitdepth);
        return -1;
    }
    return 0;
}

/* A raw side: the other side's format, with the flags given on the command line. */
static InputFormat raw_side(const CLISettings *const cli, const InputFormat *const other) {
    InputFormat f = *other;
    if (cli->width) f.width = cli->width;
    if (cli->height) f.height = cli->height;
    if (cli->have_layout) f.layout = cli->layout;
    if (cli->bitdepth) f.bitdepth = cli->bitdepth;
    return f;
}

int format_resolve(const CLISettings *const cli, Input *const ref, Input *const dist,
                   InputFormat *const out, InputFormat *const rf_out, InputFormat *const df_out) {
    InputFormat rf, df;
    const int ref_has = input_has_format(ref, &rf);
    const int dist_has = input_has_format(dist, &df);
    if (ref_has && check_cli_agrees(cli, &rf, ref) < 0) return 1;
    if (dist_has && check_cli_agrees(cli, &df, dist) < 0) return 1;
    if (!ref_has && !dist_has) {
        if (!cli->width || !cli->height) {
            fprintf(cli_err(), "psnrhvs: raw input needs --width and --height (or use Y4M files) "
                               "(see psnrhvs --help)\n");
            return 2;
        }
        rf = (InputFormat){
            .width = cli->width,
            .height = cli->height,
            .layout = cli->have_layout ? cli->layout : PSNRHVS_PIXEL_LAYOUT_I420,
            .bitdepth = cli->bitdepth ? cli->bitdepth : 8,
        };
        df = rf;
    } else if (!ref_has) {
        rf = raw_side(cli, &df); /* raw side takes the other side's geometry */
    } else if (!dist_has) {
        df = raw_side(cli, &rf);
    }

    const char *const rn = input_name(ref), *const dn = input_name(dist);
    if ((rf.width != df.width || rf.height != df.height) && !cli->scale_algo) {
        fprintf(cli_err(),
                "psnrhvs: reference and distorted differ in size: %dx%d (%s) vs %dx%d (%s); "
                "use --scale to scale the distorted to the reference size\n",
                rf.width, rf.height, rn, df.width, df.height, dn);
        return 1;
    }
    if (rf.layout != df.layout) {
        fprintf(cli_err(),
                "psnrhvs: reference and distorted differ in pixel format: %s (%s) vs %s (%s)\n",
                layout_name(rf.layout), rn, layout_name(df.layout), dn);
        return 1;
    }
    if (rf.bitdepth != df.bitdepth && !cli->common_bitdepth) {
        fprintf(cli_err(),
                "psnrhvs: reference and distorted differ in bit depth: %d (%s) vs %d (%s); "
                "use --common_bitdepth to shift the %d-bit side up to %d bits\n",
                rf.bitdepth, rn, df.bitdepth, dn,
                rf.bitdepth < df.bitdepth ? rf.bitdepth : df.bitdepth,
                rf.bitdepth > df.bitdepth ? rf.bitdepth : df.bitdepth);
        return 1;
    }
    *out = rf;
    if (df.bitdepth > out->bitdepth) out->bitdepth = df.bitdepth;
    *rf_out = rf;
    *df_out = df;
    return 0;
}

/* psnr_hvs has no block in a plane under 8x8; libvmaf would print NaN. */
int format_check_planes(const InputFormat *const fmt, const int enable_chroma) {
    PlaneGeometry g;
    if (plane_geometry(fmt, &g) < 0) {
        fprintf(cli_err(), "psnrhvs: invalid frame size %dx%d\n", fmt->width, fmt->height);
        return -1;
    }
    if (g.scored_w[0] < 8 || g.scored_h[0] < 8) {
        fprintf(cli_err(),
                "psnrhvs: frame size %dx%d is smaller than 8x8: psnr_hvs has no block to score\n",
                fmt->width, fmt->height);
        return -1;
    }
    if (enable_chroma && g.num_planes == 3 && (g.scored_w[1] < 8 || g.scored_h[1] < 8)) {
        fprintf(cli_err(),
                "psnrhvs: chroma planes of %dx%d %s are %dx%d, smaller than 8x8: psnr_hvs has no "
                "block to score in them; use --feature psnr_hvs=enable_chroma=false to score "
                "luma only\n",
                fmt->width, fmt->height, layout_name(fmt->layout), g.scored_w[1], g.scored_h[1]);
        return -1;
    }
    return 0;
}

int format_same(const InputFormat *const a, const InputFormat *const b) {
    return a->width == b->width && a->height == b->height && a->layout == b->layout &&
           a->bitdepth == b->bitdepth;
}
