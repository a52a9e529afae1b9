/*
 * psnrhvs: the page of `psnrhvs report`: one self-contained HTML file (inline
 * SVG and CSS, no script, nothing fetched) of the charts and tables.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"
#include "report_html.h"
#include "svg.h"

/* Charts in this order: the combined score large, the planes below it. */
static const enum PsnrHvsKey chart_keys[PSNRHVS_NUM_KEYS] = {
    PSNRHVS_KEY_COMBINED,
    PSNRHVS_KEY_Y,
    PSNRHVS_KEY_CB,
    PSNRHVS_KEY_CR,
};

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
    fprintf(f, "<td class=\"l\"><span class=\"sw\" style=\"background:%s\"></span>", svg_color(i));
    xml_text(f, r->name);
    fputs("</td>", f);
}

static int any_has(const Report *const rep, const enum PsnrHvsKey k) {
    for (int i = 0; i < rep->n; i++)
        if (rep->r[i].s.has_key[k]) return 1;
    return 0;
}

static void write_chart(FILE *const f, const Report *const rep, const enum PsnrHvsKey k,
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
            .color = svg_color(i),
            .key = psnrhvs_key_string(k),
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
        .title = psnrhvs_key_string(k),
        .x_label = "frame",
        .y_label = "dB",
        .series = series,
        .num_series = n,
    };
    fprintf(f, "<figure id=\"chart-%s\">\n", psnrhvs_key_string(k));
    svg_chart(f, &c);
    fprintf(f, "</figure>\n");
}

/* ---- rate-distortion curves (rate tables) ---- */

static int curve_has(const Report *const rep, const enum PsnrHvsKey k) {
    for (int i = 0; i < rep->nc; i++)
        if (rep->c[i].t.metric[k]) return 1;
    return 0;
}

/* One chart of key k: every curve's rungs by rate (log axis), joined in rate order. */
static void write_rd_chart(FILE *const f, const Report *const rep, const enum PsnrHvsKey k,
                           const int big) {
    SvgRateCurve *const curves = calloc((size_t)rep->nc + 1, sizeof(*curves));
    if (!curves) return;
    int n = 0;
    for (int i = rep->nc - 1; i >= 0; i--) {
        const RdTable *const t = &rep->c[i].t;
        if (!t->metric[k]) continue;
        curves[n++] = (SvgRateCurve){
            .name = rep->c[i].name,
            .color = svg_color(i),
            .rate = t->rate,
            .y = t->metric[k],
            .labels = (const char *const *)t->label,
            .n = t->n,
        };
    }
    char id[64];
    snprintf(id, sizeof(id), "rd-%s", psnrhvs_key_string(k));
    const SvgRateChart c = {
        .width = big ? 1200 : 400,
        .height = big ? 380 : 260,
        .id = id,
        .key = psnrhvs_key_string(k),
        .title = psnrhvs_key_string(k),
        .curves = curves,
        .num_curves = n,
    };
    svg_rate_chart(f, &c);
    free(curves);
}

