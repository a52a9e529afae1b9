/*
 * psnrhvs: reading reference and distorted frames in pairs, in frame order,
 * on a thread of their own: it fills a small ring of frame pairs while the
 * main thread sends and receives, so file and pipe I/O overlap the scoring.
 *
 * The ring: slots [head, head + count) hold pairs read and not yet released;
 * the reader fills slot head + count outside the lock (the main thread never
 * looks past count, and head + count does not change when it releases one),
 * then publishes it by count++ under the lock. The end of the input, or a
 * read error with its message, is queued after the last good pair, so the
 * main thread sees it only once it has taken every pair before it.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/pair_reader.h"

#define MAX_DEPTH 4
/* Fewer pairs ahead for huge frames: the ring stays under this many bytes. */
#define MAX_RING_BYTES ((size_t)256 << 20)

typedef struct PairSlot {
    InputFrame rf, df;
    unsigned idx;
} PairSlot;

struct PairReader {
    Input *ref, *dist;
    PairReaderSettings s;
    int depth;
    PairSlot slot[MAX_DEPTH];

    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t filled, freed;
    /* under lock */
    int head, count;
    int done;   ///< the reader has stopped; status follows the pairs in the ring
    int status; ///< 0 end of input, -1 read error (err)
    int stop;   ///< the main thread asks the reader to stop
    /* written by the reader before done, read by the main thread after */
    const Input *ended, *longer; ///< one side ended first (for the warning)
    unsigned end_idx;
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
    const size_t pair_bytes = psnrhvs_input_frame_bytes(ref) + psnrhvs_input_frame_bytes(dist);
    pr->depth = MAX_DEPTH;
    while (pr->depth > 2 && (size_t)pr->depth * pair_bytes > MAX_RING_BYTES) pr->depth--;
    *out = pr;
    if (pthread_mutex_init(&pr->lock, NULL)) {
        free(pr);
        *out = NULL;
        fprintf(stderr, "psnrhvs: cannot create the reader's lock\n");
        return -1;
    }
    pthread_cond_init(&pr->filled, NULL);
    pthread_cond_init(&pr->freed, NULL);
    for (int i = 0; i < pr->depth; i++) {
        if (psnrhvs_input_frame_alloc(ref, &pr->slot[i].rf) < 0 ||
            psnrhvs_input_frame_alloc(dist, &pr->slot[i].df) < 0) {
            psnrhvs_pair_reader_close(out);
            return -1;
        }
    }
    return 0;
}

static void finish(PairReader *const pr, const int status, const Input *const failed) {
    if (failed) snprintf(pr->err, sizeof(pr->err), "%s", psnrhvs_input_error(failed));
    pthread_mutex_lock(&pr->lock);
    pr->status = status;
    pr->done = 1;
    pthread_cond_signal(&pr->filled);
    pthread_mutex_unlock(&pr->lock);
}

typedef struct SideRead {
    Input *in;
    InputFrame *frame;
    int res;
} SideRead;

static void *read_side(void *const arg) {
    SideRead *const r = arg;
    r->res = psnrhvs_input_read(r->in, r->frame);
    return NULL;
}

static int stopping(PairReader *const pr) {
    pthread_mutex_lock(&pr->lock);
    const int stop = pr->stop;
    pthread_mutex_unlock(&pr->lock);
    return stop;
}

/* --strict_length: read the longer side to its end into frame (a slot not
 * published) and queue an error giving both counts. */
static void length_error(PairReader *const pr, const int ref_ended, InputFrame *const frame) {
    Input *const longer = ref_ended ? pr->dist : pr->ref;
    Input *const shorter = ref_ended ? pr->ref : pr->dist;
    int res;
    while ((res = psnrhvs_input_read(longer, frame)) > 0) {
        if (stopping(pr)) {
            finish(pr, 0, NULL);
            return;
        }
    }
    if (res < 0) {
        finish(pr, -1, longer);
        return;
    }
    const unsigned skip_s = ref_ended ? pr->s.skip_ref : pr->s.skip_dist;
    const unsigned skip_l = ref_ended ? pr->s.skip_dist : pr->s.skip_ref;
    const unsigned n_s = psnrhvs_input_frames_read(shorter),
                   n_l = psnrhvs_input_frames_read(longer);
    const unsigned c_s = n_s > skip_s ? n_s - skip_s : 0, c_l = n_l > skip_l ? n_l - skip_l : 0;
    const int skipped = pr->s.skip_ref || pr->s.skip_dist;
    snprintf(pr->err, sizeof(pr->err),
             "the reference and the distorted differ in length: %s has %u frames%s, %s has %u; "
             "--frame_cnt %u scores the first %u",
             psnrhvs_input_name(pr->ref), ref_ended ? c_s : c_l, skipped ? " after skipping" : "",
             psnrhvs_input_name(pr->dist), ref_ended ? c_l : c_s, c_s, c_s);
    finish(pr, -1, NULL);
}

