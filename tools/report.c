/*
 * psnrhvs: `psnrhvs report`: one self-contained HTML page (inline SVG and
 * CSS, no script, nothing fetched) with the per-frame curves of several
 * renditions, their pooled values, percentiles and worst frames. Here: the
 * options, the inputs and what is drawn from them, and the --plot SVG; the
 * page itself is written by tools/report_html.c.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"
#include "bdrate.h"
#include "report.h"
#include "report_html.h"
#include "svg.h"
#include "readfile.h"
#include "msg.h"

static _Noreturn void usage_error(const char *const msg, const char *const arg) {
    cli_command_usage_error("report", msg, arg);
}

static void help(void) {
    printf("Usage: psnrhvs report SCORES [SCORES ...] -o report.html [options]\n"
           "One HTML page (inline SVG, no script, nothing fetched) with the per-frame curves\n"
           "of psnr_hvs, psnr_hvs_y, psnr_hvs_cb and psnr_hvs_cr of each input overlaid (a\n"
           "ladder: each input one rendition), the pooled values, percentiles and the worst\n"
           "frames. Inputs are psnrhvs's or libvmaf's JSON (any --precision, --raw), XML,\n"
           "CSV or sub files; '-' is stdin. Rate tables (CSV with a bitrate column: psnrhvs\n"
           "batch's summary, psnrhvs bdrate's inputs) add rate-distortion curves on a log\n"
           "rate axis, one per table, and the BD-rate of each against the first. psnrhvs\n"
           "target's JSON (-o search.json) adds its probes: the score over the setting and\n"
           "over the bitrate (log axis), the target a dashed line, the chosen probe circled,\n"
           "one curve per search, and a table of the probes (a lossless one: 'lossless').\n"
           "\n"
           " -o, --output FILE         the page ('-' = stdout), written atomically\n"
           "     --name NAME           the name of the next input without one, in order\n"
           "                           (default: its file name without the extension)\n"
           "     --title TEXT          the page's title (default: PSNR-HVS report)\n"
           "     --worst N             worst frames listed per rendition (default 10)\n"
           "     --percentiles LIST    comma-separated, in %% (default 1,5,10,50)\n"
           "     --bd-method M         pchip (default) or cubic (psnrhvs bdrate --method)\n"
           "     --pool POOL           a summary's column: NAME_POOL, mean (default),\n"
           "                           harmonic_mean, min or max\n"
           "     --help                this text\n");
}

static unsigned parse_count(const char *const arg, const char *const what) {
    char *end;
    const unsigned long v = strtoul(arg, &end, 10);
    if (*arg < '0' || *arg > '9' || *end || v > 100000) usage_error(what, arg);
    return (unsigned)v;
}

static int parse_percentiles(Report *const rep, const char *const arg) {
    rep->num_percentiles = 0;
    const char *p = arg;
    for (;;) {
        char *end;
        const double v = strtod(p, &end);
        if (end == p || !(v > 0 && v <= 100) || rep->num_percentiles == MAX_PERCENTILES) return -1;
        rep->percentiles[rep->num_percentiles++] = v;
        if (!*end) return 0;
        if (*end != ',') return -1;
        p = end + 1;
    }
}

/* "dir/720p.json" -> "720p" */
static char *name_from_path(const char *const path) {
    if (!strcmp(path, "-")) return strdup("stdin");
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *const dot = strrchr(base, '.');
    const size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *const name = malloc(len + 1);
    if (name) memcpy(name, base, len), name[len] = '\0';
    return name;
}

