/*
 * psnrhvs: target's search over a range of settings.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_TARGET_SEARCH_H
#define PSNRHVS_TOOLS_TARGET_SEARCH_H

#include "target/target.h"

/** How the search makes a probe of setting index i. */
typedef struct SearchFns {
    void *ctx;
    int (*probe)(void *ctx, int i, Probe *out); ///< fills score, kbps...; 0 or -1 (reported)
} SearchFns;

/**
 * Find the last index of 0..n-1 whose probe reaches target (sweep: probe
 * every index). r->chosen is -1 when none does, r->best the best probe.
 * @return 0, or -1 when a probe failed (reported).
 */
int target_search(const SearchFns *fn, int n, double target, int sweep, TargetResult *r);

#endif /* PSNRHVS_TOOLS_TARGET_SEARCH_H */
