/*
 * psnrhvs: command-line parsing (getopt_long); the help text is cli_help.c's,
 * libvmaf's flags cli_vmaf.c's.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse_int.h"
#include "msg.h"
#include "input/convert.h"
#include "input/input.h"

static const char short_opts[] = ":r:d:w:h:p:b:o:m:qvn";

static const struct option long_opts[] = {
    {"reference", required_argument, NULL, 'r'},
    {"distorted", required_argument, NULL, 'd'},
    {"width", required_argument, NULL, 'w'},
    {"height", required_argument, NULL, 'h'},
    {"pixel_format", required_argument, NULL, 'p'},
    {"bitdepth", required_argument, NULL, 'b'},
    {"output", required_argument, NULL, 'o'},
    {"quiet", no_argument, NULL, 'q'},
    {"version", no_argument, NULL, 'v'},
    {"no_prediction", no_argument, NULL, 'n'},
    {"xml", no_argument, NULL, ARG_XML},
    {"json", no_argument, NULL, ARG_JSON},
    {"csv", no_argument, NULL, ARG_CSV},
    {"threads", required_argument, NULL, ARG_THREADS},
    {"subsample", required_argument, NULL, ARG_SUBSAMPLE},
    {"frame_cnt", required_argument, NULL, ARG_FRAME_CNT},
    {"frame_skip_ref", required_argument, NULL, ARG_FRAME_SKIP_REF},
    {"frame_skip_dist", required_argument, NULL, ARG_FRAME_SKIP_DIST},
    {"precision", required_argument, NULL, ARG_PRECISION},
    {"feature", required_argument, NULL, ARG_FEATURE},
    {"backend", required_argument, NULL, ARG_BACKEND},
    {"backends", required_argument, NULL, ARG_BACKENDS},
    {"device", required_argument, NULL, ARG_DEVICE},
    {"isa", required_argument, NULL, ARG_ISA},
    {"list-devices", no_argument, NULL, ARG_LIST_DEVICES},
    {"raw", no_argument, NULL, ARG_RAW},
    {"help", no_argument, NULL, ARG_HELP},
    {"sub", no_argument, NULL, ARG_SUB},
    {"model", required_argument, NULL, 'm'},
    {"cpumask", required_argument, NULL, ARG_CPUMASK},
    {"gpumask", required_argument, NULL, ARG_GPUMASK},
    {"aom_ctc", required_argument, NULL, ARG_AOM_CTC},
    {"nflx_ctc", required_argument, NULL, ARG_NFLX_CTC},
    {"plot", required_argument, NULL, ARG_PLOT},
    {"hwaccel", required_argument, NULL, ARG_HWACCEL},
    {"scale", optional_argument, NULL, ARG_SCALE},
    {"common_bitdepth", no_argument, NULL, ARG_COMMON_BITDEPTH},
    {"colour_mismatch", required_argument, NULL, ARG_COLOUR_MISMATCH},
    {"timing", no_argument, NULL, ARG_TIMING},
    {NULL, 0, NULL, 0},
};

typedef struct EnumEntry {
    const char *name;
    int value;
} EnumEntry;

/* The backends' names come from the library; "?" for none of them. */
const char *cli_backend_name(const enum PsnrHvsBackend b) {
    const char *const name = psnrhvs_backend_string(b);
    return name ? name : "?";
}

int cli_backend_from_name(const char *const name, enum PsnrHvsBackend *const b) {
    const int v = psnrhvs_backend_from_string(name);
    if (v < 0) return -1;
    *b = (enum PsnrHvsBackend)v;
    return 0;
}

/* The library's backend names as a table for parse_enum (on the caller's
 * stack: batch parses jobs on several threads). */
static const EnumEntry *backend_table(EnumEntry tbl[16]) {
    int n = 0;
    for (; n < 15 && psnrhvs_backend_string((enum PsnrHvsBackend)n); n++)
        tbl[n] = (EnumEntry){psnrhvs_backend_string((enum PsnrHvsBackend)n), n};
    tbl[n] = (EnumEntry){NULL, 0};
    return tbl;
}

/* The library's layout names ("420", ...) likewise: the words every
 * front-end parses and prints. */
static const EnumEntry *layout_table(EnumEntry tbl[8]) {
    int n = 0;
    for (; n < 7 && psnrhvs_layout_string((enum PsnrHvsPixelLayout)n); n++)
        tbl[n] = (EnumEntry){psnrhvs_layout_string((enum PsnrHvsPixelLayout)n), n};
    tbl[n] = (EnumEntry){NULL, 0};
    return tbl;
}

