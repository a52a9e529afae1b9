/*
 * psnrhvs: CSV records (RFC 4180) of the batch jobs file.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "csv_records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int out_of_memory(char *const err, const size_t err_size) {
    snprintf(err, err_size, "out of memory");
    return -1;
}

void csv_row_clear(CsvRow *const r) {
    for (int i = 0; i < r->n; i++) free(r->fields[i]);
    r->n = 0;
}

/* Past blank lines and comments. @return 1 with *p at a record, 0 at the end */
static int skip_blank_lines(const char **const p, const char *const end, unsigned *const line) {
    for (;;) {
        if (*p >= end) return 0;
        const char *q = *p;
        while (q < end && (*q == ' ' || *q == '\t')) q++;
        if (q < end && (*q == '\n' || *q == '\r' || *q == '#')) {
            const char *const nl = memchr(q, '\n', (size_t)(end - q));
            *p = nl ? nl + 1 : end;
            (*line)++;
            continue;
        }
        if (q >= end) return *p = end, 0;
        return 1;
    }
}

/* One field from *p into *field (of *cap bytes, grown as needed), up to its ',', line end or
 * the end. @return its text (in *field, unquoted fields trimmed) or NULL with the reason in err */
static char *read_field(const char **const p, const char *const end, unsigned *const line,
                        const unsigned row_line, char **const field, size_t *const cap,
                        char *const err, const size_t err_size) {
    const char *q = *p;
    int quoted = 0, was_quoted = 0;
    size_t len = 0;
    /* a quoted field may have spaces before its quote */
    while (q < end && (*q == ' ' || *q == '\t')) q++;
    if (q < end && *q == '"') {
        quoted = was_quoted = 1;
        *p = q + 1;
    }
    for (;;) {
        if (*p >= end) {
            if (quoted) {
                snprintf(err, err_size, "line %u: a quoted field without its closing quote",
                         row_line);
                return NULL;
            }
            break;
        }
        const char c = **p;
        if (quoted) {
            if (c == '"') {
                if (*p + 1 < end && (*p)[1] == '"') {
                    *p += 2;
                } else {
                    (*p)++;
                    quoted = 0;
                    /* spaces may follow the closing quote, nothing else */
                    while (*p < end && (**p == ' ' || **p == '\t')) (*p)++;
                    if (*p < end && **p != ',' && **p != '\n' && **p != '\r') {
                        snprintf(err, err_size, "line %u: text after a closing quote", row_line);
                        return NULL;
                    }
                    continue;
                }
            } else {
                if (c == '\n') (*line)++;
                (*p)++;
            }
        } else {
            if (c == ',' || c == '\n' || c == '\r') break;
            if (c == '"') {
                snprintf(err, err_size, "line %u: a quote inside an unquoted field", row_line);
                return NULL;
            }
            (*p)++;
        }
        if (len + 2 > *cap) {
            *cap *= 2;
            char *const nf = realloc(*field, *cap);
            if (!nf) {
                out_of_memory(err, err_size);
                return NULL;
            }
            *field = nf;
        }
        (*field)[len++] = c;
    }
    (*field)[len] = '\0';
    /* unquoted fields lose their surrounding spaces; a quoted one keeps its own */
    char *s = *field;
    if (!was_quoted) {
        while (*s == ' ' || *s == '\t') s++;
        size_t l = strlen(s);
        while (l && (s[l - 1] == ' ' || s[l - 1] == '\t')) s[--l] = '\0';
    }
    return s;
}

/* A copy of s as the row's next field. @return 0 or -1 (no memory) */
static int row_append(CsvRow *const row, const char *const s, char *const err,
                      const size_t err_size) {
    if (row->n == row->cap) {
        row->cap = row->cap ? row->cap * 2 : 16;
        char **const nf = realloc(row->fields, (size_t)row->cap * sizeof(char *));
        if (!nf) return out_of_memory(err, err_size);
        row->fields = nf;
    }
    if (!(row->fields[row->n] = strdup(s))) return out_of_memory(err, err_size);
    row->n++;
    return 0;
}

int csv_next(const char **const p, const char *const end, unsigned *const line, CsvRow *const row,
             char *const err, const size_t err_size) {
    csv_row_clear(row);
    if (!skip_blank_lines(p, end, line)) return 0;
    row->line = *line;
    size_t cap = 64;
    char *field = malloc(cap);
    if (!field) return out_of_memory(err, err_size);
    for (;;) {
        const char *const s = read_field(p, end, line, row->line, &field, &cap, err, err_size);
        if (!s || row_append(row, s, err, err_size) < 0) {
            free(field);
            return -1;
        }
        if (*p < end && **p == ',') {
            (*p)++;
            continue;
        }
        if (*p < end && **p == '\r') (*p)++;
        if (*p < end && **p == '\n')
            (*p)++, (*line)++;
        else if (*p < end) {
            snprintf(err, err_size, "line %u: a carriage return inside a line", row->line);
            free(field);
            return -1;
        }
        break;
    }
    free(field);
    return 1;
}