static void write_rd_section(FILE *const f, const Report *const rep) {
    fputs("<h2>Rate and distortion</h2>\n<div class=\"legend\">\n", f);
    for (int i = 0; i < rep->nc; i++) {
        fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span><b>", svg_color(i));
        xml_text(f, rep->c[i].name);
        fprintf(f, "</b> %zu rung%s%s</span>\n", rep->c[i].t.n, rep->c[i].t.n == 1 ? "" : "s",
                i == 0 && rep->nc > 1 ? " (anchor)" : "");
    }
    fputs("</div>\n", f);
    write_rd_chart(f, rep, chart_keys[0], 1);
    fputs("<div class=\"row\">\n", f);
    for (int c = 1; c < PSNRHVS_NUM_KEYS; c++)
        if (curve_has(rep, chart_keys[c])) write_rd_chart(f, rep, chart_keys[c], 0);
    fputs("</div>\n", f);

    if (rep->nc > 1) {
        const RdTable *const anchor = &rep->c[0].t;
        fputs("<h2>BD-rate</h2>\n<p class=\"meta\">Against <b>", f);
        xml_text(f, rep->c[0].name);
        fprintf(f,
                "</b>, the first rate table (%s; psnrhvs bdrate computes the same): BD-rate "
                "negative where the curve needs less rate for the same score, BD-metric positive "
                "where it scores higher at the same rate.</p>\n",
                psnrhvs_bd_method_string(rep->bd_method));
        /* Up to nine columns: wider than a 1,400-pixel page. Its heads wrap,
         * and what is still too wide scrolls in its box, not the page. */
        fputs("<div class=\"wide\">\n<table id=\"bdrate\">\n<tr><th class=\"l\">curve</th>", f);
        for (int c = 0; c < PSNRHVS_NUM_KEYS; c++)
            if (anchor->metric[chart_keys[c]])
                fprintf(f, "<th>%s BD-rate</th><th>%s BD-metric</th>",
                        psnrhvs_key_string(chart_keys[c]), psnrhvs_key_string(chart_keys[c]));
        fputs("</tr>\n", f);
        char errs[PSNRHVS_NUM_KEYS * 16][600];
        int nerr = 0;
        for (int i = 1; i < rep->nc; i++) {
            fputs("<tr><td class=\"l\"><span class=\"sw\" style=\"background:", f);
            fprintf(f, "%s\"></span>", svg_color(i));
            xml_text(f, rep->c[i].name);
            fputs("</td>", f);
            for (int c = 0; c < PSNRHVS_NUM_KEYS; c++) {
                const enum PsnrHvsKey k = chart_keys[c];
                if (!anchor->metric[k]) continue;
                if (!rep->c[i].t.metric[k]) {
                    fputs("<td>&#8212;</td><td>&#8212;</td>", f);
                    continue;
                }
                BdResult r;
                char err[512];
                if (bd_compute(rep->bd_method, anchor, &rep->c[i].t, k, &r, err, sizeof(err)) < 0) {
                    fputs("<td class=\"bd-error\" title=\"", f);
                    xml_text(f, err);
                    fprintf(f, "\">error %d</td><td class=\"bd-error\">&#8212;</td>", nerr + 1);
                    if (nerr < (int)(sizeof(errs) / sizeof(errs[0])))
                        snprintf(errs[nerr++], sizeof(errs[0]), "%s, %s: %s", rep->c[i].name,
                                 psnrhvs_key_string(k), err);
                    continue;
                }
                fprintf(f,
                        "<td class=\"bd-rate\">%+.3f %%</td><td class=\"bd-metric\">%+.3f dB</td>",
                        r.rate, r.metric);
            }
            fputs("</tr>\n", f);
        }
        fputs("</table>\n</div>\n", f);
        if (nerr) {
            fputs("<ol class=\"bd-errors\">\n", f);
            for (int e = 0; e < nerr; e++) {
                fputs("<li>", f);
                xml_text(f, errs[e]);
                fputs("</li>\n", f);
            }
            fputs("</ol>\n", f);
        }
    } else {
        fputs("<p class=\"notes\">One rate table: a BD-rate needs a second one (the first is "
              "the anchor).</p>\n",
              f);
    }

    fputs("<h2>Rungs</h2>\n<table id=\"rungs\">\n<tr><th class=\"l\">curve</th><th "
          "class=\"l\">rung</th><th>kbit/s</th>",
          f);
    for (int c = 0; c < PSNRHVS_NUM_KEYS; c++)
        if (curve_has(rep, chart_keys[c]))
            fprintf(f, "<th>%s</th>", psnrhvs_key_string(chart_keys[c]));
    fputs("</tr>\n", f);
    for (int i = 0; i < rep->nc; i++) {
        const RdTable *const t = &rep->c[i].t;
        for (size_t j = 0; j < t->n; j++) {
            fprintf(f, "<tr><td class=\"l\"><span class=\"sw\" style=\"background:%s\"></span>",
                    svg_color(i));
            xml_text(f, rep->c[i].name);
            fputs("</td><td class=\"l\">", f);
            xml_text(f, t->label[j]);
            fprintf(f, "</td><td>%.3f</td>", t->rate[j]);
            for (int c = 0; c < PSNRHVS_NUM_KEYS; c++)
                if (curve_has(rep, chart_keys[c]))
                    cell(f, t->metric[chart_keys[c]] ? t->metric[chart_keys[c]][j] : NAN);
            fputs("</tr>\n", f);
        }
    }
    fputs("</table>\n", f);
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
    "caption{text-align:left;font-weight:600;padding:2px 0}\n"
    ".rd-curve{fill:none;stroke-width:1.8;stroke-linejoin:round}\n"
    ".wide{max-width:100%;overflow-x:auto}\n"
    "#bdrate th{white-space:normal}\n"
    "td.bd-error{color:#b00;text-align:center}\n"
    ".bd-errors{color:#b00}\n";

/* The head, the title and the list of inputs. */
static void write_head(FILE *const f, const Report *const rep) {
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    fprintf(f, "<meta name=\"generator\" content=\"psnrhvs %s\">\n<title>", psnrhvs_version());
    xml_text(f, rep->title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", style);
    xml_text(f, rep->title);
    fputs("</h1>\n<p class=\"meta\">", f);
    if (rep->n) fprintf(f, "%d rendition%s &#183; ", rep->n, rep->n == 1 ? "" : "s");
    if (rep->nc) fprintf(f, "%d rate table%s &#183; ", rep->nc, rep->nc == 1 ? "" : "s");
    if (rep->ns) fprintf(f, "%d target search%s &#183; ", rep->ns, rep->ns == 1 ? "" : "es");
    fprintf(f, "psnrhvs %s &#183; ", psnrhvs_version());
    for (int i = 0; i < rep->n + rep->nc + rep->ns; i++) {
        if (i) fputs(", ", f);
        xml_text(f, i < rep->n             ? rep->r[i].path
                    : i < rep->n + rep->nc ? rep->c[i - rep->n].path
                                           : rep->s[i - rep->n - rep->nc].path);
    }
    fputs("</p>\n", f);
}

/* Each rendition's colour, frames and mean. */
static void write_legend(FILE *const f, const Report *const rep) {
    fputs("<div class=\"legend\">\n", f);
    for (int i = 0; i < rep->n; i++) {
        const Rendition *const r = &rep->r[i];
        fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span><b>", svg_color(i));
        xml_text(f, r->name);
        fprintf(f, "</b> %zu frame%s", r->s.num_frames, r->s.num_frames == 1 ? "" : "s");
        const double mean = r->s.pool[r->rank_key].mean;
        if (isfinite(mean))
            fprintf(f, ", mean %s %.3f dB", psnrhvs_key_string(r->rank_key), mean);
        else if (!isnan(mean))
            fprintf(f, ", mean %s %sinf", psnrhvs_key_string(r->rank_key), mean > 0 ? "+" : "-");
        fputs("</span>\n", f);
    }
    fputs("</div>\n", f);
}

/* What the charts do not say by themselves. */
static void write_notes(FILE *const f, const Report *const rep) {
    fputs("<ul class=\"notes\">\n", f);
    int many = 0;
    for (int i = 0; i < rep->n; i++) {
        const Rendition *const r = &rep->r[i];
        if (r->s.num_frames > 2 * (1200 - 72)) many = 1;
        if (r->infinite) {
            fputs("<li class=\"note-inf\"><b>", f);
            xml_text(f, r->name);
            fprintf(f,
                    "</b>: %zu of %zu frames identical to the reference (%s +inf, null in "
                    "JSON): drawn clipped in the +inf band at the top of the charts, each "
                    "marked &#9650;.</li>\n",
                    r->infinite, r->s.num_frames, psnrhvs_key_string(r->rank_key));
        }
        if (r->s.num_planes == 1) {
            fputs("<li class=\"note-luma\"><b>", f);
            xml_text(f, r->name);
            fputs("</b>: luma only (no psnr_hvs_cb, psnr_hvs_cr).</li>\n", f);
        }
    }
    if (many)
        fputs("<li class=\"note-downsampled\">More frames than pixel columns: each column "
              "draws its first, lowest, highest and last value, so every dip stays "
              "visible.</li>\n",
              f);
    fputs("</ul>\n", f);
}

static void write_pooled_table(FILE *const f, const Report *const rep) {
    fputs("<h2>Pooled values</h2>\n<table id=\"pooled\">\n<tr><th class=\"l\">rendition</th>"
          "<th class=\"l\">key</th><th>frames</th><th>mean</th><th>harmonic mean</th>"
          "<th>min</th><th>max</th></tr>\n",
          f);
    for (int i = 0; i < rep->n; i++) {
        const Rendition *const r = &rep->r[i];
        for (int c = 0; c < PSNRHVS_NUM_KEYS; c++) {
            const enum PsnrHvsKey k = chart_keys[c];
            if (!r->s.has_key[k]) continue;
            fputs("<tr>", f);
            swatch_name(f, r, i);
            fprintf(f, "<td class=\"l\">%s</td><td>%zu</td>", psnrhvs_key_string(k),
                    r->num_sorted[k]);
            cell(f, r->s.pool[k].mean);
            cell(f, r->s.pool[k].harmonic_mean);
            cell(f, r->s.pool[k].min);
            cell(f, r->s.pool[k].max);
            fputs("</tr>\n", f);
        }
    }
    fputs("</table>\n", f);
}

static void write_percentile_table(FILE *const f, const Report *const rep) {
    fputs("<h2>Percentiles</h2>\n<p class=\"meta\">The value at or below which the given share "
          "of frames lies (nearest rank: the 1 % value of 300 frames is the 3rd lowest).</p>\n"
          "<table id=\"percentiles\">\n<tr><th class=\"l\">rendition</th><th class=\"l\">key</th>",
          f);
    for (int p = 0; p < rep->num_percentiles; p++)
        fprintf(f, "<th>%g %%</th>", rep->percentiles[p]);
    fputs("</tr>\n", f);
    for (int i = 0; i < rep->n; i++) {
        const Rendition *const r = &rep->r[i];
        for (int c = 0; c < PSNRHVS_NUM_KEYS; c++) {
            const enum PsnrHvsKey k = chart_keys[c];
            if (!r->s.has_key[k]) continue;
            fputs("<tr>", f);
            swatch_name(f, r, i);
            fprintf(f, "<td class=\"l\">%s</td>", psnrhvs_key_string(k));
            for (int p = 0; p < rep->num_percentiles; p++)
                cell(f, percentile(r->sorted[k], r->num_sorted[k], rep->percentiles[p]));
            fputs("</tr>\n", f);
        }
    }
    fputs("</table>\n", f);
}

/* A table of the worst frames per rendition. */
static void write_worst_tables(FILE *const f, const Report *const rep) {
    fprintf(f, "<h2>Worst frames</h2>\n<div class=\"tables\">\n");
    for (int i = 0; i < rep->n; i++) {
        const Rendition *const r = &rep->r[i];
        fprintf(f,
                "<table id=\"worst-%d\" class=\"worst\">\n<caption><span class=\"sw\" "
                "style=\"background:%s\"></span>",
                i, svg_color(i));
        xml_text(f, r->name);
        fprintf(f, " (lowest %s)</caption>\n<tr><th>#</th><th>frame</th>",
                psnrhvs_key_string(r->rank_key));
        for (int c = 0; c < PSNRHVS_NUM_KEYS; c++)
            if (r->s.has_key[chart_keys[c]])
                fprintf(f, "<th>%s</th>", psnrhvs_key_string(chart_keys[c]));
        fputs("</tr>\n", f);
        for (size_t w = 0; w < r->num_worst; w++) {
            const size_t idx = r->worst[w];
            fprintf(f, "<tr><td>%zu</td><td class=\"frame\">%u</td>", w + 1,
                    r->s.frames[idx].frame_num);
            for (int c = 0; c < PSNRHVS_NUM_KEYS; c++)
                if (r->s.has_key[chart_keys[c]]) cell(f, r->y[chart_keys[c]][idx]);
            fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    fputs("</div>\n", f);
}

int report_write(FILE *const f, const void *const cookie) {
    const Report *const rep = cookie;
    write_head(f, rep);
    if (rep->ns) write_search_section(f, rep);
    if (rep->nc) write_rd_section(f, rep);
    if (!rep->n) {
        fputs("</body>\n</html>\n", f);
        return ferror(f) ? -1 : 0;
    }
    if (rep->nc || rep->ns) fputs("<h2>Per frame</h2>\n", f);
    write_legend(f, rep);

    write_chart(f, rep, chart_keys[0], 1);
    fputs("<div class=\"row\">\n", f);
    for (int c = 1; c < PSNRHVS_NUM_KEYS; c++)
        if (any_has(rep, chart_keys[c])) write_chart(f, rep, chart_keys[c], 0);
    fputs("</div>\n", f);

    write_notes(f, rep);
    write_pooled_table(f, rep);
    write_percentile_table(f, rep);
    write_worst_tables(f, rep);
    fputs("</body>\n</html>\n", f);
    return ferror(f) ? -1 : 0;
}
