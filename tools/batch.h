/*
 * psnrhvs: `psnrhvs batch JOBS.csv`: many scoring runs on every core and GPU.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_BATCH_H
#define PSNRHVS_TOOLS_BATCH_H

/**
 * `psnrhvs batch ...` with argv[0] = "batch"; prog is the program's own
 * argv[0] (the jobs run it again where /proc/self/exe is missing).
 * @return the exit status.
 */
int psnrhvs_batch_main(int argc, char *const *argv, const char *prog);

/**
 * In a scoring run started by batch: the pipe that takes its progress
 * (PSNRHVS_BATCH_FD), or -1 in any other run.
 */
int psnrhvs_batch_child_fd(void);

/** Tell batch how far the run is: frames read, and the total expected (-1: unknown). */
void psnrhvs_batch_child_progress(int fd, unsigned frames, long long total);

#endif /* PSNRHVS_TOOLS_BATCH_H */
