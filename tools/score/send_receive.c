/*
 * psnrhvs: the score command's frames in flight: sending them to the
 * library's context, taking their scores back, and the ring that keeps what
 * a frame in flight still needs (its pictures, its GPU frames).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psnrhvs.h"
#include "input/input.h"
#include "input/pair_reader.h"
#include "msg.h"
#include "score_int.h"

/* "1:02:03" or "2:03" */
static const char *clock_time(char *const buf, const size_t size, const double seconds) {
    const unsigned long s = seconds < 0       ? 0
                            : seconds > 3.6e8 ? 360000000ul
                                              : (unsigned long)seconds;
    if (s >= 3600)
        snprintf(buf, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, size, "%lu:%02lu", s / 60, s % 60);
    return buf;
}

/* One line, rewritten in place; "\033[K" clears what a longer line left. */
static void progress(const unsigned frames, const long long total, const double start,
                     const int final) {
    const double elapsed = cli_now() - start;
    const double fps = elapsed > 0 ? frames / elapsed : 0.0;
    char t[32];
    cli_progress_line(0); /* rewritten, not ended */
    FILE *const f = cli_err();
    if (final)
        fprintf(f, "\rpsnrhvs: %u frames, %.1f fps, %s\033[K\n", frames, fps,
                clock_time(t, sizeof(t), elapsed));
    else if (total >= (long long)frames && fps > 0)
        fprintf(f, "\rpsnrhvs: frame %u/%lld, %.1f fps, ETA %s\033[K", frames, total, fps,
                clock_time(t, sizeof(t), (double)(total - (long long)frames) / fps));
    else
        fprintf(f, "\rpsnrhvs: frame %u, %.1f fps\033[K", frames, fps);
    fflush(f);
    if (!final && f == stderr) cli_progress_line(1);
}

static int results_reserve(Results *const r, const size_t n) {
    if (n <= r->cap) return 0;
    size_t cap = r->cap ? r->cap * 2 : 64;
    while (cap < n) cap *= 2;
    PsnrHvsFrameScore *const f = realloc(r->frames, cap * sizeof(*f));
    if (!f) {
        fprintf(cli_err(), "psnrhvs: out of memory\n");
        return -1;
    }
    r->frames = f;
    r->cap = cap;
    return 0;
}

void score_free_holds(SentFrame *const f) {
    for (int k = 0; k <= PSNRHVS_MAX_RENDITIONS; k++) {
        input_hold_free(f->hold[k]);
        f->hold[k] = NULL;
    }
}

/* The frame the library refused: the read path's message for its first
 * sample out of range, if that is why. */
static int deferred_range_message(const Scorer *const sc, const SentFrame *const f) {
    char msg[1024];
    int found = input_range_message(sc->ref_in, &f->ref, f->idx, msg, sizeof(msg));
    for (int r = 0; r < sc->renditions && !found; r++)
        if (f->active >> r & 1)
            found = input_range_message(sc->dist_in[r], &f->dist[r], f->idx, msg, sizeof(msg));
    if (found) fprintf(cli_err(), "psnrhvs: %s\n", msg);
    return found;
}

/* The tag carries the frame number and which renditions have a frame in it. */
static uint64_t make_tag(const unsigned idx, const unsigned active) {
    return (uint64_t)idx | (uint64_t)active << 32;
}

