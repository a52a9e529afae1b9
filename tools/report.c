/*
 * psnrhvs: `psnrhvs report`: one self-contained HTML page (inline SVG and
 * CSS, no script, nothing fetched) with the per-frame curves of several
 * renditions, their pooled values, percentiles and worst frames.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"
#include "report.h"
#include "svg.h"

/* Charts in this order: the combined score large, the planes below it. */
static const enum OutputKey chart_keys[OUTPUT_NUM_KEYS] = {
    OUTPUT_KEY_COMBINED,
    OUTPUT_KEY_Y,
    OUTPUT_KEY_CB,
    OUTPUT_KEY_CR,
};

#define MAX_PERCENTILES 8

typedef struct Rendition {
    const char *path;
    char *name;
    ScoreSet s;
    double *x;                  ///< frame numbers
    double *y[OUTPUT_NUM_KEYS]; ///< per key, NaN where absent
    double *sorted[OUTPUT_NUM_KEYS];
    size_t num_sorted[OUTPUT_NUM_KEYS];
    size_t *worst; ///< frame indices, worst first
    size_t num_worst;
    enum OutputKey rank_key;
    size_t infinite; ///< frames whose ranking key is +inf
} Rendition;

typedef struct Report {
    const char *title;
    Rendition *r;
    int n;
    double percentiles[MAX_PERCENTILES];
    int num_percentiles;
    unsigned worst;
} Report;

static void usage_error(const char *const msg, const char *const arg) {
    fprintf(stderr, "psnrhvs: report: %s%s%s%s (see psnrhvs report --help)\n", msg, arg ? " '" : "",
            arg ? arg : "", arg ? "'" : "");
    exit(2);
}

static void help(void) {
    printf("Usage: psnrhvs report SCORES [SCORES ...] -o report.html [options]\n"
           "One HTML page (inline SVG, no script, nothing fetched) with the per-frame curves\n"
           "of psnr_hvs, psnr_hvs_y, psnr_hvs_cb and psnr_hvs_cr of each input overlaid (a\n"
           "ladder: each input one rendition), the pooled values, percentiles and the worst\n"
           "frames. Inputs are psnrhvs's or libvmaf's JSON (any --precision, --raw), XML,\n"
           "CSV or sub files; '-' is stdin.\n"
           "\n"
           " -o, --output FILE         the page ('-' = stdout), written atomically\n"
           "     --name NAME           the name of the next input without one, in order\n"
           "                           (default: its file name without the extension)\n"
           "     --title TEXT          the page's title (default: PSNR-HVS report)\n"
           "     --worst N             worst frames listed per rendition (default 10)\n"
           "     --percentiles LIST    comma-separated, in %% (default 1,5,10,50)\n"
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
    const unsigned fi = r->s.frames[i].num, fj = r->s.frames[j].num;
    return fi < fj ? -1 : fi > fj;
}

/* Arrays for the charts and tables. @return 0 or -1 (no memory) */
static int prepare(Rendition *const r, const unsigned worst) {
    const size_t n = r->s.num_frames;
    if (!(r->x = malloc(n * sizeof(double)))) return -1;
    for (size_t i = 0; i < n; i++) r->x[i] = r->s.frames[i].num;
    r->rank_key = OUTPUT_KEY_COMBINED;
    if (!r->s.has_key[OUTPUT_KEY_COMBINED])
        for (int k = OUTPUT_NUM_KEYS - 1; k >= 0; k--)
            if (r->s.has_key[k]) r->rank_key = (enum OutputKey)k;
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) {
        if (!r->s.has_key[k]) continue;
        if (!(r->y[k] = malloc(n * sizeof(double))) || !(r->sorted[k] = malloc(n * sizeof(double))))
            return -1;
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            r->y[k][i] = r->s.frames[i].has[k] ? r->s.frames[i].v[k] : NAN;
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
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) free(r->y[k]), free(r->sorted[k]);
    free(r->worst);
    psnrhvs_scores_free(&r->s);
}