/* "a, b or c" of a table's names, for messages. */
static const char *join_names(const EnumEntry *const tbl, char *const buf, const size_t size) {
    buf[0] = '\0';
    for (int i = 0; tbl[i].name; i++) {
        if (i) strncat(buf, tbl[i + 1].name ? ", " : " or ", size - strlen(buf) - 1);
        strncat(buf, tbl[i].name, size - strlen(buf) - 1);
    }
    return buf;
}

const char *cli_backend_names(char *const buf, const size_t size) {
    EnumEntry tbl[16];
    return join_names(backend_table(tbl), buf, size);
}

static const EnumEntry isa_tbl[] = {
    {"auto", PSNRHVS_ISA_AUTO},
    {"scalar", PSNRHVS_ISA_SCALAR},
    {"avx2", PSNRHVS_ISA_AVX2},     /* x86-64 */
    {"avx512", PSNRHVS_ISA_AVX512}, /* x86-64 */
    {"neon", PSNRHVS_ISA_NEON},     /* AArch64 */
    {NULL, 0},
};

const char *cli_isa_name(const enum PsnrHvsIsa isa) {
    const EnumEntry *e = isa_tbl;
    while (e->name && e->value != (int)isa) e++;
    return e->name;
}

static const EnumEntry hwaccel_tbl[] = {{"auto", INPUT_HWACCEL_AUTO},
                                        {"none", INPUT_HWACCEL_NONE},
                                        {"cuda", INPUT_HWACCEL_CUDA},
                                        {NULL, 0}};

static const EnumEntry colour_tbl[] = {{"warn", 0}, {"error", 1}, {NULL, 0}};

static const EnumEntry bool_tbl[] = {{"true", 1}, {"false", 0}, {NULL, 0}};

static const EnumEntry mask_product_tbl[] = {
    {"float", PSNRHVS_MASK_PRODUCT_FLOAT},
    {"exact", PSNRHVS_MASK_PRODUCT_EXACT},
    {NULL, 0},
};

void cli_usage_error(const char *const fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(cli_err(), "psnrhvs: ");
    vfprintf(cli_err(), fmt, ap);
    fprintf(cli_err(), " (see psnrhvs --help)\n");
    va_end(ap);
    cli_usage_exit();
}

static unsigned parse_unsigned(const char *const arg, const char *const opt, const unsigned min,
                               const unsigned max) {
    unsigned long long v = 0;
    int ok = *arg != '\0';
    for (const char *p = arg; ok && *p; p++) {
        if (*p < '0' || *p > '9' || v > UINT_MAX)
            ok = 0;
        else
            v = v * 10 + (unsigned)(*p - '0');
    }
    if (!ok || v < min || v > max)
        cli_usage_error("invalid %s '%s': expected an integer from %u to %u", opt, arg, min, max);
    return (unsigned)v;
}

/* vmaf reads masks with strtoul(..., 0): decimal, 0x hex or 0 octal. No sign here. */
static unsigned long long parse_mask(const char *const arg, const char *const opt) {
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(arg, &end, 0);
    if (*arg < '0' || *arg > '9' || *end || errno)
        cli_usage_error("invalid %s '%s': expected a bit mask (decimal, 0x hex or 0 octal)", opt,
                        arg);
    return v;
}

/* getopt_long takes any unambiguous prefix: "--sub" (vmaf's subtitle output)
 * would be --subsample. Only whole names are accepted. */
static void check_whole_name(char *const *const argv, const int longindex) {
    const struct option *const opt = &long_opts[longindex];
    /* The option's own word: the one before its value when that is separate. */
    const char *word = argv[optind - 1];
    if (opt->has_arg == required_argument && optarg == argv[optind - 1] && optind >= 2)
        word = argv[optind - 2];
    if (strncmp(word, "--", 2)) return;
    const size_t len = strcspn(word + 2, "=");
    if (len == strlen(opt->name) && !strncmp(word + 2, opt->name, len)) return;
    cli_usage_error("unknown option %.*s (options are not abbreviated; --%s?)", (int)(len + 2),
                    word, opt->name);
}

static int parse_enum(const char *const arg, const char *const opt, const EnumEntry *const tbl) {
    for (int i = 0; tbl[i].name; i++)
        if (!strcmp(arg, tbl[i].name)) return tbl[i].value;
    char list[256];
    cli_usage_error("unknown %s '%s' (expected %s)", opt, arg, join_names(tbl, list, sizeof(list)));
    return 0;
}