/* Take the oldest frame in flight. @return 0, EAGAIN (none) or an error (reported). */
int score_receive(Scorer *const sc, Rendition *const rend, LogState *const log) {
    if (sc->received == sc->sent) return PSNRHVS_ERR(EAGAIN);
    PsnrHvsContext *const c = sc->ctx;
    PsnrHvsScore out[PSNRHVS_MAX_RENDITIONS];
    const unsigned before = log->count;
    const int mute = log->mute;
    if (sc->defer) log->mute = 1, log->last[0] = '\0';
    const double t0 = cli_now();
    const int res = sc->renditions > 1 ? psnrhvs_receive_ladder(c, out) : psnrhvs_receive(c, out);
    const double t = cli_now();
    sc->recv_s += t - t0;
    log->mute = mute;
    /* Scored (or refused): the GPU frames it read may be reused. */
    if (sc->holds) score_free_holds(&sc->ring[sc->received % sc->ring_size]);
    if (res < 0) {
        const int named =
            sc->defer && deferred_range_message(sc, &sc->ring[sc->received % sc->ring_size]);
        if (!named && sc->defer && log->last[0])
            fprintf(cli_err(), "psnrhvs: %s\n", log->last);
        else if (!named && log->count == before)
            fprintf(cli_err(), "psnrhvs: scoring failed: %s\n", strerror(-res));
        return res == PSNRHVS_ERR(EAGAIN) ? PSNRHVS_ERR(EIO) : res;
    }
    if (!sc->received) sc->first = t;
    if (sc->defer) { /* the frames before this one are done with */
        const SentFrame *const f = &sc->ring[sc->received % sc->ring_size];
        input_done_below(sc->ref_in, f->ref.data[0]);
        for (int r = 0; r < sc->renditions; r++)
            if (f->active >> r & 1) input_done_below(sc->dist_in[r], f->dist[r].data[0]);
    }
    sc->received++;
    for (int i = 0; i < 2; i++)
        if (sc->received == sc->mark[i]) sc->marked[i] = t;
    sc->last = t;
    const unsigned idx = (unsigned)(out[0].tag & 0xffffffffu);
    const unsigned active = (unsigned)(out[0].tag >> 32);
    for (int r = 0; r < sc->renditions; r++) {
        if (!(active >> r & 1)) continue;
        Results *const rs = &rend[r].results;
        if (results_reserve(rs, rs->num + 1) < 0) return PSNRHVS_ERR(ENOMEM);
        rs->frames[rs->num].frame_num = idx;
        rs->frames[rs->num].score = out[r];
        rs->frames[rs->num].score.tag = idx;
        rs->num++;
    }
    return 0;
}

/* Queue one frame on its context, taking older frames back while it is full. */
int score_send(Scorer *const sc, const FramePair *const fp, Rendition *const rend,
               LogState *const log) {
    PsnrHvsContext *const c = sc->ctx;
    const uint64_t tag = make_tag(fp->idx, fp->active);
    PsnrHvsPicture dist[PSNRHVS_MAX_RENDITIONS];
    for (int r = 0; r < sc->renditions && sc->renditions > 1; r++) dist[r] = *fp->dists[r];
    if (sc->defer) {
        SentFrame *const f = &sc->ring[sc->sent % sc->ring_size];
        f->ref = *fp->ref;
        for (int r = 0; r < sc->renditions; r++) f->dist[r] = *fp->dists[r];
        f->idx = fp->idx;
        f->active = fp->active;
    }
    for (;;) {
        const unsigned before = log->count;
        const double t0 = cli_now();
        const int res = sc->renditions > 1 ? psnrhvs_send_ladder(c, fp->ref, dist, tag)
                                           : psnrhvs_send(c, fp->ref, fp->dist, tag);
        sc->send_s += cli_now() - t0;
        if (!res) {
            /* The library reads GPU frames until the frame is received. */
            if (sc->holds) {
                SentFrame *const f = &sc->ring[sc->sent % sc->ring_size];
                for (int k = 0; k <= sc->renditions; k++)
                    if (fp->holds[k]) f->hold[k] = *fp->holds[k], *fp->holds[k] = NULL;
            }
            break;
        }
        if (res != PSNRHVS_ERR(EAGAIN)) {
            if (log->count == before)
                fprintf(cli_err(), "psnrhvs: scoring frame %u failed: %s\n", fp->idx,
                        strerror(-res));
            return -1;
        }
        const int rres = score_receive(sc, rend, log);
        if (rres == PSNRHVS_ERR(EAGAIN)) {
            fprintf(cli_err(), "psnrhvs: the scorer is full with nothing queued\n");
            return -1;
        }
        if (rres < 0) return -1;
    }
    sc->sent++;
    return 0;
}