static int cmp_double(const void *const a, const void *const b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

static const Rendition *sort_rendition;
static int cmp_worst(const void *const a, const void *const b) {
    const size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const Rendition *const r = sort_rendition;
    const double x = r->y[r->rank_key][i], y = r->y[r->rank_key][j];
    if (x < y) return -1;
    if (x > y) return 1;
    const unsigned fi = r->s.frames[i].frame_num, fj = r->s.frames[j].frame_num;
    return fi < fj ? -1 : fi > fj;
}

/* Arrays for the charts and tables. @return 0 or -1 (no memory) */
static int prepare(Rendition *const r, const unsigned worst) {
    const size_t n = r->s.num_frames;
    if (!(r->x = malloc(n * sizeof(double)))) return -1;
    for (size_t i = 0; i < n; i++) r->x[i] = r->s.frames[i].frame_num;
    r->rank_key = PSNRHVS_KEY_COMBINED;
    if (!r->s.has_key[PSNRHVS_KEY_COMBINED])
        for (int k = PSNRHVS_NUM_KEYS - 1; k >= 0; k--)
            if (r->s.has_key[k]) r->rank_key = (enum PsnrHvsKey)k;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
        if (!r->s.has_key[k]) continue;
        if (!(r->y[k] = malloc(n * sizeof(double))) || !(r->sorted[k] = malloc(n * sizeof(double))))
            return -1;
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            r->y[k][i] = r->s.frames[i].has[k] ? r->s.frames[i].value[k] : NAN;
            if (!isnan(r->y[k][i])) r->sorted[k][m++] = r->y[k][i];
        }
        qsort(r->sorted[k], m, sizeof(double), cmp_double);
        r->num_sorted[k] = m;
    }
    size_t m = 0;
    if (!(r->worst = malloc((n ? n : 1) * sizeof(size_t)))) return -1;
    for (size_t i = 0; i < n; i++) {
        const double v = r->y[r->rank_key][i];
        if (isnan(v)) continue;
        r->worst[m++] = i;
        if (isinf(v) && v > 0) r->infinite++;
    }
    sort_rendition = r;
    qsort(r->worst, m, sizeof(size_t), cmp_worst);
    r->num_worst = m < worst ? m : worst;
    return 0;
}

static void free_rendition(Rendition *const r) {
    free(r->name);
    free(r->x);
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) free(r->y[k]), free(r->sorted[k]);
    free(r->worst);
    psnrhvs_scores_free(&r->s);
}

/* The command line: options and inputs, in order. */
typedef struct ReportArgs {
    const char *output, *pool;
    const char **names, **inputs;
    int num_names, num_inputs;
} ReportArgs;

/* Options into rep and a; usage errors exit. */
static void parse_args(const int argc, char *const *const argv, Report *const rep,
                       ReportArgs *const a) {
    enum { ARG_NAME = 256, ARG_TITLE, ARG_WORST, ARG_PERCENTILES, ARG_HELP, ARG_BD, ARG_POOL };
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"name", required_argument, NULL, ARG_NAME},
        {"title", required_argument, NULL, ARG_TITLE},
        {"worst", required_argument, NULL, ARG_WORST},
        {"percentiles", required_argument, NULL, ARG_PERCENTILES},
        {"help", no_argument, NULL, ARG_HELP},
        {"bd-method", required_argument, NULL, ARG_BD},
        {"pool", required_argument, NULL, ARG_POOL},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    optind = 1;
    int o;
    /* '-' first in the option string: inputs are returned in order, between options */
    while ((o = getopt_long(argc, argv, "-:o:", opts, NULL)) != -1) {
        switch (o) {
        case 1:
            a->inputs[a->num_inputs++] = optarg;
            break;
        case 'o':
            a->output = optarg;
            break;
        case ARG_NAME:
            a->names[a->num_names++] = optarg;
            break;
        case ARG_TITLE:
            rep->title = optarg;
            break;
        case ARG_WORST:
            rep->worst = parse_count(optarg, "invalid --worst");
            break;
        case ARG_PERCENTILES:
            if (parse_percentiles(rep, optarg) < 0)
                usage_error("invalid --percentiles (up to 8 numbers over 0 and up to 100)", optarg);
            break;
        case ARG_BD:
            if (bd_method_from_name(optarg) < 0)
                usage_error("unknown --bd-method (expected pchip or cubic):", optarg);
            rep->bd_method = (enum BdMethod)bd_method_from_name(optarg);
            break;
        case ARG_POOL:
            if (!bd_pool_ok(optarg))
                usage_error("unknown --pool (expected mean, harmonic_mean, min or max):", optarg);
            a->pool = optarg;
            break;
        case ARG_HELP:
            help();
            exit(0);
        case ':':
            usage_error("an option needs a value:", argv[optind - 1]);
            break;
        default:
            usage_error("unknown option", argv[optind - 1]);
        }
    }
    if (!a->num_inputs) usage_error("no score files given", NULL);
    if (!a->output) usage_error("missing -o FILE (the HTML page to write)", NULL);
    if (a->num_names > a->num_inputs) usage_error("more --name than score files", NULL);
    int stdin_used = 0;
    for (int i = 0; i < a->num_inputs; i++)
        if (!strcmp(a->inputs[i], "-") && stdin_used++)
            usage_error("stdin ('-') given twice", NULL);
}

