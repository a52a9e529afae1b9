/*
 * psnrhvs: `psnrhvs bdrate ANCHOR.csv TEST.csv`: Bjøntegaard deltas.
 *
 * BD-rate: the mean difference of log10(rate) between the two curves over
 * the metric range both cover, as a percentage of rate (10^d - 1) * 100;
 * BD-metric: the mean difference of the metric over the log10(rate) range
 * both cover. pchip (the default) interpolates each curve with the
 * piecewise cubic Hermite polynomial of Fritsch and Carlson, the slopes as
 * SciPy's PchipInterpolator computes them (the JVET/AOM practice: the
 * bjontegaard package and libaom's CTC scripts call it), and integrates the
 * pieces exactly; cubic is VCEG-M33's least-squares cubic, integrated
 * exactly.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bdrate.h"
#include "csv_records.h"
#include "readfile.h"
#include "msg.h"
#include "output/output.h"

/* The library's names (psnrhvs_bd_method_string), the one list of them. */
int bd_method_from_name(const char *const name) {
    for (int m = 0; psnrhvs_bd_method_string((enum PsnrHvsBdMethod)m); m++)
        if (!strcmp(name, psnrhvs_bd_method_string((enum PsnrHvsBdMethod)m))) return m;
    return -1;
}

int bd_pool_ok(const char *const pool) {
    return !strcmp(pool, "mean") || !strcmp(pool, "harmonic_mean") || !strcmp(pool, "min") ||
           !strcmp(pool, "max");
}

/* ---- rate tables ---- */

static int col_is(const char *const field, const char *const name) {
    size_t i = 0;
    for (; field[i] && name[i]; i++) {
        const char a = field[i] == '-' ? '_' : field[i];
        if ((a | 0x20) != (name[i] | 0x20) && !(a == '_' && name[i] == '_')) return 0;
    }
    return !field[i] && !name[i];
}

int rd_table_detect(const char *const buf, const size_t len) {
    const char *const nl = memchr(buf, '\n', len);
    const char *const end = nl ? nl : buf + len;
    const char *p = buf;
    if (end - p >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) p += 3;
    while (p < end) {
        const char *q = p;
        while (q < end && *q != ',') q++;
        const char *a = p, *b = q;
        while (a < b && (*a == ' ' || *a == '"')) a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '"' || b[-1] == '\r')) b--;
        if (b - a == 7 && !strncasecmp(a, "bitrate", 7)) return 1;
        p = q + 1;
    }
    return 0;
}

void rd_table_free(RdTable *const t) {
    free(t->name);
    free(t->rate);
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) free(t->metric[k]);
    for (size_t i = 0; t->label && i < t->n; i++) free(t->label[i]);
    free(t->label);
    memset(t, 0, sizeof(*t));
}

/* A finite decimal number filling the whole cell. */
static int parse_number(const char *const s, double *const v) {
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    while (*end == ' ') end++;
    return *s && !*end && !errno;
}

/* Where a rate table's columns are: -1 for none. */
typedef struct RdColumns {
    int rate, id, status, key[PSNRHVS_NUM_KEYS];
} RdColumns;

/* The columns of the header row; a metric without its own column takes NAME_POOL's.
 * @return 0 or -1 with the reason in err */
static int rd_find_columns(RdColumns *const col, const CsvRow *const row, const char *const name,
                           const char *const pool, char *const err, const size_t err_size) {
    int pooled[PSNRHVS_NUM_KEYS];
    char pooled_name[PSNRHVS_NUM_KEYS][64];
    col->rate = col->id = col->status = -1;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
        col->key[k] = -1, pooled[k] = -1;
        snprintf(pooled_name[k], sizeof(pooled_name[k]), "%s_%s",
                 psnrhvs_key_string((enum PsnrHvsKey)k), pool ? pool : "mean");
    }
    for (int i = 0; i < row->n; i++) {
        const char *const f = row->fields[i];
        if (col_is(f, "bitrate")) col->rate = i;
        if (col_is(f, "id")) col->id = i;
        if (col_is(f, "status")) col->status = i;
        for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
            if (col_is(f, psnrhvs_key_string((enum PsnrHvsKey)k))) col->key[k] = i;
            if (col_is(f, pooled_name[k])) pooled[k] = i;
        }
    }
    if (col->rate < 0) {
        snprintf(err, err_size,
                 "%s: no bitrate column (a rate table has one row per rung: bitrate in kbit/s "
                 "and psnr_hvs, psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr columns)",
                 name);
        return -1;
    }
    int any = 0;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
        if (col->key[k] < 0) col->key[k] = pooled[k];
        any |= col->key[k] >= 0;
    }
    if (!any) {
        snprintf(err, err_size,
                 "%s: no metric column: psnr_hvs, psnr_hvs_y, psnr_hvs_cb or psnr_hvs_cr (or "
                 "their _%s, as psnrhvs batch's summary writes them)",
                 name, pool ? pool : "mean");
        return -1;
    }
    return 0;
}