/* Nearest rank: the smallest value with at least p % of the frames at or below it. */
static double percentile(const double *const sorted, const size_t n, const double p) {
    if (!n) return NAN;
    double rank = ceil(p / 100.0 * (double)n);
    if (rank < 1) rank = 1;
    if (rank > (double)n) rank = (double)n;
    return sorted[(size_t)rank - 1];
}

/* A table cell: 3 decimals, "+inf", or a dash for no value */
static void cell(FILE *const f, const double v) {
    if (isnan(v))
        fputs("<td>&#8212;</td>", f);
    else if (isinf(v))
        fprintf(f, "<td>%sinf</td>", v > 0 ? "+" : "-");
    else
        fprintf(f, "<td>%.3f</td>", v);
}

static void swatch_name(FILE *const f, const Rendition *const r, const int i) {
    fprintf(f, "<td class=\"l\"><span class=\"sw\" style=\"background:%s\"></span>",
            psnrhvs_svg_color(i));
    psnrhvs_xml_text(f, r->name);
    fputs("</td>", f);
}

static int any_has(const Report *const rep, const enum OutputKey k) {
    for (int i = 0; i < rep->n; i++)
        if (rep->r[i].s.has_key[k]) return 1;
    return 0;
}

static void write_chart(FILE *const f, const Report *const rep, const enum OutputKey k,
                        const int big) {
    SvgSeries series[64];
    size_t marks[64];
    int n = 0;
    /* the first input drawn last, on top */
    for (int i = rep->n - 1; i >= 0 && n < 64; i--) {
        const Rendition *const r = &rep->r[i];
        if (!r->s.has_key[k]) continue;
        SvgSeries *const s = &series[n];
        *s = (SvgSeries){
            .label = r->name,
            .color = psnrhvs_svg_color(i),
            .key = psnrhvs_output_key_name(k),
            .rendition = r->name,
            .x = r->x,
            .y = r->y[k],
            .n = r->s.num_frames,
        };
        if (big && r->num_worst && k == r->rank_key) {
            marks[n] = r->worst[0];
            s->marks = &marks[n];
            s->num_marks = 1;
        }
        n++;
    }
    const SvgChart c = {
        .width = big ? 1200 : 400,
        .height = big ? 340 : 250,
        .title = psnrhvs_output_key_name(k),
        .x_label = "frame",
        .y_label = "dB",
        .series = series,
        .num_series = n,
    };
    fprintf(f, "<figure id=\"chart-%s\">\n", psnrhvs_output_key_name(k));
    psnrhvs_svg_chart(f, &c);
    fprintf(f, "</figure>\n");
}

static const char style[] =
    "body{font:14px/1.45 sans-serif;margin:18px 28px;color:#222;background:#fff}\n"
    "h1{font-size:22px;margin:0 0 2px}\n"
    "h2{font-size:17px;margin:22px 0 6px}\n"
    ".meta{color:#555;margin:0 0 8px}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 24px;margin:4px 0 6px}\n"
    ".sw{display:inline-block;width:22px;height:12px;margin-right:6px;vertical-align:-1px}\n"
    "figure{margin:0}\n"
    "svg.chart{width:100%;height:auto;display:block}\n"
    ".curve{fill:none;stroke-width:1.6;stroke-linejoin:round;stroke-linecap:round}\n"
    ".mark{fill:none;stroke-width:1.5}\n"
    ".grid{stroke:#e6e6e6}\n"
    ".axis{stroke:#888;fill:none}\n"
    ".row{display:flex;gap:14px}\n"
    ".row figure{flex:1 1 0;min-width:0}\n"
    ".notes{color:#444;margin:8px 0}\n"
    "table{border-collapse:collapse;margin:2px 0 8px}\n"
    "th,td{padding:2px 10px;border-bottom:1px solid #e2e2e2;text-align:right;"
    "white-space:nowrap}\n"
    "th{background:#f5f5f5;font-weight:600}\n"
    "td.l,th.l{text-align:left}\n"
    ".tables{display:flex;flex-wrap:wrap;gap:8px 30px;align-items:flex-start}\n"
    "caption{text-align:left;font-weight:600;padding:2px 0}\n";