/* Never a page over one of its inputs (by name, link, or stdin). @return 0 or -1 (said) */
static int check_clobber(const ReportArgs *const a) {
    NamedFile *const ins = calloc((size_t)a->num_inputs, sizeof(*ins));
    if (!ins) {
        fprintf(stderr, "psnrhvs: out of memory\n");
        return -1;
    }
    for (int i = 0; i < a->num_inputs; i++) ins[i] = (NamedFile){a->inputs[i], "the input"};
    const NamedFile page = {a->output, "output file"};
    char why[8192];
    const int clobber = output_check_clobber(&page, 1, ins, a->num_inputs, why, sizeof(why));
    free(ins);
    if (clobber < 0) {
        fprintf(stderr, "psnrhvs: report: %s\n", why);
        return -1;
    }
    return 0;
}

/* Input i (its contents in buf, freed here) as a rate-distortion curve or a rendition.
 * @return 0 or -1 (said) */
static int add_input(Report *const rep, const ReportArgs *const a, const int i, char *const buf,
                     const size_t len) {
    char *const name = i < a->num_names ? strdup(a->names[i]) : name_from_path(a->inputs[i]);
    const char *const shown = strcmp(a->inputs[i], "-") ? a->inputs[i] : "stdin";
    if (search_detect(buf, len)) {
        /* psnrhvs target's JSON: its probes */
        char err[1024];
        Search *const s = &rep->s[rep->ns];
        s->path = a->inputs[i];
        const int res = search_parse(s, buf, len, err, sizeof(err));
        free(buf);
        if (res < 0) {
            fprintf(stderr, "psnrhvs: %s: %s\n", shown, err);
            search_free(s);
            free(name);
            return -1;
        }
        rep->ns++;
        s->name = name;
        if (!name) goto oom;
        return 0;
    }
    if (rd_table_detect(buf, len)) {
        /* a rate table: one rate-distortion curve */
        char err[1024];
        Curve *const c = &rep->c[rep->nc];
        c->path = a->inputs[i];
        c->name = name;
        const int res = rd_table_parse(&c->t, shown, buf, len, a->pool, err, sizeof(err));
        free(buf);
        if (res < 0) {
            fprintf(stderr, "psnrhvs: %s\n", err);
            free(c->name);
            return -1;
        }
        rep->nc++;
        if (!name) goto oom;
        return 0;
    }
    Rendition *const r = &rep->r[rep->n];
    r->path = a->inputs[i];
    char msg[512];
    const int res = scores_parse(&r->s, buf, len, msg, sizeof(msg));
    free(buf);
    if (res < 0) {
        fprintf(stderr, "psnrhvs: %s: %s\n", shown, msg);
        free(name);
        return -1;
    }
    rep->n++;
    r->name = name;
    if (!r->name || prepare(r, rep->worst) < 0) goto oom;
    return 0;
oom:
    fprintf(stderr, "psnrhvs: out of memory\n");
    return -1;
}

