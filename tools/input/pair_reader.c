/*
 * psnrhvs: reading a reference and its distorted inputs (one, or a ladder's
 * renditions) frame by frame, in frame order, on a thread of their own: it
 * fills a small ring of frames while the main thread sends and receives, so
 * file and pipe I/O overlap the scoring.
 *
 * The ring: slots [head, head + count) hold frames read and not yet released;
 * the reader fills slot head + count outside the lock (the main thread never
 * looks past count, and head + count does not change when it releases one),
 * then publishes it by count++ under the lock. The end of the input, or a
 * read error with its message, is queued after the last good frame, so the
 * main thread sees it only once it has taken every frame before it.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "msg.h"
#include "input/pair_reader.h"
#include "thread.h"

#define MAX_DEPTH 4
/* Fewer frames ahead for huge frames: the ring stays under this many bytes. */
#define MAX_RING_BYTES ((size_t)256 << 20)
#define MAX_DISTS      PSNRHVS_MAX_RENDITIONS

typedef struct PairSlot {
    InputFrame rf, df[MAX_DISTS];
    unsigned idx;
    unsigned active;
} PairSlot;

/* One input that ended before another: a warning at the end. */
typedef struct EndNote {
    const Input *ended, *longer;
    unsigned idx;
} EndNote;

struct PairReader {
    Input *ref, *dist[MAX_DISTS];
    int n;
    PairReaderSettings s;
    int depth;
    PairSlot slot[MAX_DEPTH];

    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t filled, freed;
    /* under lock */
    int head, count;
    int done;   ///< the reader has stopped; status follows the frames in the ring
    int status; ///< 0 end of input, -1 read error (err)
    int stop;   ///< the main thread asks the reader to stop
    /* written by the reader before done, read by the main thread after */
    EndNote notes[MAX_DISTS];
    int num_notes;
    double reading, waiting; ///< under lock: the reader's seconds reading, and waiting for room
    char err[512];
};

int pair_reader_open(PairReader **const out, Input *const ref, Input *const dist,
                     const PairReaderSettings *const s) {
    return pair_reader_open_n(out, ref, &dist, 1, s);
}

int pair_reader_open_n(PairReader **const out, Input *const ref, Input *const *const dists,
                       const int n, const PairReaderSettings *const s) {
    *out = NULL;
    if (n < 1 || n > MAX_DISTS) {
        fprintf(cli_err(), "psnrhvs: %d distorted inputs: 1 to %d are read\n", n, MAX_DISTS);
        return -1;
    }
    PairReader *const pr = calloc(1, sizeof(*pr));
    if (!pr) {
        fprintf(cli_err(), "psnrhvs: out of memory\n");
        return -1;
    }
    pr->ref = ref;
    pr->n = n;
    size_t frame_bytes = input_frame_bytes(ref);
    for (int r = 0; r < n; r++) {
        pr->dist[r] = dists[r];
        frame_bytes += input_frame_bytes(dists[r]);
    }
    pr->s = *s;
    pr->depth = MAX_DEPTH;
    while (pr->depth > 2 && (size_t)pr->depth * frame_bytes > MAX_RING_BYTES) pr->depth--;
    if (pthread_mutex_init(&pr->lock, NULL)) {
        free(pr);
        fprintf(cli_err(), "psnrhvs: cannot create the reader's lock\n");
        return -1;
    }
    *out = pr;
    pthread_cond_init(&pr->filled, NULL);
    pthread_cond_init(&pr->freed, NULL);
    for (int i = 0; i < pr->depth; i++) {
        int res = input_frame_alloc(ref, &pr->slot[i].rf);
        for (int r = 0; r < n && !res; r++) res = input_frame_alloc(dists[r], &pr->slot[i].df[r]);
        if (res < 0) {
            pair_reader_close(out);
            return -1;
        }
    }
    return 0;
}

static void finish(PairReader *const pr, const int status, const Input *const failed) {
    if (failed) snprintf(pr->err, sizeof(pr->err), "%s", input_error(failed));
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
    pthread_t thread;
    int threaded;
} SideRead;

static void *read_side(void *const arg) {
    SideRead *const r = arg;
    r->res = input_read(r->in, r->frame);
    return NULL;
}

