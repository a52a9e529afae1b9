/*
 * Bjøntegaard deltas of two rate-distortion curves (psnrhvs_bd): PCHIP of
 * log10(rate) over the metric integrated exactly, as SciPy's
 * PchipInterpolator and the JVET / AOM CTC tools, or VCEG-M33's
 * least-squares cubic; for the CLI's bdrate and report, and Python.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"

typedef struct Point {
    double rate, metric;
    const char *label;
} Point;

static int by_rate(const void *const a, const void *const b) {
    const double x = ((const Point *)a)->rate, y = ((const Point *)b)->rate;
    return x < y ? -1 : x > y;
}

/* The curve sorted by rate, checked: x = metric, y = log10(rate). */
static int curve(const PsnrHvsRdCurve *const t, const char *const key, double *const metric,
                 double *const lrate, char *const err, const size_t err_size) {
    if (t->n < PSNRHVS_BD_MIN_POINTS || t->n > PSNRHVS_BD_MAX_POINTS) {
        if (t->n > PSNRHVS_BD_MAX_POINTS) {
            snprintf(err, err_size, "%s has %zu rungs: at most %d", t->name, t->n,
                     PSNRHVS_BD_MAX_POINTS);
            return -1;
        }
        snprintf(err, err_size, "%s has %zu rung%s: a BD-rate needs at least %d", t->name, t->n,
                 t->n == 1 ? "" : "s", PSNRHVS_BD_MIN_POINTS);
        return -1;
    }
    Point *const pt = malloc(t->n * sizeof(*pt));
    if (!pt) return snprintf(err, err_size, "out of memory"), -1;
    char(*const names)[32] = t->label ? NULL : malloc(t->n * sizeof(*names));
    if (!t->label && !names) return free(pt), snprintf(err, err_size, "out of memory"), -1;
    for (size_t i = 0; i < t->n; i++) {
        if (names) snprintf(names[i], sizeof(names[i]), "point %zu", i + 1);
        pt[i] = (Point){t->rate[i], t->metric[i], names ? names[i] : t->label[i]};
    }
    qsort(pt, t->n, sizeof(*pt), by_rate);
    int res = 0;
    for (size_t i = 0; i < t->n && !res; i++) {
        if (!isfinite(pt[i].metric)) {
            snprintf(err, err_size,
                     "%s: %s of rung %s is %s (identical frames): no curve through it; leave the "
                     "rung out",
                     t->name, key, pt[i].label, pt[i].metric > 0 ? "+inf" : "-inf");
            res = -1;
        } else if (i && pt[i].rate == pt[i - 1].rate) {
            snprintf(err, err_size, "%s: rungs %s and %s have the same bitrate, %.17g kbit/s",
                     t->name, pt[i - 1].label, pt[i].label, pt[i].rate);
            res = -1;
        } else if (i && !(pt[i].metric > pt[i - 1].metric)) {
            snprintf(err, err_size,
                     "%s: the %s curve is not monotonic: %.6f dB at %.6g kbit/s (%s), %.6f dB at "
                     "%.6g kbit/s (%s); the metric must rise with the rate",
                     t->name, key, pt[i - 1].metric, pt[i - 1].rate, pt[i - 1].label, pt[i].metric,
                     pt[i].rate, pt[i].label);
            res = -1;
        }
        metric[i] = pt[i].metric;
        lrate[i] = log10(pt[i].rate);
    }
    free(pt);
    free(names);
    return res;
}

static double sign(const double v) {
    return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
}

/* SciPy's PchipInterpolator._edge_case: a one-sided three-point slope, kept in shape. */
static double edge_slope(const double h0, const double h1, const double m0, const double m1) {
    const double d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
    if (sign(d) != sign(m0)) return 0.0;
    if (sign(m0) != sign(m1) && fabs(d) > 3.0 * fabs(m0)) return 3.0 * m0;
    return d;
}

/* The slopes at the knots (SciPy's _find_derivatives): a weighted harmonic
 * mean of the secants inside, zero where they change sign. */
