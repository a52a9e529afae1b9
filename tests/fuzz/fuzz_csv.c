/*
 * Fuzz target: arbitrary bytes as a batch jobs file through the CSV record
 * parser (tools/csv.c): every record until the end or an error.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_records.h"
#include "fuzz_target.h"

const char fuzz_target_name[] = "csv";

#define broken fuzz_broken

void fuzz_target_run(const uint8_t *const data, const size_t size, FuzzOutcome *const r) {
    memset(r, 0, sizeof(*r));
    r->opened = 1;
    const char *p = (const char *)data, *const end = p + size;
    unsigned line = 1, last_line = 0;
    CsvRow row = {0};
    int res;
    while ((res = csv_next(&p, end, &line, &row, r->err, sizeof(r->err))) > 0) {
        /* The promises: progress, lines that only grow, whole fields. */
        if (p > end || p < (const char *)data) broken("the cursor left the input", r);
        if (row.n < 1) broken("a record without a field", r);
        if (row.line <= last_line || row.line > line) broken("records out of line order", r);
        for (int i = 0; i < row.n; i++)
            if (!row.fields[i] || strlen(row.fields[i]) > size) broken("a field out of bounds", r);
        last_line = row.line;
        r->frames++;
    }
    if (res < 0 && !r->err[0]) broken("an error without a message", r);
    if (!res && p != end) broken("the end before the end of the input", r);
    r->status = res;
    csv_row_clear(&row);
    free(row.fields);
}