/* Room for one more rung. @return 0 or -1 (no memory) */
static int rd_grow(RdTable *const t, const RdColumns *const col, size_t *const cap) {
    if (t->n < *cap) return 0;
    *cap = *cap ? 2 * *cap : 16;
    double *const r = realloc(t->rate, *cap * sizeof(double));
    char **const l = realloc(t->label, *cap * sizeof(char *));
    if (r) t->rate = r;
    if (l) t->label = l;
    int ok = r && l;
    for (int k = 0; ok && k < PSNRHVS_NUM_KEYS; k++) {
        if (col->key[k] < 0) continue;
        double *const m = realloc(t->metric[k], *cap * sizeof(double));
        if (m) t->metric[k] = m;
        ok = m != NULL;
    }
    return ok ? 0 : -1;
}

/* One row: a rung of the table. @return 0 or -1 with the reason in err */
static int rd_add_rung(RdTable *const t, const RdColumns *const col, const CsvRow *const row,
                       size_t *const cap, const char *const name, char *const err,
                       const size_t err_size) {
    char label[128];
    if (col->id >= 0 && col->id < row->n && row->fields[col->id][0])
        snprintf(label, sizeof(label), "%s", row->fields[col->id]);
    else
        snprintf(label, sizeof(label), "line %u", row->line);
    if (col->status >= 0 && col->status < row->n && strcmp(row->fields[col->status], "done") &&
        strcmp(row->fields[col->status], "skipped")) {
        snprintf(err, err_size, "%s: rung %s has status '%s': no scores to use", name, label,
                 row->fields[col->status]);
        return -1;
    }
    if (rd_grow(t, col, cap) < 0) {
        snprintf(err, err_size, "%s: out of memory", name);
        return -1;
    }
    t->label[t->n] = strdup(label);
    t->n++;
    const size_t i = t->n - 1;
    const char *const rate = col->rate < row->n ? row->fields[col->rate] : "";
    if (!parse_number(rate, &t->rate[i]) || !(t->rate[i] > 0) || isinf(t->rate[i])) {
        snprintf(err, err_size, "%s: rung %s: bitrate '%s' is not a positive number (kbit/s)", name,
                 label, rate);
        return -1;
    }
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
        if (col->key[k] < 0) continue;
        const char *const v = col->key[k] < row->n ? row->fields[col->key[k]] : "";
        /* inf: identical frames pooled (a lossless rung) */
        if (!parse_number(v, &t->metric[k][i]) || isnan(t->metric[k][i])) {
            snprintf(err, err_size, "%s: rung %s: %s '%s' is not a number", name, label,
                     psnrhvs_key_string((enum PsnrHvsKey)k), v);
            return -1;
        }
    }
    return 0;
}

int rd_table_parse(RdTable *const t, const char *const name, const char *const buf,
                   const size_t len, const char *const pool, char *const err,
                   const size_t err_size) {
    memset(t, 0, sizeof(*t));
    t->name = strdup(name);
    const char *p = buf, *const end = buf + len;
    if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) p += 3;
    unsigned line = 1;
    CsvRow row = {0};
    char why[256];
    int res = csv_next(&p, end, &line, &row, why, sizeof(why));
    RdColumns col;
    size_t cap = 0;
    int ret = -1;
    if (res < 0) {
        snprintf(err, err_size, "%s: %s", name, why);
        goto end;
    }
    if (res == 0) {
        snprintf(err, err_size, "%s: empty: a rate table needs a header and a row per rung", name);
        goto end;
    }
    if (rd_find_columns(&col, &row, name, pool, err, err_size) < 0) goto end;
    for (;;) {
        csv_row_clear(&row);
        res = csv_next(&p, end, &line, &row, why, sizeof(why));
        if (res < 0) {
            snprintf(err, err_size, "%s: %s", name, why);
            goto end;
        }
        if (!res) break;
        if (rd_add_rung(t, &col, &row, &cap, name, err, err_size) < 0) goto end;
    }
    if (!t->n) {
        snprintf(err, err_size, "%s: no rungs: a rate table needs a row per rung", name);
        goto end;
    }
    ret = 0;
