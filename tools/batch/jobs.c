/*
 * psnrhvs: `psnrhvs batch`: the jobs file: its CSV records (csv.h) made into
 * jobs, each row's columns into the job's flags, and the checks that no two
 * jobs write one file and that no output is an input.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "batch_int.h"
#include "csv_records.h"
#include "readfile.h"

enum ColKind {
    COL_ID,
    COL_REFERENCE,
    COL_DISTORTED,
    COL_OUTPUT,
    COL_FORMAT,
    COL_PLOT,
    COL_BACKEND,
    COL_DEVICE,
    COL_THREADS,
    COL_ARGS,
    COL_VALUE,   ///< --NAME VALUE
    COL_FLAG,    ///< --NAME when true
    COL_FEATURE, ///< --feature psnr_hvs=NAME=VALUE
};

static const struct {
    const char *name;
    enum ColKind kind;
} columns[] = {
    {"id", COL_ID},
    {"reference", COL_REFERENCE},
    {"distorted", COL_DISTORTED},
    {"output", COL_OUTPUT},
    {"format", COL_FORMAT},
    {"plot", COL_PLOT},
    {"backend", COL_BACKEND},
    {"device", COL_DEVICE},
    {"threads", COL_THREADS},
    {"args", COL_ARGS},
    {"width", COL_VALUE},
    {"height", COL_VALUE},
    {"pixel_format", COL_VALUE},
    {"bitdepth", COL_VALUE},
    {"frame_cnt", COL_VALUE},
    {"frame_skip_ref", COL_VALUE},
    {"frame_skip_dist", COL_VALUE},
    {"subsample", COL_VALUE},
    {"feature", COL_VALUE},
    {"isa", COL_VALUE},
    {"precision", COL_VALUE},
    {"cpumask", COL_VALUE},
    {"gpumask", COL_VALUE},
    {"aom_ctc", COL_VALUE},
    {"raw", COL_FLAG},
    {"no_prediction", COL_FLAG},
    {"enable_chroma", COL_FEATURE},
    {"mask_product", COL_FEATURE},
};
#define NUM_COLUMNS ((int)(sizeof(columns) / sizeof(columns[0])))

/* Flags batch sets itself: in an args cell they would contradict the columns. */
static const char *const reserved_flags[] = {
    "-r",        "--reference", "-d",        "--distorted", "-o",         "--output",
    "--xml",     "--json",      "--csv",     "--sub",       "-q",         "--quiet",
    "--backend", "--device",    "--threads", "--plot",      "--backends", "--list-devices",
    "--help",    "-v",          "--version", "parity",      "batch",      "report",
};

static void add_opt(Job *const j, const char *const s) {
    if (j->num_opts + 1 >= j->cap_opts) {
        j->cap_opts = j->cap_opts ? j->cap_opts * 2 : 16;
        char **const o = realloc(j->opts, (size_t)j->cap_opts * sizeof(char *));
        if (!o) {
            fprintf(stderr, "psnrhvs: out of memory\n");
            exit(1);
        }
        j->opts = o;
    }
    j->opts[j->num_opts++] = batch_xstrdup(s);
}

static char *resolve_path(const Batch *const b, const char *const path) {
    if (path[0] == '/' || !b->base_dir) return batch_xstrdup(path);
    return batch_xprintf("%s/%s", b->base_dir, path);
}

static int parse_bool(const char *const s) {
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"", "0", "false", "no", "off"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        if (!strcasecmp(s, yes[i])) return 1;
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (!strcasecmp(s, no[i])) return 0;
    return -1;
}

static char *read_all(const char *const path, size_t *const len) {
    char *buf, err[600];
    if (cli_read_file(path, &buf, len, err, sizeof(err)) < 0) {
        fprintf(stderr, "psnrhvs: batch: %s\n", err);
        return NULL;
    }
    return buf;
}

/* What a row's cells say that is checked once the whole row is read. */
typedef struct RowCells {
    const char *format, *reference, *distorted, *output;
    char feature[256]; ///< --feature psnr_hvs=..., from the COL_FEATURE cells
} RowCells;

static void init_job(Job *const j, const CsvRow *const row) {
    j->line = row->line;
    j->device = -1;
    j->threads = -1;
    j->any_backend = 1;
    j->backend = PSNRHVS_BACKEND_AUTO;
    j->gpu_slot = -1;
    j->total = -1;
}

