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

#include "psnrhvs.h"
#include "input/input.h"
#include "input/pair_reader.h"
#include "msg.h"
#include "score_int.h"

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