/* "psnr_hvs" or "psnr_hvs=enable_chroma=false:mask_product=exact" */
static void parse_feature(const char *const arg, PsnrHvsSettings *const lib) {
    const char *const eq = strchr(arg, '=');
    const size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (name_len != 8 || strncmp(arg, "psnr_hvs", 8))
        cli_usage_error("unknown feature '%.*s': only psnr_hvs is computed", (int)name_len, arg);
    if (!eq) return;
    char opts[512];
    if (strlen(eq + 1) >= sizeof(opts)) cli_usage_error("--feature options too long");
    strcpy(opts, eq + 1);
    for (char *opt = opts, *next; opt; opt = next) {
        next = strchr(opt, ':');
        if (next) *next++ = '\0';
        char *const val = strchr(opt, '=');
        if (!val) cli_usage_error("bad psnr_hvs option '%s': expected OPTION=VALUE", opt);
        *val = '\0';
        if (!strcmp(opt, "enable_chroma"))
            lib->enable_chroma = parse_enum(val + 1, "enable_chroma value", bool_tbl);
        else if (!strcmp(opt, "mask_product"))
            lib->mask_product = (enum PsnrHvsMaskProduct)parse_enum(val + 1, "mask_product value",
                                                                    mask_product_tbl);
        else
            cli_usage_error("unknown psnr_hvs option '%s' (expected enable_chroma or "
                            "mask_product)",
                            opt);
    }
}

/* "N", "all" or "N,M,...": a list opens one context per entry (repeats allowed). */
static void parse_devices(const char *const arg, CLISettings *const cli,
                          PsnrHvsSettings *const lib) {
    cli->num_devices = 0;
    cli->all_devices = 0;
    if (!strcmp(arg, "all")) {
        cli->all_devices = 1;
        return;
    }
    if (!strchr(arg, ',')) {
        lib->device = (int)parse_unsigned(arg, "--device", 0, INT_MAX);
        return;
    }
    char item[32];
    for (const char *p = arg;;) {
        const size_t len = strcspn(p, ",");
        if (!len || len >= sizeof(item))
            cli_usage_error("invalid --device '%s': expected N, all or a list N,M,...", arg);
        if (cli->num_devices == CLI_MAX_DEVICES)
            cli_usage_error("invalid --device '%s': at most %d devices", arg, CLI_MAX_DEVICES);
        memcpy(item, p, len);
        item[len] = '\0';
        cli->devices[cli->num_devices++] = (int)parse_unsigned(item, "--device", 0, INT_MAX);
        if (!p[len]) break;
        p += len + 1;
    }
    lib->device = cli->devices[0];
}

static int parse_bitdepth(const char *const arg) {
    const int depth = (int)parse_unsigned(arg, "--bitdepth", 1, 64);
    char msg[256];
    if (check_bitdepth(depth, msg, sizeof(msg)) < 0) cli_usage_error("%s", msg);
    return depth;
}

/* The inputs and how they are read: 1 when o is one of them. */
static int parse_input_option(const int o, const int argc, char *const *const argv,
                              CLISettings *const cli) {
    switch (o) {
    case 'r':
        cli->reference = optarg;
        return 1;
    case 'd':
        if (cli->num_dists == PSNRHVS_MAX_RENDITIONS)
            cli_usage_error("too many --distorted: a ladder has at most %d renditions",
                            PSNRHVS_MAX_RENDITIONS);
        cli->dists[cli->num_dists++] = optarg;
        if (!cli->distorted) cli->distorted = optarg;
        return 1;
    case 'w':
        cli->width = (int)parse_unsigned(optarg, "--width", 1, PSNRHVS_MAX_DIMENSION);
        return 1;
    case 'h':
        cli->height = (int)parse_unsigned(optarg, "--height", 1, PSNRHVS_MAX_DIMENSION);
        return 1;
    case 'p': {
        EnumEntry layouts[8];
        cli->layout =
            (enum PsnrHvsPixelLayout)parse_enum(optarg, "pixel format", layout_table(layouts));
        cli->have_layout = 1;
        return 1;
    }
    case 'b':
        cli->bitdepth = parse_bitdepth(optarg);
        return 1;
    case ARG_SUBSAMPLE:
        /* 0 and 1 both mean every frame in vmaf */
        cli->subsample = parse_unsigned(optarg, "--subsample", 0, UINT_MAX);
        if (!cli->subsample) cli->subsample = 1;
        return 1;
    case ARG_FRAME_CNT:
        cli->frame_cnt = parse_unsigned(optarg, "--frame_cnt", 0, UINT_MAX); /* 0: all */
        return 1;
    case ARG_FRAME_SKIP_REF:
        cli->frame_skip_ref = parse_unsigned(optarg, "--frame_skip_ref", 0, UINT_MAX);
        return 1;
    case ARG_FRAME_SKIP_DIST:
        cli->frame_skip_dist = parse_unsigned(optarg, "--frame_skip_dist", 0, UINT_MAX);
        return 1;
    case ARG_HWACCEL:
        cli->hwaccel = parse_enum(optarg, "--hwaccel", hwaccel_tbl);
        return 1;
    case ARG_SCALE: {
        /* "--scale lanczos" as well as "--scale=lanczos"; a bare --scale is bicubic. */
        const char *algo = optarg;
        if (!algo && optind < argc && scale_algo(argv[optind]) > 0) algo = argv[optind++];
        cli->scale_algo = algo ? scale_algo(algo) : PSNRHVS_SCALE_DEFAULT;
        if (cli->scale_algo < 0)
            cli_usage_error("unknown --scale algorithm '%s' (expected %s)", algo,
                            scale_algo_list());
        return 1;
    }
    case ARG_COMMON_BITDEPTH:
        cli->common_bitdepth = 1;
        return 1;
    case ARG_COLOUR_MISMATCH:
        cli->colour_error = parse_enum(optarg, "--colour_mismatch", colour_tbl);
        return 1;
    }
    return 0;
}

