/*
 * psnrhvs: the packets of one sample's encode, from the thread that feeds
 * its encoder to the thread that decodes and scores them: the encoder's
 * threads need their next frame while the last packet is being decoded.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <pthread.h>
#include <stdlib.h>

#include "target/target_int.h"

struct PacketQueue {
    pthread_mutex_t lock;
    pthread_cond_t more;
    AVPacket **pkt; ///< a ring of cap, count from head
    int head, count, cap;
    int ended;   ///< the writer put its last
    int aborted; ///< the reader stopped
};

PacketQueue *pktq_new(void) {
    PacketQueue *const q = calloc(1, sizeof(*q));
    if (!q) return NULL;
    if (pthread_mutex_init(&q->lock, NULL)) return free(q), NULL;
    if (pthread_cond_init(&q->more, NULL)) {
        pthread_mutex_destroy(&q->lock);
        return free(q), NULL;
    }
    return q;
}

static int grow(PacketQueue *const q) {
    const int cap = q->cap ? 2 * q->cap : 64;
    AVPacket **const p = malloc(sizeof(*p) * (size_t)cap);
    if (!p) return -1;
    for (int i = 0; i < q->count; i++) p[i] = q->pkt[(q->head + i) % q->cap];
    free(q->pkt);
    q->pkt = p, q->cap = cap, q->head = 0;
    return 0;
}

int pktq_put(PacketQueue *const q, const AVPacket *const pkt) {
    AVPacket *p = NULL;
    if (pkt && (!(p = av_packet_alloc()) || av_packet_ref(p, pkt) < 0)) {
        av_packet_free(&p);
        return -1;
    }
    pthread_mutex_lock(&q->lock);
    int ret = q->aborted ? -1 : 0;
    if (ret == 0 && !pkt)
        q->ended = 1;
    else if (ret == 0 && (q->count < q->cap || grow(q) == 0))
        q->pkt[(q->head + q->count++) % q->cap] = p, p = NULL;
    else
        ret = -1;
    pthread_cond_signal(&q->more);
    pthread_mutex_unlock(&q->lock);
    av_packet_free(&p);
    return ret;
}

int pktq_get(PacketQueue *const q, AVPacket **const pkt) {
    pthread_mutex_lock(&q->lock);
    while (!q->count && !q->ended) pthread_cond_wait(&q->more, &q->lock);
    *pkt = NULL;
    if (q->count) {
        *pkt = q->pkt[q->head];
        q->head = (q->head + 1) % q->cap;
        q->count--;
    }
    pthread_mutex_unlock(&q->lock);
    return *pkt ? 1 : 0;
}

void pktq_abort(PacketQueue *const q) {
    pthread_mutex_lock(&q->lock);
    q->aborted = 1;
    pthread_mutex_unlock(&q->lock);
}

void pktq_free(PacketQueue **const pq) {
    PacketQueue *const q = *pq;
    if (!q) return;
    for (int i = 0; i < q->count; i++) av_packet_free(&q->pkt[(q->head + i) % q->cap]);
    free(q->pkt);
    pthread_cond_destroy(&q->more);
    pthread_mutex_destroy(&q->lock);
    free(q);
    *pq = NULL;
}