static int stopping(PairReader *const pr) {
    pthread_mutex_lock(&pr->lock);
    const int stop = pr->stop;
    pthread_mutex_unlock(&pr->lock);
    return stop;
}

/* An encode's length differs: read the longer of the reference and distorted input r to
 * its end into frame (a slot not published) and queue an error giving both
 * counts. */
static void length_error(PairReader *const pr, const int r, const int ref_ended,
                         InputFrame *const frame) {
    Input *const longer = ref_ended ? pr->dist[r] : pr->ref;
    Input *const shorter = ref_ended ? pr->ref : pr->dist[r];
    int res;
    while ((res = input_read(longer, frame)) > 0) {
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
    const unsigned n_s = input_frames_read(shorter), n_l = input_frames_read(longer);
    const unsigned c_s = n_s > skip_s ? n_s - skip_s : 0, c_l = n_l > skip_l ? n_l - skip_l : 0;
    const int skipped = pr->s.skip_ref || pr->s.skip_dist;
    snprintf(pr->err, sizeof(pr->err),
             "the reference and the distorted differ in length: %s has %u frames%s, %s has %u; "
             "--frame_cnt %u scores the first %u",
             input_name(pr->ref), ref_ended ? c_s : c_l, skipped ? " after skipping" : "",
             input_name(pr->dist[r]), ref_ended ? c_l : c_s, c_s, c_s);
    finish(pr, -1, NULL);
}

/* pair_reader.h: the length rule of rendition r. */
static int strict_length(const PairReader *const pr, const int r) {
    return input_decoded(pr->ref) || input_decoded(pr->dist[r]);
}

static void note_end(PairReader *const pr, const Input *const ended, const Input *const longer,
                     const unsigned idx) {
    if (pr->num_notes < MAX_DISTS) pr->notes[pr->num_notes++] = (EndNote){ended, longer, idx};
}

static void *reader_thread(void *const arg) {
    PairReader *const pr = arg;
    /* Skipped frames go through slot 0: nothing is published yet. */
    for (unsigned i = 0; i < pr->s.skip_ref; i++) {
        const int res = input_read(pr->ref, &pr->slot[0].rf);
        if (res < 0) return finish(pr, -1, pr->ref), NULL;
        if (!res) break;
    }
    for (int r = 0; r < pr->n; r++) {
        for (unsigned i = 0; i < pr->s.skip_dist; i++) {
            const int res = input_read(pr->dist[r], &pr->slot[0].df[r]);
            if (res < 0) return finish(pr, -1, pr->dist[r]), NULL;
            if (!res) break;
        }
    }
    unsigned active = (1u << pr->n) - 1;
    for (unsigned idx = 0; !pr->s.frame_cnt || idx < pr->s.frame_cnt; idx++) {
        const double t0 = cli_now();
        pthread_mutex_lock(&pr->lock);
        while (pr->count == pr->depth && !pr->stop) pthread_cond_wait(&pr->freed, &pr->lock);
        const int stop = pr->stop;
        PairSlot *const sl = &pr->slot[(pr->head + pr->count) % pr->depth];
        pthread_mutex_unlock(&pr->lock);
        if (stop) break;
        const double t1 = cli_now();

        /* Every side is read at once, each distorted input on a thread: one
         * thread copies frames out of the page cache at a few GB/s, less
         * than a GPU backend scores. */
        SideRead dr[MAX_DISTS];
        for (int r = 0; r < pr->n; r++) {
            dr[r] = (SideRead){pr->dist[r], &sl->df[r], 0, 0, 0};
            if (!(active >> r & 1)) continue;
            dr[r].threaded = !cli_thread_start(&dr[r].thread, read_side, &dr[r]);
            if (!dr[r].threaded) read_side(&dr[r]);
        }
        const int r1 = input_read(pr->ref, &sl->rf);
        for (int r = 0; r < pr->n; r++)
            if (dr[r].threaded) pthread_join(dr[r].thread, NULL);
        if (r1 < 0) return finish(pr, -1, pr->ref), NULL;
        for (int r = 0; r < pr->n; r++)
            if (dr[r].res < 0) return finish(pr, -1, pr->dist[r]), NULL;
        if (!r1) {
            /* The reference ended: every rendition that had a frame more is longer. */
            for (int r = 0; r < pr->n; r++) {
                if (!(active >> r & 1) || !dr[r].res) continue;
                if (strict_length(pr, r) && idx) return length_error(pr, r, 1, &sl->df[r]), NULL;
                note_end(pr, pr->ref, pr->dist[r], idx);
            }
            break;
        }
        for (int r = 0; r < pr->n; r++) {
            if (!(active >> r & 1) || dr[r].res) continue;
            if (strict_length(pr, r) && idx) return length_error(pr, r, 0, &sl->rf), NULL;
            note_end(pr, pr->dist[r], pr->ref, idx);
            active &= ~(1u << r);
        }
        if (!active) break;
        sl->idx = idx;
        sl->active = active;
        const double t2 = cli_now();
        pthread_mutex_lock(&pr->lock);
        pr->waiting += t1 - t0;
        pr->reading += t2 - t1;
        pr->count++;
        pthread_cond_signal(&pr->filled);
        pthread_mutex_unlock(&pr->lock);
    }
    finish(pr, 0, NULL);
    return NULL;
}

int pair_reader_start(PairReader *const pr) {
    if (pr->started) return 0;
    const int err = cli_thread_start(&pr->thread, reader_thread, pr);
    if (err) {
        snprintf(pr->err, sizeof(pr->err), "cannot start the reader thread: %s", strerror(err));
        return -1;
    }
    pr->started = 1;
    return 0;
}

int pair_reader_next(PairReader *const pr, FramePair *const pair) {
    /* Started on first use unless asked before, so a failure before scoring
     * never waits on a pipe. */
    if (pair_reader_start(pr) < 0) return -1;
    pthread_mutex_lock(&pr->lock);
    while (!pr->count && !pr->done) pthread_cond_wait(&pr->filled, &pr->lock);
    if (pr->count) {
        const PairSlot *const sl = &pr->slot[pr->head];
        pthread_mutex_unlock(&pr->lock);
        pair->ref = &sl->rf.pic;
        for (int r = 0; r < pr->n; r++)
            pair->dists[r] = sl->active >> r & 1 ? &sl->df[r].pic : &sl->rf.pic;
        pair->dist = pair->dists[0];
        /* The ring's frames stay put until released: the main thread may take their holds. */
        PairSlot *const own = &pr->slot[pr->head];
        pair->holds[0] = &own->rf.hold;
        for (int r = 0; r < pr->n; r++)
            pair->holds[1 + r] = sl->active >> r & 1 ? &own->df[r].hold : NULL;
        pair->active = sl->active;
        pair->idx = sl->idx;
        return 1;
    }
    const int status = pr->status;
    pthread_mutex_unlock(&pr->lock);
    /* An input with no frame at all is the caller's one error line, not a warning. */
    for (int i = 0; !status && !pr->s.quiet && i < pr->num_notes; i++)
        if (pr->notes[i].idx)
            fprintf(cli_err(), "psnrhvs: warning: %s ended before %s, after %u frames\n",
                    input_name(pr->notes[i].ended), input_name(pr->notes[i].longer),
                    pr->notes[i].idx);
    pr->num_notes = 0; /* warn once */
    return status;
}

void pair_reader_times(PairReader *const pr, double *const reading, double *const waiting) {
    pthread_mutex_lock(&pr->lock);
    *reading = pr->reading;
    *waiting = pr->waiting;
    pthread_mutex_unlock(&pr->lock);
}

void pair_reader_release(PairReader *const pr) {
    pthread_mutex_lock(&pr->lock);
    pr->head = (pr->head + 1) % pr->depth;
    pr->count--;
    pthread_cond_signal(&pr->freed);
    pthread_mutex_unlock(&pr->lock);
}

const char *pair_reader_error(const PairReader *const pr) {
    return pr->err;
}

void pair_reader_close(PairReader **const pr_p) {
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
        input_frame_free(&pr->slot[i].rf);
        for (int r = 0; r < pr->n; r++) input_frame_free(&pr->slot[i].df[r]);
    }
    pthread_cond_destroy(&pr->filled);
    pthread_cond_destroy(&pr->freed);
    pthread_mutex_destroy(&pr->lock);
    free(pr);
    *pr_p = NULL;
}
