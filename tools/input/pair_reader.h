/*
 * psnrhvs: reading a reference and one or more distorted inputs (a ladder's
 * renditions) frame by frame, in frame order.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_PAIR_READER_H
#define PSNRHVS_TOOLS_INPUT_PAIR_READER_H

#include "input/input.h"

typedef struct PairReaderSettings {
    unsigned skip_ref, skip_dist; ///< frames dropped from the start of each side
    unsigned frame_cnt;           ///< pairs to read at most, 0: all
    int quiet;                    ///< no warning when one side ends first
} PairReaderSettings;
/* A rendition and the reference of different lengths (before frame_cnt)
 * are an error giving both counts (the longer side read to its end to count
 * them) when either of the two is decoded (an encode with a frame more or
 * less is misaligned), else a warning; each rendition by its own inputs. */

/**
 * One reference frame and the frames of the distorted inputs; the pictures
 * stay valid until pair_reader_release(). A distorted input that
 * ended before the others (the reference, and the other renditions, go on)
 * has its bit clear in active, and dists[r] points at the reference picture.
 */
typedef struct FramePair {
    const PsnrHvsPicture *ref, *dist; ///< dist: dists[0]
    const PsnrHvsPicture *dists[PSNRHVS_MAX_RENDITIONS];
    unsigned active; ///< bit r: rendition r has a frame here
    unsigned idx;    ///< frame number after skipping
    /* Frames kept on the GPU: [0] the reference's InputFrame.hold, [1 + r]
     * rendition r's (NULL where it has no frame). Take one by setting it
     * to NULL; one left is freed when the slot is read into again. */
    void **holds[1 + PSNRHVS_MAX_RENDITIONS];
} FramePair;

typedef struct PairReader PairReader;

/** Both inputs must have their format set. @return 0 or -1 (reported on stderr). */
int pair_reader_open(PairReader **pr, Input *ref, Input *dist, const PairReaderSettings *s);

/** The same with n distorted inputs (1..PSNRHVS_MAX_RENDITIONS), each read on its own thread. */
int pair_reader_open_n(PairReader **pr, Input *ref, Input *const *dists, int n,
                       const PairReaderSettings *s);

/**
 * Start reading now (else the first pair_reader_next() starts it):
 * the first frames are read while the caller opens the scorer. Only for
 * inputs that cannot block (files): closing waits for a read under way.
 */
int pair_reader_start(PairReader *pr);

/**
 * The next pair. Release the previous one first.
 * @return 1 (a pair), 0 (end; the warning for one side ending first is
 *         printed, unless no pair was read), -1 (a read error: pair_reader_error() says
 * which, not printed yet, so the caller can first finish the frames before it).
 */
int pair_reader_next(PairReader *pr, FramePair *pair);

/** Seconds the reader spent reading frames, and waiting for room in its ring. */
void pair_reader_times(PairReader *pr, double *reading, double *waiting);

/** Done with the pair from pair_reader_next(). */
void pair_reader_release(PairReader *pr);

/** The read error of a -1 from pair_reader_next(), without "psnrhvs: ". */
const char *pair_reader_error(const PairReader *pr);

void pair_reader_close(PairReader **pr);

#endif /* PSNRHVS_TOOLS_INPUT_PAIR_READER_H */
