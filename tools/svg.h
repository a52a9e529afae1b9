/*
 * psnrhvs: per-frame curves as SVG (for `psnrhvs report` and --plot).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_SVG_H
#define PSNRHVS_TOOLS_SVG_H

#include <stddef.h>
#include <stdio.h>

typedef struct SvgSeries {
    const char *label;     ///< legend text (standalone charts)
    const char *color;     ///< "#1f77b4"
    const char *key;       ///< data-key of the curve
    const char *rendition; ///< data-rendition of the curve
    const double *x, *y;   ///< n points; y may be +inf (drawn in the +inf band) or NaN (a gap)
    size_t n;
    const size_t *marks; ///< indices of points to circle, with a tooltip (worst frames)
    size_t num_marks;
    int dots; ///< a dot per point too (class "dot", data-x, data-y): for a few points
} SvgSeries;

/** A dashed line across the plot at a value (a target score), labelled. */
typedef struct SvgLine {
    double y;
    const char *color;
    const char *label; ///< "target 38 dB", above the line at its right end
    int label_left;    ///< at its left end instead (where a rising curve is under it)
} SvgLine;

typedef struct SvgChart {
    int width, height;       ///< the viewBox
    const char *title;       ///< drawn above the plot, or NULL
    const char *x_label;     ///< "frame"
    const char *y_label;     ///< "dB"
    const SvgSeries *series; ///< drawn in order, the last on top
    int num_series;
    int standalone; ///< a file of its own: XML declaration, xmlns, width/height, white background
    int legend;     ///< a legend inside the chart
    const SvgLine *lines; ///< inside the y range, drawn under the curves
    int num_lines;
} SvgChart;

/**
 * Write one chart: axes with round ticks, one <path class="curve"> per
 * series. Finite values set the y range; +inf is drawn in a band above it
 * (labelled +inf) with a triangle per pixel column. More points than twice
 * the plot's width in pixels are reduced to the first, lowest, highest and
 * last of each pixel column, so one bad frame in a million still shows.
 * @return 0, or -1 on a write error.
 */
int svg_chart(FILE *f, const SvgChart *c);

/** A rate-distortion chart's curve: points over the rate, joined in rate order. */
typedef struct SvgRateCurve {
    const char *name; ///< data-curve, and the tooltips'
    const char *color;
    const double *rate;        ///< kbit/s, > 0
    const double *y;           ///< dB; a point that is not finite is left out
    const char *const *labels; ///< each point's name in its tooltip ("crf22")
    size_t n;
    const size_t *marks; ///< indices of points to circle (class "mark")
    size_t num_marks;
} SvgRateCurve;

typedef struct SvgRateChart {
    int width, height;          ///< the viewBox; 800 wide or more: denser ticks, bigger points
    const char *id;             ///< the id of the <figure> around it
    const char *key;            ///< data-key of the chart and its points
    const char *title;          ///< drawn above the plot
    const char *y_label;        ///< "dB"
    const SvgRateCurve *curves; ///< drawn in order, the last on top
    int num_curves;
    const SvgLine *lines;
    int num_lines;
} SvgRateChart;

/**
 * Write a figure with a chart of dB over the rate on a log axis (1, 2, 5 per
 * decade, every digit or a linear step over a short range): each curve's
 * points (class "rd-point", data-rate, data-db, a tooltip) joined by a path
 * (class "rd-curve"). Nothing when no curve has a point.
 * @return 0, or -1 on a write error.
 */
int svg_rate_chart(FILE *f, const SvgRateChart *c);

/** 1, 2 or 5 times a power of ten, about span / target. */
double svg_nice_step(double span, int target);

/** One SvgLine at pixel row py across left..right. */
void svg_line(FILE *f, const SvgLine *l, double py, double left, double right);

/** Text with &, <, >, " and ' escaped (and control bytes dropped) for XML and HTML. */
void xml_text(FILE *f, const char *s);

/** Ten colours that stay apart (Tableau 10). */
const char *svg_color(int i);

#endif /* PSNRHVS_TOOLS_SVG_H */