end:
    csv_row_clear(&row);
    free(row.fields);
    if (ret < 0) rd_table_free(t);
    return ret;
}

int rd_table_read(RdTable *const t, const char *const path, const char *const pool, char *const err,
                  const size_t err_size) {
    memset(t, 0, sizeof(*t));
    char *buf;
    size_t len;
    if (cli_read_file(path, &buf, &len, err, err_size) < 0) return -1;
    const int res =
        rd_table_parse(t, strcmp(path, "-") ? path : "stdin", buf, len, pool, err, err_size);
    free(buf);
    return res;
}

/* ---- the curves ---- */

int bd_compute(const enum BdMethod m, const RdTable *const anchor, const RdTable *const test,
               const enum PsnrHvsKey k, BdResult *const r, char *const err, const size_t err_size) {
    const char *const key = psnrhvs_key_string(k);
    if (!anchor->metric[k] || !test->metric[k]) {
        snprintf(err, err_size, "%s has no %s column",
                 anchor->metric[k] ? test->name : anchor->name, key);
        return -1;
    }
    const PsnrHvsRdCurve a = {anchor->name, anchor->n, anchor->rate, anchor->metric[k],
                              (const char *const *)anchor->label};
    const PsnrHvsRdCurve t = {test->name, test->n, test->rate, test->metric[k],
                              (const char *const *)test->label};
    PsnrHvsFileStatus st;
    if (psnrhvs_bd(m, &a, &t, key, r, &st) < 0) {
        snprintf(err, err_size, "%s", st.message);
        return -1;
    }
    return 0;
}

/* ---- the subcommand ---- */

static _Noreturn void usage_error(const char *const msg, const char *const arg) {
    cli_command_usage_error("bdrate", msg, arg);
}

static void help(void) {
    printf("Usage: psnrhvs bdrate ANCHOR.csv TEST.csv [options]\n"
           "Bjontegaard deltas of TEST against ANCHOR: BD-rate (%%, negative: TEST needs less\n"
           "rate for the same score) and BD-metric (dB, positive: TEST scores higher at the\n"
           "same rate), for each of psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr and psnr_hvs that\n"
           "both files have. Each file is a CSV table, one row per rung (at least 4), with\n"
           "a bitrate column (kbit/s) and the metric columns; psnrhvs batch's summary works\n"
           "as it is (its NAME_mean columns).\n"
           "\n"
           "     --method pchip|cubic  pchip (default): PCHIP of log10(rate) over the metric,\n"
           "                           integrated exactly over the overlap (JVET, AOM CTC);\n"
           "                           cubic: VCEG-M33's least-squares cubic\n"
           "     --pool POOL           the batch summary's column to take, NAME_POOL: mean\n"
           "                           (default), harmonic_mean, min or max\n"
           "     --json                one JSON object on stdout (values %%.17g)\n"
           "     --help                this text\n");
}