/* Fields past the header's are allowed only when empty. */
static void check_row_width(const char *const file, const CsvRow *const row, const int ncols) {
    if (row->n > ncols) {
        for (int i = ncols; i < row->n; i++)
            if (row->fields[i][0])
                batch_usage_error("%s line %u: %d fields, the header has %d", file, row->line,
                                  row->n, ncols);
    }
}

/* The library's name for the format: the row's text does not last. */
static const char *parse_format_cell(const char *const file, const unsigned line,
                                     const char *const v) {
    const int f = psnrhvs_scores_format_from_string(v);
    char names[64];
    if (f < 0)
        batch_usage_error("%s line %u: unknown format '%s' (expected %s)", file, line, v,
                          output_format_names(names, sizeof(names)));
    return psnrhvs_scores_format_string((enum PsnrHvsScoreFormat)f);
}

static void parse_backend_cell(Job *const j, const char *const file, const unsigned line,
                               const char *const v) {
    if (cli_backend_from_name(v, &j->backend) < 0) {
        char names[128];
        batch_usage_error("%s line %u: unknown backend '%s' (expected %s)", file, line, v,
                          cli_backend_names(names, sizeof(names)));
    }
    j->any_backend = psnrhvs_backend_kind(j->backend) == PSNRHVS_KIND_AUTO;
}

/* An args cell, split at spaces: no quoting (paths with spaces have their
 * columns). */
static void add_args_cell(Job *const j, const char *const file, const unsigned line,
                          const char *const v) {
    char *const copy = batch_xstrdup(v);
    for (char *save = NULL, *t = strtok_r(copy, " \t", &save); t;
         t = strtok_r(NULL, " \t", &save)) {
        const size_t flen = strcspn(t, "=");
        for (size_t r = 0; r < sizeof(reserved_flags) / sizeof(reserved_flags[0]); r++)
            if (strlen(reserved_flags[r]) == flen && !strncmp(t, reserved_flags[r], flen))
                batch_usage_error("%s line %u: %.*s in args: batch sets it (use the "
                                  "columns reference, distorted, output, format, plot, "
                                  "backend, device, threads)",
                                  file, line, (int)flen, t);
        add_opt(j, t);
    }
    free(copy);
}

/* --NAME when the cell is true. */
static void add_flag_cell(Job *const j, const char *const file, const unsigned line,
                          const char *const name, const char *const v) {
    const int on = parse_bool(v);
    if (on < 0)
        batch_usage_error("%s line %u: %s is '%s' (expected true or false, 1 or 0, or "
                          "empty)",
                          file, line, name, v);
    if (on) {
        char *const flag = batch_xprintf("--%s", name);
        add_opt(j, flag);
        free(flag);
    }
}

/* NAME=VALUE onto the row's --feature psnr_hvs=... */
static void append_feature_cell(RowCells *const cells, const char *const file, const unsigned line,
                                const char *const name, const char *const v) {
    char *const feature = cells->feature;
    if (strlen(feature) + strlen(name) + strlen(v) + 4 >= sizeof(cells->feature))
        batch_usage_error("%s line %u: feature options too long", file, line);
    strcat(feature, *feature ? ":" : "psnr_hvs=");
    strcat(feature, name);
    strcat(feature, "=");
    strcat(feature, v);
}

/* One non-empty cell (or a COL_FLAG one) into the job or the row's cells. */
static void apply_cell(Batch *const b, Job *const j, RowCells *const cells, const unsigned line,
                       const enum ColKind kind, const char *const name, const char *const v) {
    const char *const file = b->jobs_path;
    switch (kind) {
    case COL_ID:
        j->id = batch_xstrdup(v);
        break;
    case COL_REFERENCE:
        cells->reference = v;
        break;
    case COL_DISTORTED:
        cells->distorted = v;
        break;
    case COL_OUTPUT:
        cells->output = v;
        break;
    case COL_FORMAT:
        cells->format = parse_format_cell(file, line, v);
        break;
    case COL_PLOT:
        j->plot = resolve_path(b, v);
        break;
    case COL_BACKEND:
        parse_backend_cell(j, file, line, v);
        break;
    case COL_DEVICE:
        if (batch_parse_int(v, 0, INT_MAX, &j->device) < 0)
            batch_usage_error("%s line %u: invalid device '%s'", file, line, v);
        break;
    case COL_THREADS:
        if (batch_parse_int(v, 0, 1024, &j->threads) < 0)
            batch_usage_error("%s line %u: invalid threads '%s' (0 to 1024)", file, line, v);
        break;
    case COL_ARGS:
        add_args_cell(j, file, line, v);
        break;
    case COL_VALUE: {
        char *const flag = batch_xprintf("--%s", name);
        add_opt(j, flag);
        add_opt(j, v);
        free(flag);
        break;
    }
    case COL_FLAG:
        add_flag_cell(j, file, line, name, v);
        break;
    case COL_FEATURE:
        append_feature_cell(cells, file, line, name, v);
        break;
    }
}

