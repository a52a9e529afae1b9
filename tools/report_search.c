/*
 * psnrhvs: `psnrhvs target` searches in `psnrhvs report`: their JSON read
 * back, and the section drawn from it (score over setting, score over rate,
 * the probes' table) with the report's charts (tools/svg.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_tree.h"
#include "report_html.h"
#include "svg.h"

static int contains(const char *const buf, const size_t len, const char *const word) {
    const size_t n = strlen(word);
    for (const char *p = buf; (p = memchr(p, word[0], len - (size_t)(p - buf)));) {
        if ((size_t)(buf + len - p) < n) return 0;
        if (!memcmp(p, word, n)) return 1;
        p++;
    }
    return 0;
}

int search_detect(const char *const buf, const size_t len) {
    size_t i = len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r')) i++;
    return i < len && buf[i] == '{' &&
           (contains(buf, len, "\"parameter\"") || contains(buf, len, "\"probes\""));
}

/* A string member's copy, or NULL with the reason in err */
static char *member_string(const JsonValue *const root, const char *const key, char *const err,
                           const size_t err_size) {
    const JsonValue *const v = json_get(root, key);
    if (!v || v->type != JSON_STRING || !*v->string) {
        snprintf(err, err_size, "target search: \"%s\" is %s", key,
                 v ? "not a non-empty string" : "missing");
        return NULL;
    }
    char *const s = strdup(v->string);
    if (!s) snprintf(err, err_size, "out of memory");
    return s;
}

static int number_at(const JsonValue *const obj, const char *const key, double *const out) {
    const JsonValue *const v = json_get(obj, key);
    if (!v || v->type != JSON_NUMBER) return -1;
    *out = v->number;
    return 0;
}

/* The probes array into s->probe. @return 0 or -1 (said in err) */
static int read_probes(Search *const s, const JsonValue *const root, char *const err,
                       const size_t err_size) {
    const JsonValue *const probes = json_get(root, "probes");
    if (!probes || probes->type != JSON_ARRAY || !probes->n) {
        snprintf(err, err_size, "target search: \"probes\" is %s",
                 !probes                      ? "missing"
                 : probes->type != JSON_ARRAY ? "not an array"
                                              : "empty");
        return -1;
    }
    if (!(s->probe = calloc(probes->n, sizeof(*s->probe)))) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < probes->n; i++) {
        const JsonValue *const p = &probes->items[i];
        const JsonValue *const score = json_get(p, "score");
        SearchProbe *const q = &s->probe[i];
        double bytes;
        const char *bad = p->type != JSON_OBJECT ? "not an object"
                          : number_at(p, "setting", &q->setting) < 0
                              ? "\"setting\" is missing or not a number"
                          : !score || (score->type != JSON_NUMBER && score->type != JSON_NULL)
                              ? "\"score\" is missing or neither a number nor null"
                          : number_at(p, "kbps", &q->kbps) < 0 || !(q->kbps > 0)
                              ? "\"kbps\" is missing or not a positive number"
                          : number_at(p, "bytes", &bytes) < 0 || !(bytes >= 0) || bytes > 1e18 ||
                                  bytes != floor(bytes)
                              ? "\"bytes\" is missing or not a whole number"
                              : NULL;
        if (bad) {
            snprintf(err, err_size, "target search: probe %zu: %s", i + 1, bad);
            return -1;
        }
        q->score = score->type == JSON_NULL ? INFINITY : score->number;
        q->bytes = (long long)bytes;
        q->order = (int)i + 1;
    }
    s->n = probes->n;
    return 0;
}

