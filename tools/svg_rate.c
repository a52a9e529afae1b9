/*
 * psnrhvs: rate-distortion charts as SVG: dB over the rate on a log axis
 * (the report's rate tables and target searches).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>

#include "svg.h"

typedef struct RdFrame {
    double lx0, lx1, y0, y1;         ///< log10(kbit/s) and dB ranges
    double left, right, top, bottom; ///< the plot area
} RdFrame;

static double rd_x(const RdFrame *const fr, const double rate) {
    return fr->left + (log10(rate) - fr->lx0) / (fr->lx1 - fr->lx0) * (fr->right - fr->left);
}

static double rd_y(const RdFrame *const fr, const double y) {
    return fr->bottom - (y - fr->y0) / (fr->y1 - fr->y0) * (fr->bottom - fr->top);
}

typedef struct Rung {
    double rate, db;
    size_t idx;
} Rung;

static int rung_by_rate(const void *const a, const void *const b) {
    const double x = ((const Rung *)a)->rate, y = ((const Rung *)b)->rate;
    return x < y ? -1 : x > y;
}

static void write_rd_tick(FILE *const f, const RdFrame *const fr, const double rate) {
    const double px = rd_x(fr, rate);
    fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", px, px,
            fr->top, fr->bottom);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", px,
            fr->bottom + 16, rate);
}

/* The ranges of every point and line. @return 0, or -1 without a point */
static int rd_frame(RdFrame *const fr, const SvgRateChart *const c) {
    *fr = (RdFrame){.lx0 = INFINITY, .lx1 = -INFINITY, .y0 = INFINITY, .y1 = -INFINITY};
    for (int i = 0; i < c->num_curves; i++) {
        const SvgRateCurve *const cu = &c->curves[i];
        for (size_t j = 0; j < cu->n; j++) {
            fr->lx0 = fmin(fr->lx0, log10(cu->rate[j])),
            fr->lx1 = fmax(fr->lx1, log10(cu->rate[j]));
            if (isfinite(cu->y[j]))
                fr->y0 = fmin(fr->y0, cu->y[j]), fr->y1 = fmax(fr->y1, cu->y[j]);
        }
    }
    if (!isfinite(fr->lx0)) return -1;
    for (int i = 0; i < c->num_lines; i++)
        fr->y0 = fmin(fr->y0, c->lines[i].y), fr->y1 = fmax(fr->y1, c->lines[i].y);
    if (!isfinite(fr->y0)) fr->y0 = 0, fr->y1 = 50;
    if (fr->lx1 - fr->lx0 < 0.1) fr->lx0 -= 0.05, fr->lx1 += 0.05;
    const double pad = (fr->lx1 - fr->lx0) * 0.04;
    fr->lx0 -= pad, fr->lx1 += pad;
    if (fr->y1 - fr->y0 < 1e-9) fr->y0 -= 1, fr->y1 += 1;
    return 0;
}

/* Grid, tick labels, axes and their names. */
static void rd_axes(FILE *const f, const SvgRateChart *const c, const RdFrame *const fr,
                    const double ystep, const int big) {
    fprintf(f, "<g class=\"ticks\" fill=\"#555\">\n");
    const int ydec = ystep >= 1 ? 0 : (int)-floor(log10(ystep) + 1e-9);
    for (double y = fr->y0; y <= fr->y1 + ystep * 1e-6; y += ystep) {
        const double py = rd_y(fr, y);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                fr->left, fr->right, py, py);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n", fr->left - 6,
                py + 4, ydec, fabs(y) < ystep * 1e-6 ? 0.0 : y);
    }
    /* rate ticks: 1, 2, 5 (or every digit, or a linear step over a short range) per decade */
    const double span = fr->lx1 - fr->lx0;
    const double lo = pow(10.0, fr->lx0), hi = pow(10.0, fr->lx1);
    if (span < 0.35) {
        const double step = svg_nice_step(hi - lo, big ? 8 : 4);
        for (double r = ceil(lo / step) * step; r <= hi; r += step) write_rd_tick(f, fr, r);
    } else {
        static const double all[] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, some[] = {1, 2, 5}, one[] = {1};
        const double *const m = span > (big ? 3.5 : 1.8)   ? one
                                : span > (big ? 1.2 : 0.7) ? some
                                                           : all;
        const int nm = m == one ? 1 : m == some ? 3 : 9;
        for (double dec = pow(10.0, floor(fr->lx0)); dec <= hi; dec *= 10)
            for (int i = 0; i < nm; i++)
                if (m[i] * dec >= lo && m[i] * dec <= hi) write_rd_tick(f, fr, m[i] * dec);
    }
    fprintf(f, "</g>\n<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\"/>\n", fr->left, fr->top,
            fr->bottom, fr->right);
    fprintf(f,
            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">kbit/s (log "
            "scale)</text>\n",
            (fr->left + fr->right) * 0.5, c->height - 6);
    fputs("<text transform=\"translate(14 ", f);
    fprintf(f, "%.1f) rotate(-90)\" text-anchor=\"middle\" fill=\"#333\">",
            (fr->top + fr->bottom) * 0.5);
    xml_text(f, c->y_label ? c->y_label : "dB");
    fputs("</text>\n", f);
}