static void pchip_slopes(const double *const x, const double *const y, const size_t n,
                         double *const d) {
    double h[PSNRHVS_BD_MAX_POINTS], m[PSNRHVS_BD_MAX_POINTS];
    for (size_t i = 0; i + 1 < n; i++) h[i] = x[i + 1] - x[i], m[i] = (y[i + 1] - y[i]) / h[i];
    if (n == 2) {
        d[0] = d[1] = m[0];
        return;
    }
    for (size_t k = 1; k + 1 < n; k++) {
        if (sign(m[k]) != sign(m[k - 1]) || m[k] == 0 || m[k - 1] == 0) {
            d[k] = 0.0;
            continue;
        }
        const double w1 = 2 * h[k] + h[k - 1], w2 = h[k] + 2 * h[k - 1];
        const double whmean = (w1 / m[k - 1] + w2 / m[k]) / (w1 + w2);
        d[k] = 1.0 / whmean;
    }
    d[0] = edge_slope(h[0], h[1], m[0], m[1]);
    d[n - 1] = edge_slope(h[n - 2], h[n - 3], m[n - 2], m[n - 3]);
}

/* The integral of the PCHIP interpolant of (x, y) over [lo, hi], each cubic
 * piece c0 u^3 + c1 u^2 + c2 u + c3 (u = t - x[i], as SciPy's PPoly) exactly. */
static double pchip_integral(const double *const x, const double *const y, const size_t n,
                             const double lo, const double hi) {
    double d[PSNRHVS_BD_MAX_POINTS];
    pchip_slopes(x, y, n, d);
    double sum = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        const double a = lo > x[i] ? lo : x[i], b = hi < x[i + 1] ? hi : x[i + 1];
        if (!(b > a)) continue;
        const double dx = x[i + 1] - x[i], slope = (y[i + 1] - y[i]) / dx;
        const double t = (d[i] + d[i + 1] - 2 * slope) / dx;
        const double c0 = t / dx, c1 = (slope - d[i]) / dx - t, c2 = d[i], c3 = y[i];
        const double ua = a - x[i], ub = b - x[i];
#define ANTI(u) ((((c0 / 4 * (u) + c1 / 3) * (u) + c2 / 2) * (u) + c3) * (u))
        sum += ANTI(ub) - ANTI(ua);
#undef ANTI
    }
    return sum;
}

/* The integral over [lo, hi] of the least-squares cubic through (x, y): fit
 * in t = (x - mid) / half (well conditioned), solved by Householder QR. */
static double cubic_integral(const double *const x, const double *const y, const size_t n,
                             const double lo, const double hi) {
    const double mid = (x[0] + x[n - 1]) / 2, half = (x[n - 1] - x[0]) / 2;
    double a[PSNRHVS_BD_MAX_POINTS][4], b[PSNRHVS_BD_MAX_POINTS], v[PSNRHVS_BD_MAX_POINTS];
    for (size_t i = 0; i < n; i++) {
        const double t = (x[i] - mid) / half;
        a[i][0] = 1, a[i][1] = t, a[i][2] = t * t, a[i][3] = t * t * t;
        b[i] = y[i];
    }
    for (int j = 0; j < 4; j++) {
        double norm = 0;
        for (size_t i = (size_t)j; i < n; i++) norm += a[i][j] * a[i][j];
        norm = sqrt(norm);
        const double alpha = a[j][j] > 0 ? -norm : norm;
        for (size_t i = 0; i < n; i++) v[i] = i < (size_t)j ? 0 : a[i][j];
        v[j] -= alpha;
        double vv = 0;
        for (size_t i = (size_t)j; i < n; i++) vv += v[i] * v[i];
        if (vv == 0) continue;
        for (int c = j; c < 4; c++) {
            double s = 0;
            for (size_t i = (size_t)j; i < n; i++) s += v[i] * a[i][c];
            s = 2 * s / vv;
            for (size_t i = (size_t)j; i < n; i++) a[i][c] -= s * v[i];
        }
        double s = 0;
        for (size_t i = (size_t)j; i < n; i++) s += v[i] * b[i];
        s = 2 * s / vv;
        for (size_t i = (size_t)j; i < n; i++) b[i] -= s * v[i];
    }
    double c[4];
    for (int j = 3; j >= 0; j--) {
        double s = b[j];
        for (int k = j + 1; k < 4; k++) s -= a[j][k] * c[k];
        c[j] = s / a[j][j];
    }
    const double ta = (lo - mid) / half, tb = (hi - mid) / half;
#define ANTI(u) ((((c[3] / 4 * (u) + c[2] / 3) * (u) + c[1] / 2) * (u) + c[0]) * (u))
    return half * (ANTI(tb) - ANTI(ta));
#undef ANTI
}