/* "chosen": null, or a probe's setting. @return 0 or -1 (said in err) */
static int read_chosen(Search *const s, const JsonValue *const root, char *const err,
                       const size_t err_size) {
    const JsonValue *const chosen = json_get(root, "chosen");
    s->chosen = -1;
    if (!chosen || chosen->type == JSON_NULL) return 0;
    double setting;
    if (number_at(chosen, "setting", &setting) < 0) {
        snprintf(err, err_size, "target search: \"chosen\" is neither null nor a probe");
        return -1;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->probe[i].setting == setting) s->chosen = (long)i;
    if (s->chosen < 0) {
        snprintf(err, err_size, "target search: \"chosen\" (%s %g) is not among the probes",
                 s->parameter, setting);
        return -1;
    }
    return 0;
}

int search_parse(Search *const s, const char *const buf, const size_t len, char *const err,
                 const size_t err_size) {
    JsonValue root;
    char why[300];
    if (json_parse(&root, buf, len, why, sizeof(why)) < 0) {
        snprintf(err, err_size, "target search: %s", why);
        return -1;
    }
    int res = -1;
    const JsonValue *const enc = json_get(&root, "encoder");
    if (root.type != JSON_OBJECT) {
        snprintf(err, err_size, "target search: not a JSON object");
        goto end;
    }
    if (!(s->parameter = member_string(&root, "parameter", err, err_size)) ||
        !(s->key = member_string(&root, "key", err, err_size)) ||
        !(s->pool = member_string(&root, "pool", err, err_size)))
        goto end;
    if (number_at(&root, "target", &s->target) < 0 || !isfinite(s->target)) {
        snprintf(err, err_size, "target search: \"target\" is not a number");
        goto end;
    }
    if (read_probes(s, &root, err, err_size) < 0 || read_chosen(s, &root, err, err_size) < 0)
        goto end;
    if (!(s->encoder = strdup(enc && enc->type == JSON_STRING ? enc->string : ""))) {
        snprintf(err, err_size, "out of memory");
        goto end;
    }
    res = 0;
end:
    json_free(&root);
    return res;
}

void search_free(Search *const s) {
    free(s->name);
    free(s->encoder);
    free(s->parameter);
    free(s->key);
    free(s->pool);
    free(s->probe);
    memset(s, 0, sizeof(*s));
}

/* ---- the section ---- */

static int by_setting(const void *const a, const void *const b) {
    const SearchProbe *const p = a, *const q = b;
    if (p->setting != q->setting) return p->setting < q->setting ? -1 : 1;
    return p->order < q->order ? -1 : p->order > q->order;
}

/* A copy of the probes sorted by setting, or NULL (no memory). */
static SearchProbe *sorted_probes(const Search *const s) {
    SearchProbe *const p = malloc(s->n * sizeof(*p));
    if (p) memcpy(p, s->probe, s->n * sizeof(*p)), qsort(p, s->n, sizeof(*p), by_setting);
    return p;
}

/* A search's points: its probes with a finite score, by setting. */
typedef struct Points {
    double *x, *y, *rate;
    char (*text)[48]; ///< "crf 26"
    const char **labels;
    size_t n, mark;
    int has_mark;
} Points;

static int points_of(Points *const pt, const Search *const s) {
    SearchProbe *const p = sorted_probes(s);
    pt->x = malloc(s->n * sizeof(double));
    pt->y = malloc(s->n * sizeof(double));
    pt->rate = malloc(s->n * sizeof(double));
    pt->text = malloc(s->n * sizeof(*pt->text));
    pt->labels = malloc(s->n * sizeof(*pt->labels));
    if (!p || !pt->x || !pt->y || !pt->rate || !pt->text || !pt->labels) return free(p), -1;
    const int chosen = s->chosen >= 0 ? s->probe[s->chosen].order : 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!isfinite(p[i].score)) continue; /* lossless: nothing to draw */
        const size_t j = pt->n++;
        pt->x[j] = p[i].setting, pt->y[j] = p[i].score, pt->rate[j] = p[i].kbps;
        snprintf(pt->text[j], sizeof(pt->text[j]), "%s %g", s->parameter, p[i].setting);
        pt->labels[j] = pt->text[j];
        if (p[i].order == chosen) pt->mark = j, pt->has_mark = 1;
    }
    free(p);
    return 0;
}