/* The job's files and the checks that need the whole row. */
static void finish_job(Batch *const b, Job *const j, const RowCells *const cells,
                       const unsigned line) {
    const char *const file = b->jobs_path;
    const char *const reference = cells->reference, *const distorted = cells->distorted,
                      *const output = cells->output;
    if (*cells->feature) {
        add_opt(j, "--feature");
        add_opt(j, cells->feature);
    }
    if (!reference) batch_usage_error("%s line %u: no reference", file, line);
    if (!distorted) batch_usage_error("%s line %u: no distorted", file, line);
    if (!output) batch_usage_error("%s line %u: no output", file, line);
    if (!strcmp(reference, "-") || !strcmp(distorted, "-") || !strcmp(output, "-"))
        batch_usage_error("%s line %u: '-' (stdin or stdout) cannot be a job's file", file, line);
    if (j->plot && !strcmp(j->plot, "-"))
        batch_usage_error("%s line %u: '-' cannot be a job's plot", file, line);
    j->reference = resolve_path(b, reference);
    j->distorted = resolve_path(b, distorted);
    j->output = resolve_path(b, output);
    j->format = cells->format
                    ? cells->format
                    : psnrhvs_scores_format_string(psnrhvs_scores_format_for_path(output));
    if (j->device >= 0 && (j->any_backend || psnrhvs_backend_kind(j->backend) == PSNRHVS_KIND_HOST))
        batch_usage_error(
            "%s line %u: a device without a GPU backend (cuda, opencl, hip or vulkan)", file, line);
}

/* Turn one row into a job; a problem is a usage error naming the line. */
static void make_job(Batch *const b, Job *const j, const CsvRow *const row,
                     const int *const col_kind, const char *const *const col_name,
                     const int ncols) {
    init_job(j, row);
    check_row_width(b->jobs_path, row, ncols);
    RowCells cells = {.feature = ""};
    for (int c = 0; c < ncols && c < row->n; c++) {
        const char *const v = row->fields[c];
        if (!*v && col_kind[c] != COL_FLAG) continue;
        apply_cell(b, j, &cells, row->line, (enum ColKind)col_kind[c], col_name[c], v);
    }
    finish_job(b, j, &cells, row->line);
}