/* Where the scores go and how they are written: 1 when o is one of them. */
static int parse_output_option(const int o, CLISettings *const cli) {
    switch (o) {
    case 'o':
        cli->output = optarg;
        return 1;
    case 'q':
        cli->quiet = 1;
        return 1;
    case ARG_XML:
        cli->format = PSNRHVS_SCORES_XML;
        return 1;
    case ARG_JSON:
        cli->format = PSNRHVS_SCORES_JSON;
        return 1;
    case ARG_CSV:
        cli->format = PSNRHVS_SCORES_CSV;
        return 1;
    case ARG_SUB:
        cli->format = PSNRHVS_SCORES_SUB;
        return 1;
    case ARG_PRECISION:
        cli->precision = !strcmp(optarg, "max") ? PSNRHVS_PRECISION_MAX
                                                : (int)parse_unsigned(optarg, "--precision", 0, 32);
        return 1;
    case ARG_RAW:
        cli->raw = 1;
        return 1;
    case ARG_PLOT:
        cli->plot = optarg;
        return 1;
    case ARG_TIMING:
        cli->timing = 1;
        return 1;
    }
    return 0;
}

/* What computes the scores (backend, devices, threads, the feature's
 * options): 1 when o is one of them. */
static int parse_device_option(const int o, CLISettings *const cli, PsnrHvsSettings *const lib,
                               ParseState *const st) {
    switch (o) {
    case ARG_THREADS:
        lib->threads = (int)parse_unsigned(optarg, "--threads", 0, 1024);
        return 1;
    case ARG_FEATURE:
        parse_feature(optarg, lib);
        return 1;
    case ARG_BACKEND:
        if (!strcmp(optarg, "parity")) {
            cli->parity = 1;
            return 1;
        }
        lib->backend =
            (enum PsnrHvsBackend)parse_enum(optarg, "backend", backend_table((EnumEntry[16]){{0}}));
        st->backend = optarg;
        cli->backend_given = 1;
        return 1;
    case ARG_BACKENDS:
        st->backends = optarg;
        return 1;
    case ARG_DEVICE:
        parse_devices(optarg, cli, lib);
        return 1;
    case ARG_ISA:
        lib->isa = (enum PsnrHvsIsa)parse_enum(optarg, "isa", isa_tbl);
        cli->have_isa = 1;
        return 1;
    case ARG_CPUMASK:
        cli->cpumask = parse_mask(optarg, "--cpumask");
        cli->have_cpumask = 1;
        return 1;
    case ARG_GPUMASK:
        st->gpumask = parse_mask(optarg, "--gpumask");
        st->have_gpumask = 1;
        return 1;
    case ARG_LIST_DEVICES:
        cli->list_devices = 1;
        return 1;
    }
    return 0;
}

/* getopt_long's ':' (a value missing) and '?' (an unknown option). */
static void bad_option(const int o, char *const *const argv) {
    if (o == ':') {
        if (!strncmp(argv[optind - 1], "--", 2))
            cli_usage_error("option %s needs a value", argv[optind - 1]);
        if (optopt == 'h') /* -h is the height, as in libvmaf */
            cli_usage_error("option -h (--height) needs a value");
        cli_usage_error("option -%c needs a value", optopt);
        return;
    }
    if (optopt > 0 && optopt < 256 && strncmp(argv[optind - 1], "--", 2))
        cli_usage_error("unknown option -%c", optopt);
    cli_usage_error("unknown option %s", argv[optind - 1]);
}