/* One curve: its path in rate order, a point per rung, its marks. */
static void rd_curve(FILE *const f, const SvgRateChart *const c, const RdFrame *const fr,
                     const SvgRateCurve *const cu, const int big) {
    Rung *const pts = malloc((cu->n ? cu->n : 1) * sizeof(*pts));
    if (!pts) return;
    size_t n = 0;
    for (size_t j = 0; j < cu->n; j++)
        if (isfinite(cu->y[j])) pts[n++] = (Rung){cu->rate[j], cu->y[j], j};
    qsort(pts, n, sizeof(*pts), rung_by_rate);
    fprintf(f, "<path class=\"rd-curve\" data-key=\"%s\" data-curve=\"", c->key);
    xml_text(f, cu->name);
    fprintf(f, "\" stroke=\"%s\" d=\"", cu->color);
    for (size_t j = 0; j < n; j++)
        fprintf(f, "%s%.1f %.1f", j ? " L" : "M", rd_x(fr, pts[j].rate), rd_y(fr, pts[j].db));
    fputs("\"/>\n", f);
    for (size_t j = 0; j < n; j++) {
        const double px = rd_x(fr, pts[j].rate), py = rd_y(fr, pts[j].db);
        for (size_t m = 0; m < cu->num_marks; m++)
            if (cu->marks[m] == pts[j].idx)
                fprintf(f,
                        "<circle class=\"mark\" data-rate=\"%.17g\" cx=\"%.1f\" cy=\"%.1f\" "
                        "r=\"%.1f\" stroke=\"%s\"/>\n",
                        pts[j].rate, px, py, big ? 8.0 : 6.5, cu->color);
        fprintf(f,
                "<circle class=\"rd-point\" data-key=\"%s\" data-rate=\"%.17g\" "
                "data-db=\"%.17g\" data-curve=\"",
                c->key, pts[j].rate, pts[j].db);
        xml_text(f, cu->name);
        fprintf(f, "\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>", px, py, big ? 4 : 3,
                cu->color);
        xml_text(f, cu->name);
        fputs(", ", f);
        xml_text(f, cu->labels[pts[j].idx]);
        fprintf(f, ": %g kbit/s, %.3f dB</title></circle>\n", pts[j].rate, pts[j].db);
    }
    free(pts);
}

int svg_rate_chart(FILE *const f, const SvgRateChart *const c) {
    RdFrame fr;
    if (rd_frame(&fr, c) < 0) return 0;
    const int big = c->width >= 800;
    const double ystep = svg_nice_step(fr.y1 - fr.y0, 5);
    fr.y0 = floor(fr.y0 / ystep) * ystep;
    fr.y1 = ceil(fr.y1 / ystep) * ystep;
    fr.left = 58, fr.right = c->width - 14, fr.top = 30, fr.bottom = c->height - 40;
    fprintf(f, "<figure id=\"%s\">\n<svg class=\"chart rd\" data-key=\"%s\" ", c->id, c->key);
    fprintf(f, "viewBox=\"0 0 %d %d\" role=\"img\" font-size=\"12\">\n", c->width, c->height);
    fprintf(f, "<text x=\"%.1f\" y=\"19\" font-size=\"15\" font-weight=\"bold\">", fr.left);
    xml_text(f, c->title);
    fputs("</text>\n", f);
    rd_axes(f, c, &fr, ystep, big);
    for (int i = 0; i < c->num_lines; i++)
        svg_line(f, &c->lines[i], rd_y(&fr, c->lines[i].y), fr.left, fr.right);
    for (int i = 0; i < c->num_curves; i++) rd_curve(f, c, &fr, &c->curves[i], big);
    fprintf(f, "</svg>\n</figure>\n");
    return ferror(f) ? -1 : 0;
}