/* --timing: where start-up and the frames' time went (bench/cli_gpu.sh reads it). */
static void timing_lines(Run *const run) {
    const Scorer *const sc = &run->sc;
    const double t0 = run->t0;
    char each[16 * (1 + PSNRHVS_MAX_RENDITIONS)] = "";
    for (int i = 0, k = 0; i <= run->n && k >= 0 && (size_t)k < sizeof(each); i++)
        k += snprintf(each + k, sizeof(each) - (size_t)k, " %.1f", run->in_ms[i]);
    fprintf(cli_err(),
            "psnrhvs: timing: inputs and outputs open %.1f ms (each input, at once:%s ms), "
            "scorers open %.1f ms (%s so far, on their thread), first frame read %.1f ms, "
            "first score %.1f ms, all %.1f ms (from start)\n",
            (run->t_open_start - t0) * 1e3, each, (run->opener.done - run->t_open_start) * 1e3,
            psnrhvs_backend_name(sc->ctx), (run->t_first_frame - t0) * 1e3, (sc->first - t0) * 1e3,
            (cli_now() - t0) * 1e3);
    double reading, waiting;
    pair_reader_times(run->pr, &reading, &waiting);
    fprintf(cli_err(),
            "psnrhvs: timing: frames: waiting for the reader %.1f ms, in send %.1f ms, in "
            "receive %.1f ms; the reader reading %.1f ms, waiting for room %.1f ms\n",
            run->wait_s * 1e3, sc->send_s * 1e3, sc->recv_s * 1e3, reading * 1e3, waiting * 1e3);
    fprintf(cli_err(), "psnrhvs: timing: scorers at the end: %s\n", psnrhvs_backend_name(sc->ctx));
    if (sc->marked[0] > 0 && sc->marked[1] > 0)
        fprintf(cli_err(),
                "psnrhvs: timing: scores: %llu received at %.1f ms, %llu at %.1f ms, %llu at "
                "%.1f ms (from start)\n",
                (unsigned long long)sc->mark[0], (sc->marked[0] - t0) * 1e3,
                (unsigned long long)sc->mark[1], (sc->marked[1] - t0) * 1e3,
                (unsigned long long)sc->received, (sc->last - t0) * 1e3);
}

int run_send_receive(Run *const run) {
    const CLISettings *const cli = &run->cli;
    const ScoreEnv *const e = run->env;
    Scorer *const sc = &run->sc;
    const int show_progress = !cli->quiet && isatty(fileno(stderr));
    if (e->progress) e->progress(e->cookie, 0, run->total);
    const double start = cli_now();
    double last_progress = start;
    unsigned idx = 0;
    FramePair fp;
    int read_res;
    double t_wait = cli_now();
    while ((read_res = pair_reader_next(run->pr, &fp)) > 0) {
        run->wait_s += cli_now() - t_wait;
        if (!run->t_first_frame) run->t_first_frame = cli_now();
        idx = fp.idx;
        /* Keep frames in flight: send until the queue is full, then take the oldest. */
        if (idx % cli->subsample == 0 && score_send(sc, &fp, run->rend, &run->log) < 0) return 1;
        if (run_mapping_lost(run)) return 1;
        pair_reader_release(run->pr);
        idx++;
        if (e->cancel && *e->cancel) {
            fprintf(cli_err(), "psnrhvs: interrupted\n");
            return 1;
        }
        if (show_progress || e->progress) {
            const double t = cli_now();
            if (t - last_progress >= 0.25) {
                if (show_progress) progress(idx, run->total, start, 0);
                if (e->progress) e->progress(e->cookie, idx, run->total);
                last_progress = t;
            }
        }
        t_wait = cli_now();
    }
    /* The frames before a read error are scored first: errors come in frame order. */
    for (;;) {
        const int res = score_receive(sc, run->rend, &run->log);
        if (res == PSNRHVS_ERR(EAGAIN)) break;
        if (res < 0) return 1;
    }
    /* The library read retained frames until now. */
    if (run_mapping_lost(run)) return 1;
    if (read_res < 0) {
        fprintf(cli_err(), "psnrhvs: %s\n", pair_reader_error(run->pr));
        return 1;
    }
    run->elapsed = cli_now() - start;
    run->frames = idx;
    if (cli->timing) timing_lines(run);
    if (show_progress && idx) progress(idx, run->total, start, 1);
    if (e->progress) e->progress(e->cookie, idx, run->total);
    return 0;
}
