/*
 * psnrhvs: `psnrhvs batch JOBS.csv`: many scoring runs on every core and GPU.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_BATCH_H
#define PSNRHVS_TOOLS_BATCH_H

/**
 * `psnrhvs batch ...` with argv[0] = "batch"; prog is the program's own
 * argv[0].
 * @return the exit status.
 */
int batch_main(int argc, char *const *argv, const char *prog);

#endif /* PSNRHVS_TOOLS_BATCH_H */