static int cmp_str(const void *const a, const void *const b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void batch_load_jobs(Batch *const b) {
    size_t len;
    char *const buf = read_all(b->jobs_path, &len);
    if (!buf) exit(1);
    const char *p = buf, *const end = buf + len;
    if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) p += 3; /* a spreadsheet's BOM */
    unsigned line = 1;
    CsvRow row = {0};
    char err[256];
    int res = csv_next(&p, end, &line, &row, err, sizeof(err));
    if (res < 0) batch_usage_error("%s %s", b->jobs_path, err);
    if (!res) batch_usage_error("%s has no header row", b->jobs_path);

    const int ncols = row.n;
    int *const col_kind = batch_xmalloc((size_t)ncols * sizeof(int));
    char **const col_name = batch_xmalloc((size_t)ncols * sizeof(char *));
    int have_ref = 0, have_dist = 0, have_out = 0;
    for (int c = 0; c < ncols; c++) {
        col_name[c] = batch_xstrdup(row.fields[c]);
        for (char *q = col_name[c]; *q; q++)
            if (*q == '-') *q = '_'; /* pixel-format as pixel_format */
        col_kind[c] = -1;
        for (int k = 0; k < NUM_COLUMNS; k++)
            if (!strcasecmp(col_name[c], columns[k].name)) {
                col_kind[c] = columns[k].kind;
                strcpy(col_name[c], columns[k].name);
            }
        if (col_kind[c] < 0) {
            char list[1024] = "";
            for (int k = 0; k < NUM_COLUMNS; k++) {
                strcat(list, k ? ", " : "");
                strcat(list, columns[k].name);
            }
            batch_usage_error("%s: unknown column '%s' in the header (columns: %s)", b->jobs_path,
                              row.fields[c], list);
        }
        for (int d = 0; d < c; d++)
            if (!strcmp(col_name[d], col_name[c]))
                batch_usage_error("%s: column '%s' twice in the header", b->jobs_path, col_name[c]);
        have_ref |= col_kind[c] == COL_REFERENCE;
        have_dist |= col_kind[c] == COL_DISTORTED;
        have_out |= col_kind[c] == COL_OUTPUT;
    }
    if (!have_ref || !have_dist || !have_out)
        batch_usage_error("%s: the header row needs the columns reference, distorted and output",
                          b->jobs_path);

    int cap = 0;
    while ((res = csv_next(&p, end, &line, &row, err, sizeof(err))) > 0) {
        if (b->num_jobs == cap) {
            cap = cap ? cap * 2 : 64;
            Job *const nj = realloc(b->jobs, (size_t)cap * sizeof(Job));
            if (!nj) {
                fprintf(stderr, "psnrhvs: out of memory\n");
                exit(1);
            }
            b->jobs = nj;
        }
        Job *const j = &b->jobs[b->num_jobs];
        memset(j, 0, sizeof(*j));
        make_job(b, j, &row, col_kind, (const char *const *)col_name, ncols);
        b->num_jobs++;
        if (!j->id) j->id = batch_xprintf("%d", b->num_jobs);
    }
    if (res < 0) batch_usage_error("%s %s", b->jobs_path, err);
    if (!b->num_jobs) batch_usage_error("%s has no jobs (only a header)", b->jobs_path);

    /* Two jobs writing one file would each take the other's output for complete. */
    char **const paths = batch_xmalloc((size_t)b->num_jobs * 2 * sizeof(char *));
    int n = 0;
    for (int i = 0; i < b->num_jobs; i++) {
        paths[n++] = b->jobs[i].output;
        if (b->jobs[i].plot) paths[n++] = b->jobs[i].plot;
    }
    qsort(paths, (size_t)n, sizeof(char *), cmp_str);
    for (int i = 1; i < n; i++)
        if (!strcmp(paths[i], paths[i - 1]))
            batch_usage_error("%s: %s is the output (or plot) of two jobs", b->jobs_path, paths[i]);
    free(paths);
    csv_row_clear(&row);
    free(row.fields);
    for (int c = 0; c < ncols; c++) free(col_name[c]);
    free(col_name);
    free(col_kind);
    free(buf);
}

/* No output (a job's, a plot, the summary) that is an input of any job or
 * the jobs file itself. */
void batch_check_clobber(const Batch *const b, const char *const summary) {
    NamedFile *const outs = batch_xmalloc(((size_t)b->num_jobs * 2 + 1) * sizeof(NamedFile));
    NamedFile *const ins = batch_xmalloc(((size_t)b->num_jobs * 2 + 1) * sizeof(NamedFile));
    int nout = 0, nin = 0;
    outs[nout++] = (NamedFile){summary, "the summary"};
    ins[nin++] = (NamedFile){b->jobs_path, "the jobs file"};
    for (int i = 0; i < b->num_jobs; i++) {
        const Job *const j = &b->jobs[i];
        outs[nout++] = (NamedFile){j->output, batch_xprintf("the output of job %s", j->id)};
        if (j->plot)
            outs[nout++] = (NamedFile){j->plot, batch_xprintf("the plot of job %s", j->id)};
        ins[nin++] = (NamedFile){j->reference, batch_xprintf("the reference of job %s", j->id)};
        ins[nin++] = (NamedFile){j->distorted, batch_xprintf("the distorted of job %s", j->id)};
    }
    char why[8192];
    const int res = output_check_clobber(outs, nout, ins, nin, why, sizeof(why));
    for (int i = 1; i < nout; i++) free((char *)outs[i].role);
    for (int i = 1; i < nin; i++) free((char *)ins[i].role);
    free(outs);
    free(ins);
    if (res < 0) batch_usage_error("%s", why);
}

void batch_free_jobs(Batch *const b) {
    for (int i = 0; i < b->num_jobs; i++) {
        Job *const j = &b->jobs[i];
        free(j->id), free(j->reference), free(j->distorted), free(j->output), free(j->plot);
        for (int k = 0; k < j->num_opts; k++) free(j->opts[k]);
        free(j->opts);
    }
    free(b->jobs);
}
