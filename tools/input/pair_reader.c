/*
 * psnrhvs: reading reference and distorted frames in pairs, in frame order.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/pair_reader.h"

struct PairReader {
    Input *ref, *dist;
    PairReaderSettings s;
    InputFrame rf, df;
    int skipped;
    unsigned idx;
    char err[512];
};

int psnrhvs_pair_reader_open(PairReader **const out, Input *const ref, Input *const dist,
                             const PairReaderSettings *const s) {
    PairReader *const pr = calloc(1, sizeof(*pr));
    if (!pr) {
        fprintf(stderr, "psnrhvs: out of memory\n");
        return -1;
    }
    pr->ref = ref;
    pr->dist = dist;
    pr->s = *s;
    *out = pr;
    if (psnrhvs_input_frame_alloc(ref, &pr->rf) < 0 ||
        psnrhvs_input_frame_alloc(dist, &pr->df) < 0) {
        psnrhvs_pair_reader_close(out);
        return -1;
    }
    return 0;
}

static int fail(PairReader *const pr, const Input *const in) {
    snprintf(pr->err, sizeof(pr->err), "%s", psnrhvs_input_error(in));
    return -1;
}

int psnrhvs_pair_reader_next(PairReader *const pr, FramePair *const pair) {
    if (!pr->skipped) {
        pr->skipped = 1;
        for (unsigned i = 0; i < pr->s.skip_ref; i++) {
            const int res = psnrhvs_input_read(pr->ref, &pr->rf);
            if (res < 0) return fail(pr, pr->ref);
            if (!res) break;
        }
        for (unsigned i = 0; i < pr->s.skip_dist; i++) {
            const int res = psnrhvs_input_read(pr->dist, &pr->df);
            if (res < 0) return fail(pr, pr->dist);
            if (!res) break;
        }
    }
    if (pr->s.frame_cnt && pr->idx >= pr->s.frame_cnt) return 0;
    const int r1 = psnrhvs_input_read(pr->ref, &pr->rf);
    if (r1 < 0) return fail(pr, pr->ref);
    const int r2 = psnrhvs_input_read(pr->dist, &pr->df);
    if (r2 < 0) return fail(pr, pr->dist);
    if (!r1 || !r2) {
        if (r1 != r2 && !pr->s.quiet)
            fprintf(stderr, "psnrhvs: warning: %s ended before %s, after %u frames\n",
                    psnrhvs_input_name(r1 ? pr->dist : pr->ref),
                    psnrhvs_input_name(r1 ? pr->ref : pr->dist), pr->idx);
        return 0;
    }
    pair->ref = &pr->rf.pic;
    pair->dist = &pr->df.pic;
    pair->idx = pr->idx++;
    return 1;
}

void psnrhvs_pair_reader_release(PairReader *const pr) {}

const char *psnrhvs_pair_reader_error(const PairReader *const pr) {
    return pr->err;
}

void psnrhvs_pair_reader_close(PairReader **const pr_p) {
    PairReader *const pr = *pr_p;
    if (!pr) return;
    psnrhvs_input_frame_free(&pr->rf);
    psnrhvs_input_frame_free(&pr->df);
    free(pr);
    *pr_p = NULL;
}