static void json_string(FILE *const f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* The command line. */
typedef struct BdArgs {
    enum BdMethod method;
    const char *pool;
    int json;
    const char *files[2];
} BdArgs;

/* Options and the two tables into a; usage errors exit. */
static void parse_args(const int argc, char *const *const argv, BdArgs *const a) {
    enum { ARG_METHOD = 256, ARG_POOL, ARG_JSON, ARG_HELP };
    static const struct option opts[] = {
        {"method", required_argument, NULL, ARG_METHOD},
        {"pool", required_argument, NULL, ARG_POOL},
        {"json", no_argument, NULL, ARG_JSON},
        {"help", no_argument, NULL, ARG_HELP},
        {NULL, 0, NULL, 0},
    };
    int num_files = 0;
    opterr = 0;
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "-:", opts, NULL)) != -1) {
        switch (o) {
        case 1:
            if (num_files == 2) usage_error("more than two rate tables given:", optarg);
            a->files[num_files++] = optarg;
            break;
        case ARG_METHOD:
            if (bd_method_from_name(optarg) < 0)
                usage_error("unknown --method (expected pchip or cubic):", optarg);
            a->method = (enum BdMethod)bd_method_from_name(optarg);
            break;
        case ARG_POOL:
            if (!bd_pool_ok(optarg))
                usage_error("unknown --pool (expected mean, harmonic_mean, min or max):", optarg);
            a->pool = optarg;
            break;
        case ARG_JSON:
            a->json = 1;
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
    if (num_files < 2) usage_error("needs two rate tables: ANCHOR.csv TEST.csv", NULL);
    if (!strcmp(a->files[0], "-") && !strcmp(a->files[1], "-"))
        usage_error("stdin ('-') given twice", NULL);
}

/* The deltas of each metric both tables have, as text or JSON on stdout; errors on stderr.
 * @return 1 if one failed, else 0 */
static int print_deltas(const BdArgs *const a, const RdTable t[2]) {
    char err[1024];
    int failed = 0;
    if (a->json) {
        printf("{\n  \"anchor\": ");
        json_string(stdout, t[0].name);
        printf(",\n  \"test\": ");
        json_string(stdout, t[1].name);
        printf(",\n  \"method\": \"%s\",\n  \"rungs\": {\"anchor\": %zu, \"test\": %zu},\n"
               "  \"metrics\": {",
               psnrhvs_bd_method_string(a->method), t[0].n, t[1].n);
    } else {
        printf("BD-rate of %s against %s (%s; %zu and %zu rungs)\n", t[1].name, t[0].name,
               psnrhvs_bd_method_string(a->method), t[1].n, t[0].n);
        printf("%-12s %12s %12s  %s\n", "metric", "BD-rate", "BD-metric", "overlap");
    }
    int first = 1;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
        if (!t[0].metric[k] || !t[1].metric[k]) continue;
        const char *const key = psnrhvs_key_string((enum PsnrHvsKey)k);
        BdResult r;
        const int res =
            bd_compute(a->method, &t[0], &t[1], (enum PsnrHvsKey)k, &r, err, sizeof(err));
        if (res < 0) {
            failed = 1;
            fprintf(stderr, "psnrhvs: bdrate: %s: %s\n", key, err);
        }
        if (a->json) {
            printf("%s\n    \"%s\": {", first ? "" : ",", key);
            if (res < 0) {
                printf("\"error\": ");
                json_string(stdout, err);
            } else {
                printf("\"bd_rate\": %.17g, \"bd_metric\": %.17g, \"overlap_db\": [%.17g, %.17g], "
                       "\"overlap_kbps\": [%.17g, %.17g]",
                       r.rate, r.metric, r.lo, r.hi, r.rate_lo, r.rate_hi);
            }
            printf("}");
        } else if (res < 0) {
            printf("%-12s %12s %12s  (error: see above)\n", key, "-", "-");
        } else {
            printf("%-12s %+11.4f%% %+9.4f dB  %.3f..%.3f dB, %.6g..%.6g kbit/s\n", key, r.rate,
                   r.metric, r.lo, r.hi, r.rate_lo, r.rate_hi);
        }
        first = 0;
    }
    if (a->json) printf("\n  }\n}\n");
    return failed;
}

int bdrate_main(int argc, char *const *argv) {
    BdArgs a = {.method = BD_PCHIP, .pool = "mean"};
    parse_args(argc, argv, &a);

    /* stdout appended to (or opened read-write on) a table: not written over. */
    const NamedFile out = {"-", "output"};
    const NamedFile ins[2] = {{a.files[0], "the anchor"}, {a.files[1], "the test table"}};
    char why[8192];
    if (output_check_clobber(&out, 1, ins, 2, why, sizeof(why)) < 0) {
        fprintf(stderr, "psnrhvs: bdrate: %s\n", why);
        return 1;
    }

    RdTable t[2];
    char err[1024];
    for (int i = 0; i < 2; i++) {
        if (rd_table_read(&t[i], a.files[i], a.pool, err, sizeof(err)) < 0) {
            fprintf(stderr, "psnrhvs: bdrate: %s\n", err);
            if (i) rd_table_free(&t[0]);
            return 1;
        }
    }
    int common = 0;
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) common += t[0].metric[k] && t[1].metric[k];
    if (!common) {
        fprintf(stderr, "psnrhvs: bdrate: %s and %s have no metric column in common\n", t[0].name,
                t[1].name);
        rd_table_free(&t[0]);
        rd_table_free(&t[1]);
        return 1;
    }
    const int failed = print_deltas(&a, t);
    rd_table_free(&t[0]);
    rd_table_free(&t[1]);
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "psnrhvs: bdrate: cannot write to stdout\n");
        return 1;
    }
    return failed;
}
