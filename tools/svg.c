/*
 * psnrhvs: per-frame curves as SVG. No script and no external reference:
 * the same markup works inline in report.html and as a file of its own.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

const char *svg_color(const int i) {
    static const char *const colors[] = {
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    };
    return colors[(i < 0 ? -i : i) % 10];
}

void xml_text(FILE *const f, const char *const s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            /* XML 1.0 has no control characters but tab and newlines */
            if (*p >= 0x20 || *p == '\t' || *p == '\n') fputc(*p, f);
        }
    }
}

double svg_nice_step(const double span, const int target) {
    const double raw = span / target;
    const double mag = pow(10.0, floor(log10(raw)));
    const double norm = raw / mag;
    return (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
}

void svg_line(FILE *const f, const SvgLine *const l, const double py, const double left,
              const double right) {
    fprintf(f,
            "<line class=\"target\" data-y=\"%.17g\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
            "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\"/>\n",
            l->y, left, right, py, py, l->color);
    if (!l->label) return;
    fprintf(f,
            "<text class=\"target-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
            "fill=\"%s\">",
            l->label_left ? left + 4 : right - 4, py - 4, l->label_left ? "start" : "end",
            l->color);
    xml_text(f, l->label);
    fputs("</text>\n", f);
}

static int step_decimals(const double step) {
    const int d = (int)-floor(log10(step) + 1e-9);
    return d < 0 ? 0 : d > 6 ? 6 : d;
}

typedef struct Frame {
    double x0, x1, y0, y1;           ///< data ranges
    double left, right, top, bottom; ///< the plot area
    double band; ///< height of the +inf band and the gap below it (0 without one)
} Frame;

static double map_x(const Frame *const fr, const double x) {
    return fr->left + (x - fr->x0) / (fr->x1 - fr->x0) * (fr->right - fr->left);
}

/* NaN stays NaN (a gap); infinities go to the band or the bottom edge */
static double map_y(const Frame *const fr, const double y) {
    if (isnan(y)) return y;
    if (isinf(y)) return y > 0 ? fr->top + 9 : fr->bottom;
    const double finite_top = fr->top + fr->band;
    return fr->bottom - (y - fr->y0) / (fr->y1 - fr->y0) * (fr->bottom - finite_top);
}

typedef struct PathOut {
    FILE *f;
    int started;   ///< a subpath was written
    size_t in_sub; ///< points in the current subpath
    double last_x, last_y;
} PathOut;

static void path_point(PathOut *const po, const double x, const double y) {
    if (po->in_sub && x == po->last_x && y == po->last_y) return;
    fprintf(po->f, "%s%.1f %.1f", po->in_sub ? " L" : po->started ? " M" : "M", x, y);
    po->started = 1;
    po->in_sub++;
    po->last_x = x;
    po->last_y = y;
}

static void path_break(PathOut *const po) {
    /* a lone point: a dot, through the round line cap */
    if (po->in_sub == 1) fprintf(po->f, " h0.5");
    po->in_sub = 0;
}

/* "720p, frame 12: 38.123 dB" (x_label "frame") */
static void point_title(FILE *const f, const SvgSeries *const s, const char *const x_label,
                        const size_t i) {
    xml_text(f, s->rendition ? s->rendition : "");
    fputs(", ", f);
    xml_text(f, x_label ? x_label : "x");
    if (s->x[i] == floor(s->x[i]) && fabs(s->x[i]) < 1e15)
        fprintf(f, " %.0f", s->x[i]);
    else
        fprintf(f, " %g", s->x[i]);
    fprintf(f, ": %.3f dB</title></circle>\n", s->y[i]);
}

static void write_curve(FILE *const f, const Frame *const fr, const SvgSeries *const s,
                        const char *const x_label) {
    fprintf(f, "<path class=\"curve\" data-key=\"");
    xml_text(f, s->key ? s->key : "");
    fprintf(f, "\" data-rendition=\"");
    xml_text(f, s->rendition ? s->rendition : "");
    fprintf(f, "\" stroke=\"%s\" d=\"", s->color);
    PathOut po = {.f = f};
    const int columns = (int)(fr->right - fr->left);
    if (s->n <= (size_t)columns * 2) {
        for (size_t i = 0; i < s->n; i++) {
            const double py = map_y(fr, s->y[i]);
            if (isnan(py)) {
                path_break(&po);
                continue;
            }
            path_point(&po, map_x(fr, s->x[i]), py);
        }
    } else {
        /* M4: the first, lowest, highest and last point of each pixel column, in order */
        size_t i = 0;
        while (i < s->n) {
            const double py = map_y(fr, s->y[i]);
            if (isnan(py)) {
                path_break(&po);
                i++;
                continue;
            }
            const long col = lround(floor(map_x(fr, s->x[i]) - fr->left));
            size_t first = i, last = i, lo = i, hi = i;
            double lo_y = py, hi_y = py; /* pixel y: lo is the top of the screen */
            size_t j = i + 1;
            for (; j < s->n; j++) {
                const double qy = map_y(fr, s->y[j]);
                if (isnan(qy) || lround(floor(map_x(fr, s->x[j]) - fr->left)) != col) break;
                if (qy < lo_y) lo_y = qy, lo = j;
                if (qy > hi_y) hi_y = qy, hi = j;
                last = j;
            }
            size_t idx[4] = {first, lo < hi ? lo : hi, lo < hi ? hi : lo, last};
            for (int k = 0; k < 4; k++)
                if (k == 0 || idx[k] != idx[k - 1])
                    path_point(&po, map_x(fr, s->x[idx[k]]), map_y(fr, s->y[idx[k]]));
            i = j;
        }
    }
    path_break(&po);
    fprintf(f, "\"/>\n");

    /* +inf: a triangle pointing up in the band, one per pixel column */
    long last_col = -1;
    int any = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!(isinf(s->y[i]) && s->y[i] > 0)) continue;
        const double px = map_x(fr, s->x[i]);
        const long col = lround(floor(px));
        if (any && col == last_col) continue;
        if (!any) fprintf(f, "<path class=\"inf\" fill=\"%s\" d=\"", s->color);
        fprintf(f, "%sM%.1f %.1fl4 7h-8z", any ? " " : "", px, fr->top + 1.0);
        any = 1;
        last_col = col;
    }
    if (any) fprintf(f, "\"><title>+inf: identical to the reference</title></path>\n");

    for (size_t i = 0; s->dots && i < s->n; i++) {
        if (!isfinite(s->y[i])) continue;
        fprintf(f, "<circle class=\"dot\" data-x=\"%.17g\" data-y=\"%.17g\" data-rendition=\"",
                s->x[i], s->y[i]);
        xml_text(f, s->rendition ? s->rendition : "");
        fprintf(f, "\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", map_x(fr, s->x[i]),
                map_y(fr, s->y[i]), s->color);
        point_title(f, s, x_label, i);
    }
    for (size_t m = 0; m < s->num_marks; m++) {
        const size_t i = s->marks[m];
        if (i >= s->n || !isfinite(s->y[i])) continue;
        fprintf(f, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" stroke=\"%s\"><title>",
                map_x(fr, s->x[i]), map_y(fr, s->y[i]), s->dots ? "7" : "4.5", s->color);
        point_title(f, s, x_label, i);
    }
}