static double integral(const enum PsnrHvsBdMethod m, const double *const x, const double *const y,
                       const size_t n, const double lo, const double hi) {
    return m == PSNRHVS_BD_CUBIC ? cubic_integral(x, y, n, lo, hi)
                                 : pchip_integral(x, y, n, lo, hi);
}

/* The deltas, or -1 with the reason in err. */
static int compute(const enum PsnrHvsBdMethod m, const PsnrHvsRdCurve *const anchor,
                   const PsnrHvsRdCurve *const test, const char *const key, PsnrHvsBd *const r,
                   char *const err, const size_t err_size) {
    const size_t na = anchor->n, nt = test->n;
    double ma[PSNRHVS_BD_MAX_POINTS], ra[PSNRHVS_BD_MAX_POINTS], mt[PSNRHVS_BD_MAX_POINTS],
        rt[PSNRHVS_BD_MAX_POINTS];
    if (curve(anchor, key, ma, ra, err, err_size) < 0 ||
        curve(test, key, mt, rt, err, err_size) < 0)
        return -1;
    /* The metric range both cover (BD-rate), the log-rate range both cover (BD-metric). */
    const double lo = ma[0] > mt[0] ? ma[0] : mt[0];
    const double hi = ma[na - 1] < mt[nt - 1] ? ma[na - 1] : mt[nt - 1];
    if (!(hi > lo)) {
        snprintf(err, err_size,
                 "the %s curves do not overlap: %s covers %.6f..%.6f dB, %s %.6f..%.6f dB", key,
                 anchor->name, ma[0], ma[na - 1], test->name, mt[0], mt[nt - 1]);
        return -1;
    }
    const double rlo = ra[0] > rt[0] ? ra[0] : rt[0];
    const double rhi = ra[na - 1] < rt[nt - 1] ? ra[na - 1] : rt[nt - 1];
    if (!(rhi > rlo)) {
        snprintf(err, err_size,
                 "the %s curves do not overlap in rate: %s covers %.6g..%.6g kbit/s, %s "
                 "%.6g..%.6g kbit/s",
                 key, anchor->name, pow(10, ra[0]), pow(10, ra[na - 1]), test->name, pow(10, rt[0]),
                 pow(10, rt[nt - 1]));
        return -1;
    }
    const double ia = integral(m, ma, ra, na, lo, hi), it = integral(m, mt, rt, nt, lo, hi);
    r->rate = (pow(10.0, (it - ia) / (hi - lo)) - 1) * 100;
    const double ja = integral(m, ra, ma, na, rlo, rhi), jt = integral(m, rt, mt, nt, rlo, rhi);
    r->metric = (jt - ja) / (rhi - rlo);
    r->lo = lo, r->hi = hi;
    /* the rates as given, not 10^log10(rate) */
    r->rate_lo = r->rate_hi = 0;
    double amin = INFINITY, amax = 0, tmin = INFINITY, tmax = 0;
    for (size_t i = 0; i < na; i++)
        amin = fmin(amin, anchor->rate[i]), amax = fmax(amax, anchor->rate[i]);
    for (size_t i = 0; i < nt; i++)
        tmin = fmin(tmin, test->rate[i]), tmax = fmax(tmax, test->rate[i]);
    r->rate_lo = fmax(amin, tmin), r->rate_hi = fmin(amax, tmax);
    return 0;
}

int psnrhvs_bd(const enum PsnrHvsBdMethod m, const PsnrHvsRdCurve *const anchor,
               const PsnrHvsRdCurve *const test, const char *const key, PsnrHvsBd *const out,
               PsnrHvsFileStatus *const st) {
    if (!anchor || !test || !out || !st || (unsigned)m > PSNRHVS_BD_CUBIC || !anchor->rate ||
        !anchor->metric || !test->rate || !test->metric)
        return PSNRHVS_ERR(EINVAL);
    memset(st, 0, sizeof(*st));
    if (compute(m, anchor, test, key ? key : "psnr_hvs", out, st->message, sizeof(st->message)) <
        0) {
        st->error = PSNRHVS_FILE_ERROR_MALFORMED;
        return PSNRHVS_ERR(EINVAL);
    }
    return 0;
}

const char *psnrhvs_bd_method_string(const enum PsnrHvsBdMethod m) {
    return m == PSNRHVS_BD_PCHIP ? "pchip" : m == PSNRHVS_BD_CUBIC ? "cubic" : NULL;
}