/* Check, open the page, read the inputs, write. @return the exit status */
static int write_report(Report *const rep, const ReportArgs *const a) {
    int ret = 1;
    OutputFile *of = NULL;
    rep->r = calloc((size_t)a->num_inputs, sizeof(*rep->r));
    rep->c = calloc((size_t)a->num_inputs, sizeof(*rep->c));
    rep->s = calloc((size_t)a->num_inputs, sizeof(*rep->s));
    if (!rep->r || !rep->c || !rep->s) {
        fprintf(stderr, "psnrhvs: out of memory\n");
        goto end;
    }
    if (check_clobber(a) < 0) goto end;
    /* Open the page first: a bad path fails before reading anything. */
    if (output_open(&of, a->output) < 0) goto end;
    for (int i = 0; i < a->num_inputs; i++) {
        char err[1024];
        char *buf = NULL;
        size_t len = 0;
        if (cli_read_file(a->inputs[i], &buf, &len, err, sizeof(err)) < 0) {
            fprintf(stderr, "psnrhvs: %s\n", err);
            goto end;
        }
        if (add_input(rep, a, i, buf, len) < 0) goto end;
    }
    if (output_commit_with(&of, report_write, rep) < 0) goto end;
    ret = 0;
end:
    output_abort(&of);
    for (int i = 0; i < rep->n; i++) free_rendition(&rep->r[i]);
    for (int i = 0; i < rep->nc; i++) free(rep->c[i].name), rd_table_free(&rep->c[i].t);
    for (int i = 0; i < rep->ns; i++) search_free(&rep->s[i]);
    free(rep->r);
    free(rep->c);
    free(rep->s);
    return ret;
}

int report_main(int argc, char *const *argv) {
    Report rep = {.title = "PSNR-HVS report", .worst = 10};
    parse_percentiles(&rep, "1,5,10,50");
    ReportArgs a = {.pool = "mean"};
    a.names = calloc((size_t)argc + 1, sizeof(*a.names));
    a.inputs = calloc((size_t)argc + 1, sizeof(*a.inputs));
    if (!a.names || !a.inputs) {
        fprintf(stderr, "psnrhvs: out of memory\n");
        return 1;
    }
    parse_args(argc, argv, &rep, &a);
    const int ret = write_report(&rep, &a);
    free(a.names);
    free(a.inputs);
    return ret;
}

int plot_write(FILE *const f, const void *const plot_data) {
    const PlotData *const pd = plot_data;
    const PsnrHvsScoreSet *const s = pd->scores;
    double *const x = malloc((s->num_frames ? s->num_frames : 1) * sizeof(double));
    double *y[PSNRHVS_NUM_KEYS] = {NULL};
    SvgSeries series[PSNRHVS_NUM_KEYS];
    int n = 0, ok = x != NULL;
    for (size_t i = 0; ok && i < s->num_frames; i++) x[i] = s->frames[i].frame_num;
    /* planes first, the combined score on top */
    static const enum PsnrHvsKey order[PSNRHVS_NUM_KEYS] = {PSNRHVS_KEY_CR, PSNRHVS_KEY_CB,
                                                            PSNRHVS_KEY_Y, PSNRHVS_KEY_COMBINED};
    static const char *const colors[PSNRHVS_NUM_KEYS] = {"#2ca02c", "#ff7f0e", "#7f7f7f",
                                                         "#1f77b4"};
    for (int c = 0; ok && c < PSNRHVS_NUM_KEYS; c++) {
        const enum PsnrHvsKey k = order[c];
        if (!s->has_key[k]) continue;
        if (!(y[k] = malloc((s->num_frames ? s->num_frames : 1) * sizeof(double)))) {
            ok = 0;
            break;
        }
        for (size_t i = 0; i < s->num_frames; i++)
            y[k][i] = s->frames[i].has[k] ? s->frames[i].value[k] : NAN;
        series[n++] = (SvgSeries){
            .label = psnrhvs_key_string(k),
            .color = colors[c],
            .key = psnrhvs_key_string(k),
            .rendition = pd->title,
            .x = x,
            .y = y[k],
            .n = s->num_frames,
        };
    }
    int res = -1;
    if (ok) {
        const SvgChart c = {
            .width = 1000,
            .height = 420,
            .title = pd->title,
            .x_label = "frame",
            .y_label = "dB",
            .series = series,
            .num_series = n,
            .standalone = 1,
            .legend = 1,
        };
        res = svg_chart(f, &c);
    }
    free(x);
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) free(y[k]);
    if (!ok) fprintf(stderr, "psnrhvs: out of memory\n");
    return res;
}