/* The ranges of the points and lines, rounded to the ticks, and the plot area. */
static Frame chart_frame(const SvgChart *const c, double *const ystep, double *const xstep) {
    Frame fr = {0};
    int have_x = 0, have_y = 0, have_inf = 0, dots = 0;
    for (int s = 0; s < c->num_series; s++) {
        const SvgSeries *const se = &c->series[s];
        dots |= se->dots;
        for (size_t i = 0; i < se->n; i++) {
            const double x = se->x[i], y = se->y[i];
            if (!have_x || x < fr.x0) fr.x0 = x;
            if (!have_x || x > fr.x1) fr.x1 = x;
            have_x = 1;
            if (isinf(y) && y > 0) have_inf = 1;
            if (!isfinite(y)) continue;
            if (!have_y || y < fr.y0) fr.y0 = y;
            if (!have_y || y > fr.y1) fr.y1 = y;
            have_y = 1;
        }
    }
    for (int i = 0; i < c->num_lines; i++) {
        const double y = c->lines[i].y;
        if (!have_y || y < fr.y0) fr.y0 = y;
        if (!have_y || y > fr.y1) fr.y1 = y;
        have_y = 1;
    }
    if (!have_x) fr.x0 = 0, fr.x1 = 1;
    if (fr.x1 == fr.x0) fr.x0 -= 1, fr.x1 += 1;
    /* dots whole, not cut in half by the edges */
    const double pad = dots ? (fr.x1 - fr.x0) * 0.04 : 0;
    fr.x0 -= pad, fr.x1 += pad;
    if (!have_y) fr.y0 = 0, fr.y1 = 50;
    if (fr.y1 - fr.y0 < 1e-9) fr.y0 -= 1, fr.y1 += 1;
    *ystep = svg_nice_step(fr.y1 - fr.y0, 5);
    fr.y0 = floor(fr.y0 / *ystep) * *ystep;
    fr.y1 = ceil(fr.y1 / *ystep) * *ystep;
    *xstep = svg_nice_step(fr.x1 - fr.x0, c->width >= 800 ? 10 : 5);
    if (*xstep < 1) *xstep = 1;

    const int title = c->title && *c->title;
    fr.left = 58;
    fr.right = c->width - 14;
    fr.top = (title ? 30 : 10) + (c->legend ? 22 : 0);
    fr.bottom = c->height - 38;
    fr.band = have_inf ? 26 : 0; /* 18 for the band, 8 apart from the top tick */
    return fr;
}

