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

int csv_next(const char **const p, const char *const end, unsigned *const line, CsvRow *const row,
             char *const err, const size_t err_size) {
    csv_row_clear(row);
    for (;;) {
        if (*p >= end) return 0;
        /* blank lines and comments */
        const char *q = *p;
        while (q < end && (*q == ' ' || *q == '\t')) q++;
        if (q < end && (*q == '\n' || *q == '\r' || *q == '#')) {
            const char *const nl = memchr(q, '\n', (size_t)(end - q));
            *p = nl ? nl + 1 : end;
            (*line)++;
            continue;
        }
        if (q >= end) return *p = end, 0;
        break;
    }
    row->line = *line;
    size_t cap = 64, len = 0;
    char *field = malloc(cap);
    if (!field) return out_of_memory(err, err_size);
    for (;;) {
        const char *q = *p;
        int quoted = 0;
        len = 0;
        /* a quoted field may have spaces before its quote */
        while (q < end && (*q == ' ' || *q == '\t')) q++;
        if (q < end && *q == '"') {
            quoted = 1;
            *p = q + 1;
        }
        for (;;) {
            if (*p >= end) {
                if (quoted) {
                    snprintf(err, err_size, "line %u: a quoted field without its closing quote",
                             row->line);
                    free(field);
                    return -1;
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
                            snprintf(err, err_size, "line %u: text after a closing quote",
                                     row->line);
                            free(field);
                            return -1;
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
                    snprintf(err, err_size, "line %u: a quote inside an unquoted field", row->line);
                    free(field);
                    return -1;
                }
                (*p)++;
            }
            if (len + 2 > cap) {
                cap *= 2;
                char *const nf = realloc(field, cap);
                if (!nf) {
                    free(field);
                    return out_of_memory(err, err_size);
                }
                field = nf;
            }
            field[len++] = c;
        }
        field[len] = '\0';
        /* unquoted fields lose their surrounding spaces */
        char *s = field;
        if (!quoted) {
            while (*s == ' ' || *s == '\t') s++;
            size_t l = strlen(s);
            while (l && (s[l - 1] == ' ' || s[l - 1] == '\t')) s[--l] = '\0';
        }
        if (row->n == row->cap) {
            row->cap = row->cap ? row->cap * 2 : 16;
            char **const nf = realloc(row->fields, (size_t)row->cap * sizeof(char *));
            if (!nf) {
                free(field);
                return out_of_memory(err, err_size);
            }
            row->fields = nf;
        }
        if (!(row->fields[row->n] = strdup(s))) {
            free(field);
            return out_of_memory(err, err_size);
        }
        row->n++;
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
