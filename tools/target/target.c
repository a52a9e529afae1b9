/*
 * psnrhvs: `psnrhvs target -r SOURCE --encoder NAME --target SCORE`: the
 * cheapest setting of an encoder whose pooled psnr_hvs reaches a target.
 * This file: the flags; the run is target_run.c (FFmpeg builds only).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "input/input.h"
#include "msg.h"
#include "target/target.h"

static void help(void) {
    printf("usage: psnrhvs target -r SOURCE --encoder NAME --target SCORE [options]\n"
           "  Encodes probes of SOURCE with one of FFmpeg's encoders, decodes and scores each\n"
           "  in memory, and finds the cheapest setting (highest CRF or QP, lowest bitrate)\n"
           "  whose pooled score reaches SCORE.\n"
           "  -r, --reference SOURCE     the source: Y4M, raw YUV (-w, -h) or a compressed file\n"
           "  -w, --width N              raw source: luma width\n"
           "  -h, --height N             raw source: luma height\n"
           "  -p, --pixel_format F       raw source: 420 (default), 422, 444 or 400\n"
           "  -b, --bitdepth N           raw source: 8 (default), 10 or 12\n"
           "      --fps N[/D]            frame rate (default: the source's; raw video 25)\n"
           "      --encoder NAME         FFmpeg encoder: libx264, libx265, libsvtav1, libaom-av1,\n"
           "                             libvpx-vp9, ...\n"
           "      --encoder-options OPTS the encoder's options, key=value:key=value\n"
           "      --target SCORE         the pooled score to reach, dB\n"
           "      --pool P               mean (default), harmonic_mean, min, or pN: the N-th\n"
           "                             percentile of the frames (p5: 95 %% of frames at least)\n"
           "      --key KEY              psnr_hvs (default), psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr\n"
           "      --range LO-HI          the settings searched (default: the encoder's range)\n"
           "      --samples N            segments probed (default: from the length)\n"
           "      --sample-seconds S     each segment's length (default 2)\n"
           "      --full                 probe the whole clip\n"
           "      --sweep                probe every setting of the range (no search)\n"
           "  -o, --output FILE          the search as JSON or CSV (by extension)\n"
           "      --keep-probes DIR      write each probe's stream as DIR/PARAM_VALUE_sN.mkv\n"
           "      --encode OUT           then encode the whole source at the setting chosen\n"
           "                             (any container FFmpeg writes), scored on the way\n"
           "      --backend B            what scores (as the score command; default auto)\n"
           "      --device N             GPU index for device backends\n"
           "      --threads N            scoring threads (default: all cores)\n"
           "      --jobs N               samples encoded at once (default: all)\n"
           "  -q, --quiet                no table, only the answer\n"
           "      --help                 this help\n");
}

enum {
    ARG_FPS = 256,
    ARG_ENCODER,
    ARG_ENCODER_OPTIONS,
    ARG_TARGET,
    ARG_POOL,
    ARG_KEY,
    ARG_RANGE,
    ARG_SAMPLES,
    ARG_SAMPLE_SECONDS,
    ARG_FULL,
    ARG_SWEEP,
    ARG_KEEP,
    ARG_ENCODE,
    ARG_BACKEND,
    ARG_DEVICE,
    ARG_THREADS,
    ARG_JOBS,
    ARG_HELP,
};

static const struct option long_opts[] = {
    {"reference", required_argument, NULL, 'r'},
    {"width", required_argument, NULL, 'w'},
    {"height", required_argument, NULL, 'h'},
    {"pixel_format", required_argument, NULL, 'p'},
    {"bitdepth", required_argument, NULL, 'b'},
    {"output", required_argument, NULL, 'o'},
    {"quiet", no_argument, NULL, 'q'},
    {"fps", required_argument, NULL, ARG_FPS},
    {"encoder", required_argument, NULL, ARG_ENCODER},
    {"encoder-options", required_argument, NULL, ARG_ENCODER_OPTIONS},
    {"target", required_argument, NULL, ARG_TARGET},
    {"pool", required_argument, NULL, ARG_POOL},
    {"key", required_argument, NULL, ARG_KEY},
    {"range", required_argument, NULL, ARG_RANGE},
    {"samples", required_argument, NULL, ARG_SAMPLES},
    {"sample-seconds", required_argument, NULL, ARG_SAMPLE_SECONDS},
    {"full", no_argument, NULL, ARG_FULL},
    {"sweep", no_argument, NULL, ARG_SWEEP},
    {"keep-probes", required_argument, NULL, ARG_KEEP},
    {"encode", required_argument, NULL, ARG_ENCODE},
    {"backend", required_argument, NULL, ARG_BACKEND},
    {"device", required_argument, NULL, ARG_DEVICE},
    {"threads", required_argument, NULL, ARG_THREADS},
    {"jobs", required_argument, NULL, ARG_JOBS},
    {"help", no_argument, NULL, ARG_HELP},
    {NULL, 0, NULL, 0},
};

_Noreturn static void usage(const char *const msg, const char *const arg) {
    cli_command_usage_error("target", msg, arg);
}

static double parse_double(const char *const arg, const char *const what) {
    char *end;
    const double v = strtod(arg, &end);
    if (end == arg || *end || !isfinite(v)) usage(what, arg);
    return v;
}

static int parse_int(const char *const arg, const char *const what, const int min, const int max) {
    char *end;
    const long v = strtol(arg, &end, 10);
    if (end == arg || *end || v < min || v > max) usage(what, arg);
    return (int)v;
}

static void parse_range(const char *const arg, TargetArgs *const a) {
    char *end;
    a->range_lo = strtod(arg, &end);
    if (end == arg || *end != '-') usage("bad --range (LO-HI)", arg);
    const char *const hi = end + 1;
    a->range_hi = strtod(hi, &end);
    if (end == hi || *end || !(a->range_lo <= a->range_hi) || a->range_lo < 0)
        usage("bad --range (LO-HI, 0 <= LO <= HI)", arg);
    a->have_range = 1;
}

static void parse_fps(const char *const arg, TargetArgs *const a) {
    char *end;
    const long n = strtol(arg, &end, 10);
    long d = 1;
    if (*end == '/') {
        const char *const ds = end + 1;
        d = strtol(ds, &end, 10);
        if (end == ds) d = 0;
    }
    if (*end || n <= 0 || d <= 0 || n > 1000000 || d > 1000000) usage("bad --fps (N or N/D)", arg);
    a->fps_num = (int)n;
    a->fps_den = (int)d;
}

/* The library's one table of layout names (src/layout.c). */
static void parse_layout(const char *const arg, TargetArgs *const a) {
    const int l = psnrhvs_layout_from_string(arg);
    if (l < 0) usage("bad --pixel_format (420, 422, 444 or 400)", arg);
    a->layout = (enum PsnrHvsPixelLayout)l;
    a->have_layout = 1;
}