static int report_write(FILE *const f, const void *const cookie) {
    const Report *const rep = cookie;
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    fprintf(f, "<meta name=\"generator\" content=\"psnrhvs %s\">\n<title>", psnrhvs_version());
    psnrhvs_xml_text(f, rep->title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
    psnrhvs_xml_text(f, rep->title);
    fprintf(f, "</h1>\n<p class=\"meta\">%d rendition%s &#183; psnrhvs %s &#183; ", rep->n,
            rep->n == 1 ? "" : "s", psnrhvs_version());
    for (int i = 0; i < rep->n; i++) {
        if (i) fputs(", ", f);
        psnrhvs_xml_text(f, rep->r[i].path);
    }
    fputs("</p>\n<div class=\"legend\">\n", f);
    for (int i = 0; i < rep->n; i++) {
        const Rendition *const r = &rep->r[i];
        fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span><b>",
                psnrhvs_svg_color(i));
        psnrhvs_xml_text(f, r->name);
        fprintf(f, "</b> %zu frame%s", r->s.num_frames, r->s.num_frames == 1 ? "" : "s");
        const double mean = r->s.pool[r->rank_key].mean;
        if (isfinite(mean))
            fprintf(f, ", mean %s %.3f dB", psnrhvs_output_key_name(r->rank_key), mean);
        else if (!isnan(mean))
            fprintf(f, ", mean %s %sinf", psnrhvs_output_key_name(r->rank_key),
                    mean > 0 ? "+" : "-");
        fputs("</span>\n", f);
    }
    fputs("</div>\n", f);

    write_chart(f, rep, chart_keys[0], 1);
    fputs("<div class=\"row\">\n", f);
    for (int c = 1; c < OUTPUT_NUM_KEYS; c++)
        if (any_has(rep, chart_keys[c])) write_chart(f, rep, chart_keys[c], 0);
    fputs("</div>\n", f);

    /* what the charts do not say by themselves */
    fputs("<ul class=\"notes\">\n", f);
    int many = 0;
    for (int i = 0; i < rep->n; i++) {
        const Rendition *const r = &rep->r[i];
        if (r->s.num_frames > 2 * (1200 - 72)) many = 1;
        if (r->infinite) {
            fputs("<li class=\"note-inf\"><b>", f);
            psnrhvs_xml_text(f, r->name);
            fprintf(f,
                    "</b>: %zu of %zu frames identical to the reference (%s +inf, null in "
                    "JSON): drawn clipped in the +inf band at the top of the charts, each "
                    "marked &#9650;.</li>\n",
                    r->infinite, r->s.num_frames, psnrhvs_output_key_name(r->rank_key));
        }
        if (r->s.num_planes == 1) {
            fputs("<li class=\"note-luma\"><b>", f);
            psnrhvs_xml_text(f, r->name);
            fputs("</b>: luma only (no psnr_hvs_cb, psnr_hvs_cr).</li>\n", f);
        }
    }
    if (many)
        fputs("<li class=\"note-downsampled\">More frames than pixel columns: each column "
              "draws its first, lowest, highest and last value, so every dip stays "
              "visible.</li>\n",
              f);
    fputs("</ul>\n", f);

    fputs("<h2>Pooled values</h2>\n<table id=\"pooled\">\n<tr><th class=\"l\">rendition</th>"
          "<th class=\"l\">key</th><th>frames</th><th>mean</th><th>harmonic mean</th>"
          "<th>min</th><th>max</th></tr>\n",
          f);
    for (int i = 0; i < rep->n; i++) {
        const Rendition *const r = &rep->r[i];
        for (int c = 0; c < OUTPUT_NUM_KEYS; c++) {
            const enum OutputKey k = chart_keys[c];
            if (!r->s.has_key[k]) continue;
            fputs("<tr>", f);
            swatch_name(f, r, i);
            fprintf(f, "<td class=\"l\">%s</td><td>%zu</td>", psnrhvs_output_key_name(k),
                    r->num_sorted[k]);
            cell(f, r->s.pool[k].mean);
            cell(f, r->s.pool[k].harmonic_mean);
            cell(f, r->s.pool[k].min);
            cell(f, r->s.pool[k].max);
            fputs("</tr>\n", f);
        }
    }
    fputs("</table>\n", f);

    fputs("<h2>Percentiles</h2>\n<p class=\"meta\">The value at or below which the given share "
          "of frames lies (nearest rank: the 1 % value of 300 frames is the 3rd lowest).</p>\n"
          "<table id=\"percentiles\">\n<tr><th class=\"l\">rendition</th><th class=\"l\">key</th>",
          f);
    for (int p = 0; p < rep->num_percentiles; p++)
        fprintf(f, "<th>%g %%</th>", rep->percentiles[p]);
    fputs("</tr>\n", f);
    for (int i = 0; i < rep->n; i++) {
        const Rendition *const r = &rep->r[i];
        for (int c = 0; c < OUTPUT_NUM_KEYS; c++) {
            const enum OutputKey k = chart_keys[c];
            if (!r->s.has_key[k]) continue;
            fputs("<tr>", f);
            swatch_name(f, r, i);
            fprintf(f, "<td class=\"l\">%s</td>", psnrhvs_output_key_name(k));
            for (int p = 0; p < rep->num_percentiles; p++)
                cell(f, percentile(r->sorted[k], r->num_sorted[k], rep->percentiles[p]));
            fputs("</tr>\n", f);
        }
    }
    fputs("</table>\n", f);

    fprintf(f, "<h2>Worst frames</h2>\n<div class=\"tables\">\n");
    for (int i = 0; i < rep->n; i++) {
        const Rendition *const r = &rep->r[i];
        fprintf(f,
                "<table id=\"worst-%d\" class=\"worst\">\n<caption><span class=\"sw\" "
                "style=\"background:%s\"></span>",
                i, psnrhvs_svg_color(i));
        psnrhvs_xml_text(f, r->name);
        fprintf(f, " (lowest %s)</caption>\n<tr><th>#</th><th>frame</th>",
                psnrhvs_output_key_name(r->rank_key));
        for (int c = 0; c < OUTPUT_NUM_KEYS; c++)
            if (r->s.has_key[chart_keys[c]])
                fprintf(f, "<th>%s</th>", psnrhvs_output_key_name(chart_keys[c]));
        fputs("</tr>\n", f);
        for (size_t w = 0; w < r->num_worst; w++) {
            const size_t idx = r->worst[w];
            fprintf(f, "<tr><td>%zu</td><td class=\"frame\">%u</td>", w + 1, r->s.frames[idx].num);
            for (int c = 0; c < OUTPUT_NUM_KEYS; c++)
                if (r->s.has_key[chart_keys[c]]) cell(f, r->y[chart_keys[c]][idx]);
            fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    fputs("</div>\n</body>\n</html>\n", f);
    return ferror(f) ? -1 : 0;
}

int psnrhvs_report_main(int argc, char *const *argv) {
    enum { ARG_NAME = 256, ARG_TITLE, ARG_WORST, ARG_PERCENTILES, ARG_HELP };
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"name", required_argument, NULL, ARG_NAME},
        {"title", required_argument, NULL, ARG_TITLE},
        {"worst", required_argument, NULL, ARG_WORST},
        {"percentiles", required_argument, NULL, ARG_PERCENTILES},
        {"help", no_argument, NULL, ARG_HELP},
        {NULL, 0, NULL, 0},
    };
    Report rep = {.title = "PSNR-HVS report", .worst = 10};
    parse_percentiles(&rep, "1,5,10,50");
    const char *output = NULL;
    const char **names = calloc((size_t)argc + 1, sizeof(*names));
    const char **inputs = calloc((size_t)argc + 1, sizeof(*inputs));
    int num_names = 0, num_inputs = 0;
    if (!names || !inputs) {
        fprintf(stderr, "psnrhvs: out of memory\n");
        return 1;
    }
    opterr = 0;
    optind = 1;
    int o;
    /* '-' first in the option string: inputs are returned in order, between options */
    while ((o = getopt_long(argc, argv, "-:o:", opts, NULL)) != -1) {
        switch (o) {
        case 1:
            inputs[num_inputs++] = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case ARG_NAME:
            names[num_names++] = optarg;
            break;
        case ARG_TITLE:
            rep.title = optarg;
            break;
        case ARG_WORST:
            rep.worst = parse_count(optarg, "invalid --worst");
            break;
        case ARG_PERCENTILES:
            if (parse_percentiles(&rep, optarg) < 0)
                usage_error("invalid --percentiles (up to 8 numbers over 0 and up to 100)", optarg);
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
    if (!num_inputs) usage_error("no score files given", NULL);
    if (!output) usage_error("missing -o FILE (the HTML page to write)", NULL);
    if (num_names > num_inputs) usage_error("more --name than score files", NULL);
    int stdin_used = 0;
    for (int i = 0; i < num_inputs; i++)
        if (!strcmp(inputs[i], "-") && stdin_used++) usage_error("stdin ('-') given twice", NULL);

    int ret = 1;
    OutputFile *of = NULL;
    rep.r = calloc((size_t)num_inputs, sizeof(*rep.r));
    if (!rep.r) {
        fprintf(stderr, "psnrhvs: out of memory\n");
        goto end;
    }
    /* Open the page first: a bad path fails before reading anything. */
    if (psnrhvs_output_open(&of, output) < 0) goto end;
    for (int i = 0; i < num_inputs; i++) {
        Rendition *const r = &rep.r[i];
        char err[512];
        r->path = inputs[i];
        if (psnrhvs_scores_read(&r->s, inputs[i], err, sizeof(err)) < 0) {
            fprintf(stderr, "psnrhvs: %s\n", err);
            goto end;
        }
        rep.n = i + 1;
        r->name = i < num_names ? strdup(names[i]) : name_from_path(inputs[i]);
        if (!r->name || prepare(r, rep.worst) < 0) {
            fprintf(stderr, "psnrhvs: out of memory\n");
            goto end;
        }
    }
    if (psnrhvs_output_commit_with(&of, report_write, &rep) < 0) goto end;
    ret = 0;
end:
    psnrhvs_output_abort(&of);
    for (int i = 0; i < rep.n; i++) free_rendition(&rep.r[i]);
    free(rep.r);
    free(names);
    free(inputs);
    return ret;
}

int psnrhvs_plot_write(FILE *const f, const void *const plot_data) {
    const PlotData *const pd = plot_data;
    const ScoreSet *const s = pd->scores;
    double *const x = malloc((s->num_frames ? s->num_frames : 1) * sizeof(double));
    double *y[OUTPUT_NUM_KEYS] = {NULL};
    SvgSeries series[OUTPUT_NUM_KEYS];
    int n = 0, ok = x != NULL;
    for (size_t i = 0; ok && i < s->num_frames; i++) x[i] = s->frames[i].num;
    /* planes first, the combined score on top */
    static const enum OutputKey order[OUTPUT_NUM_KEYS] = {OUTPUT_KEY_CR, OUTPUT_KEY_CB,
                                                          OUTPUT_KEY_Y, OUTPUT_KEY_COMBINED};
    static const char *const colors[OUTPUT_NUM_KEYS] = {"#2ca02c", "#ff7f0e", "#7f7f7f", "#1f77b4"};
    for (int c = 0; ok && c < OUTPUT_NUM_KEYS; c++) {
        const enum OutputKey k = order[c];
        if (!s->has_key[k]) continue;
        if (!(y[k] = malloc((s->num_frames ? s->num_frames : 1) * sizeof(double)))) {
            ok = 0;
            break;
        }
        for (size_t i = 0; i < s->num_frames; i++)
            y[k][i] = s->frames[i].has[k] ? s->frames[i].v[k] : NAN;
        series[n++] = (SvgSeries){
            .label = psnrhvs_output_key_name(k),
            .color = colors[c],
            .key = psnrhvs_output_key_name(k),
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
        res = psnrhvs_svg_chart(f, &c);
    }
    free(x);
    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) free(y[k]);
    if (!ok) fprintf(stderr, "psnrhvs: out of memory\n");
    return res;
}
