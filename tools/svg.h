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
} SvgSeries;

typedef struct SvgChart {
    int width, height;       ///< the viewBox
    const char *title;       ///< drawn above the plot, or NULL
    const char *x_label;     ///< "frame"
    const char *y_label;     ///< "dB"
    const SvgSeries *series; ///< drawn in order, the last on top
    int num_series;
    int standalone; ///< a file of its own: XML declaration, xmlns, width/height, white background
    int legend;     ///< a legend inside the chart
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

/** Text with &, <, >, " and ' escaped (and control bytes dropped) for XML and HTML. */
void xml_text(FILE *f, const char *s);

/** Ten colours that stay apart (Tableau 10). */
const char *svg_color(int i);

#endif /* PSNRHVS_TOOLS_SVG_H */