static void parse_key(const char *const arg, TargetArgs *const a) {
    for (int k = 0; psnrhvs_key_string((enum PsnrHvsKey)k); k++)
        if (!strcmp(arg, psnrhvs_key_string((enum PsnrHvsKey)k))) {
            a->key = (enum PsnrHvsKey)k;
            return;
        }
    usage("bad --key (psnr_hvs, psnr_hvs_y, psnr_hvs_cb or psnr_hvs_cr)", arg);
}

/* The flags of the source and what scores. @return 1 if o was one. */
static int parse_input_flag(const int o, TargetArgs *const a) {
    switch (o) {
    case 'r':
        a->source = optarg;
        return 1;
    case 'w':
        a->width = parse_int(optarg, "bad --width", 1, PSNRHVS_MAX_DIMENSION);
        return 1;
    case 'h':
        a->height = parse_int(optarg, "bad --height", 1, PSNRHVS_MAX_DIMENSION);
        return 1;
    case 'p':
        parse_layout(optarg, a);
        return 1;
    case 'b':
        a->bitdepth = parse_int(optarg, "bad --bitdepth (8, 10 or 12)", 8, 12);
        return 1;
    case ARG_FPS:
        parse_fps(optarg, a);
        return 1;
    case ARG_BACKEND:
        if (cli_backend_from_name(optarg, &a->backend) < 0) usage("unknown --backend", optarg);
        return 1;
    case ARG_DEVICE:
        a->device = parse_int(optarg, "bad --device", 0, 1023);
        return 1;
    case ARG_THREADS:
        a->threads = parse_int(optarg, "bad --threads", 0, PSNRHVS_MAX_THREADS);
        return 1;
    case ARG_JOBS:
        a->jobs = parse_int(optarg, "bad --jobs", 1, TARGET_MAX_SAMPLES);
        return 1;
    default:
        return 0;
    }
}