int svg_chart(FILE *const f, const SvgChart *const c) {
    double ystep, xstep;
    Frame fr = chart_frame(c, &ystep, &xstep);
    const int title = c->title && *c->title, have_inf = fr.band > 0;

    if (c->standalone) {
        fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        fprintf(f,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
                c->width, c->height, c->width, c->height);
        fprintf(f, "<style>.curve{fill:none;stroke-width:1.6;stroke-linejoin:round;"
                   "stroke-linecap:round}.mark{fill:none;stroke-width:1.5}"
                   ".grid{stroke:#e3e3e3}.axis{stroke:#888;fill:none}</style>\n");
        fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
    } else {
        fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" font-size=\"12\">\n",
                c->width, c->height);
    }
    if (title) {
        fprintf(f, "<text x=\"%.1f\" y=\"19\" font-size=\"15\" font-weight=\"bold\">", fr.left);
        xml_text(f, c->title);
        fprintf(f, "</text>\n");
    }

    /* grid and tick labels */
    fprintf(f, "<g class=\"ticks\" fill=\"#555\">\n");
    const int ydec = step_decimals(ystep);
    for (double y = fr.y0; y <= fr.y1 + ystep * 1e-6; y += ystep) {
        const double py = map_y(&fr, y);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                fr.left, fr.right, py, py);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n", fr.left - 6,
                py + 4, ydec, fabs(y) < ystep * 1e-6 ? 0.0 : y);
    }
    for (double x = ceil(fr.x0 / xstep) * xstep; x <= fr.x1 + 1e-9; x += xstep) {
        const double px = map_x(&fr, x);
        fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", px, px,
                fr.top, fr.bottom);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", px,
                fr.bottom + 16, fabs(x) < xstep * 1e-6 ? 0.0 : x);
    }
    if (have_inf) {
        fprintf(f,
                "<rect class=\"infband\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"#f4f4f4\"/>",
                fr.left, fr.top, fr.right - fr.left, 18.0);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">+inf</text>\n", fr.left - 6,
                fr.top + 13);
        fprintf(f,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\" "
                "fill=\"#888\">identical frames (+inf), clipped</text>\n",
                fr.right - 4, fr.top + 13);
    }
    fprintf(f, "</g>\n");
    fprintf(f, "<path class=\"axis\" d=\"M%.1f %.1fV%.1fH%.1f\"/>\n", fr.left, fr.top, fr.bottom,
            fr.right);
    if (c->x_label)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">%s</text>\n",
                (fr.left + fr.right) * 0.5, c->height - 6, c->x_label);
    if (c->y_label)
        fprintf(f,
                "<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\" "
                "fill=\"#333\">%s</text>\n",
                (fr.top + fr.bottom) * 0.5, c->y_label);

    for (int i = 0; i < c->num_lines; i++)
        svg_line(f, &c->lines[i], map_y(&fr, c->lines[i].y), fr.left, fr.right);
    for (int s = 0; s < c->num_series; s++) write_curve(f, &fr, &c->series[s], c->x_label);

    if (c->legend && c->num_series) {
        /* a row under the title, the curve drawn on top first */
        double x = fr.left;
        const double y = title ? 30 : 8;
        fprintf(f, "<g class=\"legend\">\n");
        for (int s = c->num_series - 1; s >= 0; s--) {
            const char *const label = c->series[s].label ? c->series[s].label : "";
            fprintf(f,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"10\" fill=\"%s\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\">",
                    x, y + 1, c->series[s].color, x + 24, y + 10);
            xml_text(f, label);
            fprintf(f, "</text>\n");
            x += 24 + 7.0 * (double)strlen(label) + 22;
        }
        fprintf(f, "</g>\n");
    }
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}