static void points_free(Points *const pt) {
    free(pt->x), free(pt->y), free(pt->rate), free(pt->text), free(pt->labels);
}

/* What every search shares, or the general word: an axis's name. */
static const char *common_label(const Report *const rep, char *const buf, const size_t size,
                                const int y) {
    const Search *const s0 = &rep->s[0];
    for (int i = 1; i < rep->ns; i++) {
        const Search *const s = &rep->s[i];
        if (y ? strcmp(s->key, s0->key) || strcmp(s->pool, s0->pool)
              : strcmp(s->parameter, s0->parameter))
            return y ? "score (dB)" : "setting";
    }
    if (y)
        snprintf(buf, size, "%s %s (dB)", s0->key, s0->pool);
    else
        snprintf(buf, size, "%s", s0->parameter);
    return buf;
}

/* Each search's target once, in the colour of the first search that has it; its label
 * at the end where the first search's curve is under it. */
static int target_lines(const Report *const rep, const Points *const pt, SvgLine *const lines,
                        char (*const text)[64]) {
    const int left = pt[0].n && pt[0].y[0] < pt[0].y[pt[0].n - 1];
    int n = 0;
    for (int i = 0; i < rep->ns; i++) {
        int seen = 0;
        for (int j = 0; j < n; j++) seen |= lines[j].y == rep->s[i].target;
        if (seen) continue;
        snprintf(text[n], sizeof(text[n]), "target %g dB", rep->s[i].target);
        lines[n] = (SvgLine){rep->s[i].target, rep->ns == 1 ? "#555" : svg_color(i), text[n], left};
        n++;
    }
    return n;
}

static void write_search_charts(FILE *const f, const Report *const rep) {
    const size_t ns = (size_t)rep->ns;
    Points *const pt = calloc(ns, sizeof(*pt));
    SvgSeries *const series = calloc(ns, sizeof(*series));
    SvgRateCurve *const curves = calloc(ns, sizeof(*curves));
    SvgLine *const lines = calloc(2 * ns, sizeof(*lines));
    char(*const line_text)[64] = calloc(ns, sizeof(*line_text));
    int ok = pt && series && curves && lines && line_text;
    for (size_t i = 0; ok && i < ns; i++) ok = points_of(&pt[i], &rep->s[i]) == 0;
    if (ok) {
        int n = 0; /* the first search drawn last, on top */
        for (int i = rep->ns - 1; i >= 0; i--, n++) {
            const Points *const p = &pt[i];
            const char *const name = rep->s[i].name;
            series[n] = (SvgSeries){.label = name,
                                    .color = svg_color(i),
                                    .key = rep->s[i].key,
                                    .rendition = name,
                                    .x = p->x,
                                    .y = p->y,
                                    .n = p->n,
                                    .marks = &p->mark,
                                    .num_marks = (size_t)p->has_mark,
                                    .dots = 1};
            curves[n] = (SvgRateCurve){.name = name,
                                       .color = svg_color(i),
                                       .rate = p->rate,
                                       .y = p->y,
                                       .labels = p->labels,
                                       .n = p->n,
                                       .marks = &p->mark,
                                       .num_marks = (size_t)p->has_mark};
        }
        const int nl = target_lines(rep, pt, lines, line_text);
        SvgLine *const rate_lines = lines + nl; /* rising with the rate: labels on the left */
        for (int i = 0; i < nl; i++) rate_lines[i] = lines[i], rate_lines[i].label_left = 1;
        char xl[64], yl[128];
        const SvgChart by_setting_chart = {.width = 600,
                                           .height = 340,
                                           .title = "score over setting",
                                           .x_label = common_label(rep, xl, sizeof(xl), 0),
                                           .y_label = common_label(rep, yl, sizeof(yl), 1),
                                           .series = series,
                                           .num_series = n,
                                           .lines = lines,
                                           .num_lines = nl};
        const SvgRateChart by_rate_chart = {.width = 600,
                                            .height = 340,
                                            .id = "search-rate",
                                            .key = rep->s[0].key,
                                            .title = "score over bitrate",
                                            .y_label = by_setting_chart.y_label,
                                            .curves = curves,
                                            .num_curves = n,
                                            .lines = rate_lines,
                                            .num_lines = nl};
        fputs("<div class=\"row\">\n<figure id=\"search-setting\">\n", f);
        svg_chart(f, &by_setting_chart);
        fputs("</figure>\n", f);
        svg_rate_chart(f, &by_rate_chart);
        fputs("</div>\n", f);
    } else {
        fputs("<p class=\"notes\">Out of memory: no charts.</p>\n", f);
    }
    for (size_t i = 0; pt && i < ns; i++) points_free(&pt[i]);
    free(pt), free(series), free(curves), free(lines), free(line_text);
}

