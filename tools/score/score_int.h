/*
 * psnrhvs: what the score command's stages share, private to tools/score/:
 * one Run through the stages of score.c (open_inputs.c, agree_format.c,
 * open_outputs.c, open_context.c, send_receive.c, write_scores.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_SCORE_SCORE_INT_H
#define PSNRHVS_TOOLS_SCORE_SCORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <pthread.h>
#include <stdio.h>

#include "clock.h"
#include "psnrhvs.h"
#include "cli_parse.h"
#include "input/input.h"
#include "input/pair_reader.h"
#include "output/output.h"
#include "score.h"

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

/* The folders -o DIR/ (--plot DIR/) of a ladder makes: dir, down from its
 * first missing part (top bytes long), taken away again if the run fails. */
typedef struct MadeDir {
    char *dir;
    size_t top;
} MadeDir;

/* The context opens on a thread of its own while the reader reads the first
 * frames (open_context.c). */
typedef struct Opener {
    PsnrHvsSettings s;
    const ScoreEnv *env;
    PsnrHvsContext *ctx;
    int res;
    double done; ///< when it was open (--timing)
    pthread_t thread;
    int started;
    LogState *log; ///< the run's: messages of the opening count and go where its others go
    FILE *err;
} Opener;

/* One run of the score command, from the flags to the files written. */
typedef struct Run {
    CLISettings cli;
    PsnrHvsSettings lib;
    const ScoreEnv *env;
    LogState log;
    LogState *outer_log; ///< the thread's run before this one (a batch job's)
    enum PsnrHvsScoreFormat format;
    int n, ladder; ///< distorted inputs; several: a ladder
    Input *ref;
    Rendition *rend;
    InputFormat fmt, ref_fmt; ///< scored, and the reference as read
    int all_files;            ///< every input a regular file: read before the scorers open
    MadeDir made[2];          ///< -o DIR/, --plot DIR/
    PsnrHvsDevice devices[PSNRHVS_MAX_DEVICES];
    int on_gpu, defer_range;
    long long total; ///< frames expected, or -1
    PairReader *pr;
    Opener opener;
    Scorer sc;
    unsigned frames; ///< pairs read
    double elapsed;  ///< the scoring's seconds
    /* --timing */
    double t0, t_open_start, t_first_frame, wait_s, in_ms[1 + PSNRHVS_MAX_RENDITIONS];
} Run;

/* A run of cli's inputs with lib's settings (messages into the run's log
 * from here on); NULL when out of memory (reported). */
Run *run_new(const CLISettings *cli, const PsnrHvsSettings *lib, const ScoreEnv *env);
/* Everything the run holds closed; the outputs not committed are dropped.
 * @return ret. */
int run_free(Run *run, int ret);

/* The stages, in order; each returns 0 or the exit status (1: an error,
 * reported; 2: a usage error). */
int run_open_inputs(Run *run);
int run_agree_format(Run *run);
int run_open_outputs(Run *run);
int run_prepare(Run *run); ///< the settings and the pair reader: parity starts here
/** NVDEC's frames would be scored where they are (cuda, or auto: one GPU, no parity). */
int run_scores_device_frames(const CLISettings *cli, const PsnrHvsSettings *lib);
int run_open_context(Run *run); ///< while the first frames are read
int run_send_receive(Run *run);
int run_write(Run *run);

/* The run's log: library messages counted (no second line for a failure
 * they explained) and printed (open_context.c). */
void run_log_enter(Run *run);
void run_log_leave(Run *run);
/* A batch job's context goes back to its pool; else it is closed. */
void run_close_context(const ScoreEnv *e, PsnrHvsContext **c);
/* Folders made for a failed run's outputs go again (open_outputs.c). */
void run_remove_made_dirs(Run *run, int failed);
/* A mapped input cut short while its frames were in flight. @return 1 if so (reported). */
int run_mapping_lost(const Run *run);

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

#endif /* PSNRHVS_TOOLS_SCORE_SCORE_INT_H */