/* The flags of the search and its outputs. @return 1 if o was one. */
static int parse_search_flag(const int o, TargetArgs *const a) {
    switch (o) {
    case ARG_ENCODER:
        a->encoder = optarg;
        return 1;
    case ARG_ENCODER_OPTIONS:
        a->encoder_options = optarg;
        return 1;
    case ARG_TARGET:
        a->target = parse_double(optarg, "bad --target");
        a->have_target = 1;
        return 1;
    case ARG_POOL:
        if (target_pool_parse(optarg, &a->pool) < 0)
            usage("bad --pool (mean, harmonic_mean, min or pN, 0 < N <= 100)", optarg);
        return 1;
    case ARG_KEY:
        parse_key(optarg, a);
        return 1;
    case ARG_RANGE:
        parse_range(optarg, a);
        return 1;
    case ARG_SAMPLES:
        a->samples = parse_int(optarg, "bad --samples", 1, TARGET_MAX_SAMPLES);
        return 1;
    case ARG_SAMPLE_SECONDS:
        a->sample_seconds = parse_double(optarg, "bad --sample-seconds");
        if (a->sample_seconds <= 0) usage("bad --sample-seconds", optarg);
        return 1;
    case ARG_FULL:
        a->full = 1;
        return 1;
    case ARG_SWEEP:
        a->sweep = 1;
        return 1;
    case 'o':
        a->output = optarg;
        return 1;
    case ARG_KEEP:
        a->keep_probes = optarg;
        return 1;
    case ARG_ENCODE:
        a->encode = optarg;
        return 1;
    case 'q':
        a->quiet = 1;
        return 1;
    default:
        return 0;
    }
}

static void parse_args(const int argc, char *const *const argv, TargetArgs *const a) {
    *a = (TargetArgs){
        .backend = PSNRHVS_BACKEND_AUTO, .key = PSNRHVS_KEY_COMBINED, .sample_seconds = 2.0};
    target_pool_parse("mean", &a->pool);
    opterr = 0;
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, ":r:w:h:p:b:o:q", long_opts, NULL)) != -1) {
        if (o == ARG_HELP) {
            help();
            exit(0);
        }
        if (parse_input_flag(o, a) || parse_search_flag(o, a)) continue;
        if (o == ':') usage("missing argument to", argv[optind - 1]);
        usage("unknown option", argv[optind - 1]);
    }
    if (optind < argc) usage("unexpected argument", argv[optind]);
    if (!a->source) usage("give the source with -r", NULL);
    if (!a->encoder) usage("give the encoder with --encoder (libx264, libsvtav1, ...)", NULL);
    if (!a->have_target) usage("give the score to reach with --target", NULL);
    if (a->full && a->samples) usage("--full and --samples exclude each other", NULL);
}

int target_main(const int argc, char *const *const argv) {
    TargetArgs a;
    parse_args(argc, argv, &a);
#if HAVE_FFMPEG
    return target_run(&a);
#else
    fprintf(stderr, "psnrhvs: target: this psnrhvs was built without FFmpeg's libraries "
                    "(PSNRHVS_FFMPEG), which target encodes with\n");
    return 1;
#endif
}
