/*
 * psnrhvs: what the score command's files (score.c, score_send.c,
 * score_write.c) share; private to them.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_SCORE_INT_H
#define PSNRHVS_TOOLS_SCORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "psnrhvs.h"
#include "cli_parse.h"
#include "input/input.h"
#include "input/pair_reader.h"
#include "output/output.h"

typedef struct LogState {
    _Atomic unsigned count; ///< scorers may open on several threads at once
    int mute;               ///< a probe whose failure is expected: count, do not print
    char last[1024];        ///< the last message muted
} LogState;

typedef struct Results {
    PsnrHvsFrameScore *frames;
    size_t num, cap;
} Results;

/* One distorted input (a rendition of a ladder when several -d are given). */
typedef struct Rendition {
    const char *path;
    Input *in;
    InputFormat fmt, read_fmt; ///< scored (the run's) and as read
    char out_name[4096], plot_name[4096];
    OutputFile *of, *plot_of;
    Results results;
} Rendition;

/* A frame in flight: its pictures (in the mapped files) where the range
 * check was left to the library, to name the sample when the library
 * refuses it; the holds of frames kept on the GPU, freed once scored. */
typedef struct SentFrame {
    PsnrHvsPicture ref, dist[PSNRHVS_MAX_RENDITIONS];
    unsigned idx, active;
    void *hold[1 + PSNRHVS_MAX_RENDITIONS];
} SentFrame;

typedef struct Scorer {
    PsnrHvsContext *ctx; ///< one context, over every scorer it spans (the library deals frames)
    int renditions;      ///< > 1: ladder calls
    uint64_t sent, received;
    double first;     ///< when the first score came back (--timing)
    uint64_t mark[2]; ///< scores whose arrival is timed (--timing: the steady state)
    double marked[2], last;
    double send_s, recv_s; ///< seconds in psnrhvs_send and psnrhvs_receive (--timing)
    /* A ring of the frames in flight, for deferred range checks
     * (input_defer_range_check: defer, with the inputs) and for
     * frames kept on the GPU (holds). */
    Input *ref_in, *dist_in[PSNRHVS_MAX_RENDITIONS];
    SentFrame *ring;
    size_t ring_size;
    int defer, holds;
} Scorer;

/** Seconds on the monotonic clock. */

/** Free the GPU frames a frame in flight held. */
void score_free_holds(SentFrame *f);

/** Take the oldest frame in flight. @return 0, EAGAIN (none) or an error (reported). */
int score_receive(Scorer *sc, Rendition *rend, LogState *log);

/** Queue one frame on its context, taking older frames back while it is full. */
int score_send(Scorer *sc, const FramePair *fp, Rendition *rend, LogState *log);

/** Several -d: each rendition's output and plot name (a usage error exits). */
int score_name_outputs(const CLISettings *cli, enum PsnrHvsScoreFormat format, Rendition *rend,
                       int n);

/** Write one rendition's plot and output, or its summary. @return 0 or -1 (reported). */
int score_write_rendition(Rendition *rd, Input *ref, const CLISettings *cli,
                          enum PsnrHvsScoreFormat format, const char *engine, double elapsed,
                          int labelled);

#endif /* PSNRHVS_TOOLS_SCORE_INT_H */
