/*
 * psnrhvs: CSV records (RFC 4180) of the batch jobs file, blank lines and
 * '#' comment lines skipped.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_CSV_RECORDS_H
#define PSNRHVS_TOOLS_CSV_RECORDS_H

#include <stddef.h>

typedef struct CsvRow {
    char **fields; ///< n fields, each malloc'd
    int n, cap;
    unsigned line; ///< where the record starts
} CsvRow;

/**
 * The next record from *p (up to end) into row, counting lines in *line:
 * 1, 0 at the end, -1 with a one-line reason in err. Quoted fields may hold
 * commas, quotes ("") and line breaks; CR LF ends a line as LF does;
 * unquoted fields lose their surrounding spaces.
 */
int csv_next(const char **p, const char *end, unsigned *line, CsvRow *row, char *err,
             size_t err_size);

/** Free the fields (row->fields itself stays for the next record). */
void csv_row_clear(CsvRow *row);

#endif /* PSNRHVS_TOOLS_CSV_RECORDS_H */