/* Each search's colour, what it searched and what it chose. */
static void write_search_legend(FILE *const f, const Report *const rep) {
    fputs("<div class=\"legend\">\n", f);
    for (int i = 0; i < rep->ns; i++) {
        const Search *const s = &rep->s[i];
        fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span><b>", svg_color(i));
        xml_text(f, s->name);
        fputs("</b> ", f);
        if (*s->encoder) xml_text(f, s->encoder), fputc(' ', f);
        xml_text(f, s->parameter);
        fputs(", ", f);
        xml_text(f, s->key);
        fputc(' ', f);
        xml_text(f, s->pool);
        fprintf(f, " &#8805; %g dB, %zu probe%s: ", s->target, s->n, s->n == 1 ? "" : "s");
        if (s->chosen >= 0) {
            const SearchProbe *const p = &s->probe[s->chosen];
            xml_text(f, s->parameter);
            if (isfinite(p->score))
                fprintf(f, " %g chosen (%.4f dB, %.1f kbit/s)", p->setting, p->score, p->kbps);
            else
                fprintf(f, " %g chosen (lossless, %.1f kbit/s)", p->setting, p->kbps);
        } else {
            fputs("none reached the target", f);
        }
        fputs("</span>\n", f);
    }
    fputs("</div>\n", f);
}

/* Every probe of every search, by setting; # is the order probed. */
static void write_probe_table(FILE *const f, const Report *const rep) {
    fputs("<table id=\"probes\">\n<tr><th class=\"l\">search</th><th>#</th><th "
          "class=\"l\">setting</th><th>score (dB)</th><th>kbit/s</th><th>bytes</th><th "
          "class=\"l\">chosen</th></tr>\n",
          f);
    for (int i = 0; i < rep->ns; i++) {
        const Search *const s = &rep->s[i];
        SearchProbe *const p = sorted_probes(s);
        const int chosen = s->chosen >= 0 ? s->probe[s->chosen].order : 0;
        for (size_t j = 0; p && j < s->n; j++) {
            fprintf(f, "<tr><td class=\"l\"><span class=\"sw\" style=\"background:%s\"></span>",
                    svg_color(i));
            xml_text(f, s->name);
            fprintf(f, "</td><td>%d</td><td class=\"l\">", p[j].order);
            xml_text(f, s->parameter);
            fprintf(f, " %g</td>", p[j].setting);
            if (isfinite(p[j].score))
                fprintf(f, "<td>%.4f</td>", p[j].score);
            else
                fputs("<td>lossless</td>", f);
            fprintf(f, "<td>%.1f</td><td>%lld</td><td class=\"l\">%s</td></tr>\n", p[j].kbps,
                    p[j].bytes, p[j].order == chosen ? "chosen" : "");
        }
        free(p);
    }
    fputs("</table>\n", f);
}

void write_search_section(FILE *const f, const Report *const rep) {
    fputs("<h2>Target search</h2>\n", f);
    write_search_legend(f, rep);
    write_search_charts(f, rep);
    write_probe_table(f, rep);
}
