/*
 * psnrhvs: where score files go (the layouts are the library's: psnrhvs_output_write).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_OUTPUT_OUTPUT_H
#define PSNRHVS_TOOLS_OUTPUT_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "psnrhvs.h"

/** A PsnrHvsWriteCallback onto the FILE * cookie. */
int output_fwrite(void *f, const char *data, size_t size);

/** "xml, json, csv or sub" into buf, for messages. @return buf */
const char *output_format_names(char *buf, size_t size);

/**
 * An output destination (outfile.c). What path names is looked at once, before
 * any frame is scored, and decides how it is written:
 * - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the open
 *   descriptor itself, at its current offset;
 * - a new file, or a regular file with one link: a temporary file in the
 *   target's directory, renamed over it when complete (an existing file keeps
 *   its permission bits, and its owner where allowed), with handlers that
 *   remove the temporary file on a fatal signal;
 * - a regular file with several hard links (or in a directory we may not
 *   write): written in place, truncated only once the scores are ready;
 * - a character device or socket: written in place, never truncated;
 * - a FIFO: opened only when the scores are ready (a reader may come later).
 * Symbolic links are followed: the target is written, the link stays.
 * A directory, a block device, a missing parent or no permission is an error
 * at once (one line on stderr).
 */
typedef struct OutputFile OutputFile;

/** @return 0 or -1 (reported). */
int output_open(OutputFile **of, const char *path);
/** Write o in format f and put it in place; frees of. @return 0 or -1 (reported). */
int output_commit(OutputFile **of, enum PsnrHvsScoreFormat f, const PsnrHvsOutput *o);
/** The same with any writer: write(f, cookie) returns 0, or -1 on a write error. */
int output_commit_with(OutputFile **of, int (*write)(FILE *f, const void *cookie),
                       const void *cookie);
/** The scores in a format: output_format_write's cookie. */
typedef struct OutputFormat {
    enum PsnrHvsScoreFormat f;
    const PsnrHvsOutput *o;
} OutputFormat;
/** A writer of an OutputFormat, for output_commit_many. */
int output_format_write(FILE *f, const void *cookie);

/** One output of a run and its writer, for output_commit_many. */
typedef struct OutputWrite {
    OutputFile **of; ///< NULL *of: none
    int (*write)(FILE *f, const void *cookie);
    const void *cookie;
} OutputWrite;
/**
 * The outputs of one run, all or none as far as a rename can: every
 * temporary file is written first, then the outputs written where they are,
 * then the renames, in order. Frees each. @return 0 or -1 (reported).
 */
int output_commit_many(const OutputWrite *w, int n);
/** Remove any temporary file and leave an existing one as it was; frees of. */
void output_abort(OutputFile **of);

/** Remove every temporary file of the outputs open (async-signal-safe): a
 *  process ending by a signal it caught itself (batch). */
void output_remove_temporaries(void);

/** A file of a run and what it is to the user ("-o", "the reference"...). */
typedef struct NamedFile {
    const char *path;
    const char *role;
} NamedFile;

/**
 * Before anything is written: an output that is one of the inputs (the same
 * regular file, links followed, "-" as stdin/stdout) or another output.
 * @return 0, or -1 with one line naming both in err.
 */
int output_check_clobber(const NamedFile *outs, int nout, const NamedFile *ins, int nin, char *err,
                         size_t err_size);

/**
 * Make the missing folders of path up to its last '/', the ones the user
 * named, never under /dev, /proc or /sys. @return 0, or -1 with err.
 */
int output_make_parents(const char *path, char *err, size_t err_size);

#endif /* PSNRHVS_TOOLS_OUTPUT_OUTPUT_H */