static void *reader_thread(void *const arg) {
    PairReader *const pr = arg;
    /* Skipped frames go through slot 0: nothing is published yet. */
    for (unsigned i = 0; i < pr->s.skip_ref; i++) {
        const int res = psnrhvs_input_read(pr->ref, &pr->slot[0].rf);
        if (res < 0) return finish(pr, -1, pr->ref), NULL;
        if (!res) break;
    }
    for (unsigned i = 0; i < pr->s.skip_dist; i++) {
        const int res = psnrhvs_input_read(pr->dist, &pr->slot[0].df);
        if (res < 0) return finish(pr, -1, pr->dist), NULL;
        if (!res) break;
    }
    for (unsigned idx = 0; !pr->s.frame_cnt || idx < pr->s.frame_cnt; idx++) {
        pthread_mutex_lock(&pr->lock);
        while (pr->count == pr->depth && !pr->stop) pthread_cond_wait(&pr->freed, &pr->lock);
        const int stop = pr->stop;
        PairSlot *const sl = &pr->slot[(pr->head + pr->count) % pr->depth];
        pthread_mutex_unlock(&pr->lock);
        if (stop) break;

        /* The two sides are read at once: one thread copies frames out of the
         * page cache at a few GB/s, less than a GPU backend scores. */
        SideRead dr = {pr->dist, &sl->df, 0};
        pthread_t side;
        const int threaded = !pthread_create(&side, NULL, read_side, &dr);
        if (!threaded) read_side(&dr);
        const int r1 = psnrhvs_input_read(pr->ref, &sl->rf);
        if (threaded) pthread_join(side, NULL);
        const int r2 = dr.res;
        if (r1 < 0) return finish(pr, -1, pr->ref), NULL;
        if (r2 < 0) return finish(pr, -1, pr->dist), NULL;
        if (!r1 || !r2) {
            if (r1 != r2 && pr->s.strict_length && idx)
                return length_error(pr, !r1, r1 ? &sl->rf : &sl->df), NULL;
            if (r1 != r2) {
                pr->ended = r1 ? pr->dist : pr->ref;
                pr->longer = r1 ? pr->ref : pr->dist;
                pr->end_idx = idx;
            }
            break;
        }
        sl->idx = idx;
        pthread_mutex_lock(&pr->lock);
        pr->count++;
        pthread_cond_signal(&pr->filled);
        pthread_mutex_unlock(&pr->lock);
    }
    finish(pr, 0, NULL);
    return NULL;
}

int psnrhvs_pair_reader_next(PairReader *const pr, FramePair *const pair) {
    if (!pr->started) {
        /* Started on first use, so a failure before scoring never waits on a pipe. */
        if (pthread_create(&pr->thread, NULL, reader_thread, pr)) {
            snprintf(pr->err, sizeof(pr->err), "cannot start the reader thread");
            return -1;
        }
        pr->started = 1;
    }
    pthread_mutex_lock(&pr->lock);
    while (!pr->count && !pr->done) pthread_cond_wait(&pr->filled, &pr->lock);
    if (pr->count) {
        const PairSlot *const sl = &pr->slot[pr->head];
        pthread_mutex_unlock(&pr->lock);
        pair->ref = &sl->rf.pic;
        pair->dist = &sl->df.pic;
        pair->idx = sl->idx;
        return 1;
    }
    const int status = pr->status;
    pthread_mutex_unlock(&pr->lock);
    /* A side with no frame at all is the caller's one error line, not a warning. */
    if (!status && pr->ended && pr->end_idx && !pr->s.quiet)
        fprintf(stderr, "psnrhvs: warning: %s ended before %s, after %u frames\n",
                psnrhvs_input_name(pr->ended), psnrhvs_input_name(pr->longer), pr->end_idx);
    pr->ended = NULL; /* warn once */
    return status;
}

void psnrhvs_pair_reader_release(PairReader *const pr) {
    pthread_mutex_lock(&pr->lock);
    pr->head = (pr->head + 1) % pr->depth;
    pr->count--;
    pthread_cond_signal(&pr->freed);
    pthread_mutex_unlock(&pr->lock);
}

const char *psnrhvs_pair_reader_error(const PairReader *const pr) {
    return pr->err;
}

void psnrhvs_pair_reader_close(PairReader **const pr_p) {
    PairReader *const pr = *pr_p;
    if (!pr) return;
    if (pr->started) {
        /* A reader blocked in a read returns with that read; then it sees stop. */
        pthread_mutex_lock(&pr->lock);
        pr->stop = 1;
        pthread_cond_signal(&pr->freed);
        pthread_mutex_unlock(&pr->lock);
        pthread_join(pr->thread, NULL);
    }
    for (int i = 0; i < pr->depth; i++) {
        psnrhvs_input_frame_free(&pr->slot[i].rf);
        psnrhvs_input_frame_free(&pr->slot[i].df);
    }
    pthread_cond_destroy(&pr->filled);
    pthread_cond_destroy(&pr->freed);
    pthread_mutex_destroy(&pr->lock);
    free(pr);
    *pr_p = NULL;
}