static void parse_options(const int argc, char *const *const argv, CLISettings *const cli,
                          PsnrHvsSettings *const lib, ParseState *const st) {
    opterr = 0; /* our own messages, one line each */
    int o;
    int longindex = -1;
    while ((o = getopt_long(argc, argv, short_opts, long_opts, &longindex)) != -1) {
        if (longindex >= 0) check_whole_name(argv, longindex);
        longindex = -1;
        if (o == ARG_HELP) {
            cli_help();
            exit(0);
        }
        if (!parse_input_option(o, argc, argv, cli) && !parse_output_option(o, cli) &&
            !parse_device_option(o, cli, lib, st) && !cli_vmaf_option(o, cli, st))
            bad_option(o, argv);
    }
    if (optind < argc) cli_usage_error("unexpected argument '%s'", argv[optind]);
}

/* The inputs, the devices and the plot of a scoring run (parity's too). */
static void check_score_settings(const CLISettings *const cli, const PsnrHvsSettings *const lib) {
    if (!cli->reference) cli_usage_error("missing --reference");
    if (!cli->distorted) cli_usage_error("missing --distorted");
    int stdin_inputs = !strcmp(cli->reference, "-");
    for (int r = 0; r < cli->num_dists; r++) stdin_inputs += !strcmp(cli->dists[r], "-");
    if (stdin_inputs > 1)
        cli_usage_error("only one of --reference and --distorted can be stdin ('-')");
    if ((cli->num_devices || cli->all_devices) && !cli->parity &&
        psnrhvs_backend_kind(lib->backend) == PSNRHVS_KIND_HOST)
        cli_usage_error("--device %s needs a device backend (--backend cuda, hip, "
                        "opencl or vulkan): the cpu backend has no devices",
                        cli->all_devices ? "all" : "LIST");
    if ((cli->num_devices || cli->all_devices) && !cli->parity &&
        psnrhvs_backend_kind(lib->backend) == PSNRHVS_KIND_AUTO)
        cli_usage_error("--device %s needs --backend cuda, hip, opencl or vulkan",
                        cli->all_devices ? "all" : "LIST");
    if ((cli->num_devices || cli->all_devices) && cli->hwaccel == INPUT_HWACCEL_CUDA)
        cli_usage_error("--hwaccel cuda takes one device: use --device N");

    if (cli->plot && !strcmp(cli->plot, "-") && (!cli->output || !strcmp(cli->output, "-")))
        cli_usage_error("--plot - needs -o FILE: the scores would go to stdout too");
}

/* --backends only with parity, and parity without what it cannot do. */
static void check_parity_settings(CLISettings *const cli, const ParseState *const st) {
    if (!cli->parity) {
        if (st->backends)
            cli_usage_error("--backends is for parity runs (psnrhvs parity --backends "
                            "LIST ...)");
        return;
    }
    if (cli->num_dists > 1)
        cli_usage_error("parity compares backends on one distorted input: give one -d "
                        "(several -d score a ladder)");
    if (cli->num_devices || cli->all_devices)
        cli_usage_error("parity takes one device: use --device N, or device=N in "
                        "--backends");
    if (st->backend)
        cli_usage_error("--backend %s cannot be combined with parity: list the "
                        "configurations with --backends",
                        st->backend);
    if (cli->output || cli->format >= 0)
        cli_usage_error("parity prints its report on stdout: -o, --xml, --json, --csv and --sub "
                        "cannot be used with it");
    if (cli->plot) cli_usage_error("--plot cannot be used with parity: it writes no scores");
    if (st->backends) {
        char err[256];
        cli->num_configs =
            parity_parse(st->backends, cli->configs, PARITY_MAX_CONFIGS, err, sizeof(err));
        if (cli->num_configs < 0) cli_usage_error("bad --backends: %s", err);
    }
}

void cli_parse(const int argc, char *const *const argv, const int parity, CLISettings *const cli,
               PsnrHvsSettings *const lib) {
    *cli = (CLISettings){.subsample = 1,
                         .precision = PSNRHVS_PRECISION_VMAF,
                         .format = -1,
                         .parity = parity,
                         .hwaccel = INPUT_HWACCEL_AUTO};
    ParseState st = {0};
    parse_options(argc, argv, cli, lib, &st);
    cli_vmaf_check(cli, lib, &st);

    if (cli->list_devices) {
        cli->verbose = st.version; /* -v with --list-devices: more detail */
        return;
    }
    if (st.version) {
        printf("psnrhvs %s\n", psnrhvs_version());
        exit(0);
    }
    check_score_settings(cli, lib);
    check_parity_settings(cli, &st);
}
