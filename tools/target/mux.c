/*
 * psnrhvs: target's muxer: one encoded stream into a file already open
 * (kept probes are created exclusively, --encode's output is the output
 * layer's temporary file), in the container its name asks for.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>

#include "target/target_int.h"

#define IO_SIZE (1 << 16)

struct Mux {
    FILE *f;
    int own; ///< f closed by mux_close
    AVFormatContext *fc;
    AVStream *st;
};

static int io_write(void *const opaque, uint8_t *const buf, const int size) {
    FILE *const f = opaque;
    return fwrite(buf, 1, (size_t)size, f) == (size_t)size ? size : AVERROR(EIO);
}

static int64_t io_seek(void *const opaque, const int64_t offset, const int whence) {
    FILE *const f = opaque;
    if (whence == AVSEEK_SIZE) {
        const long cur = ftell(f);
        if (cur < 0 || fseek(f, 0, SEEK_END)) return -1;
        const long end = ftell(f);
        return fseek(f, cur, SEEK_SET) ? -1 : end;
    }
    if (fseek(f, (long)offset, whence & ~AVSEEK_FORCE)) return -1;
    return ftell(f);
}

static void mux_free(Mux *const m) {
    if (m->fc && m->fc->pb) {
        av_freep(&m->fc->pb->buffer);
        avio_context_free(&m->fc->pb);
    }
    avformat_free_context(m->fc);
    if (m->own && m->f) fclose(m->f);
    free(m);
}

int mux_open(Mux **const out, FILE *const f, const int own, const char *const name,
             const AVCodecContext *const enc, char *const err, const size_t size) {
    char buf[64];
    Mux *const m = *out = calloc(1, sizeof(*m));
    if (!m) {
        if (own) fclose(f);
        return snprintf(err, size, "out of memory"), -1;
    }
    m->f = f, m->own = own;
    int r = avformat_alloc_output_context2(&m->fc, NULL, NULL, name);
    if (r < 0 || !m->fc) {
        snprintf(err, size, "FFmpeg writes no container named like %s: %s", name,
                 av_error(r, buf, sizeof(buf)));
        mux_free(m), *out = NULL;
        return -1;
    }
    uint8_t *const io = av_malloc(IO_SIZE);
    m->fc->pb = io ? avio_alloc_context(io, IO_SIZE, 1, f, NULL, io_write, io_seek) : NULL;
    m->st = m->fc->pb ? avformat_new_stream(m->fc, NULL) : NULL;
    if (!m->fc->pb) av_free(io);
    if (!m->st || avcodec_parameters_from_context(m->st->codecpar, enc) < 0) {
        snprintf(err, size, "out of memory");
        mux_free(m), *out = NULL;
        return -1;
    }
    m->fc->flags |= AVFMT_FLAG_BITEXACT; /* no random UIDs, no version: the same bytes each run */
    m->st->time_base = enc->time_base;
    m->st->avg_frame_rate = enc->framerate;
    if ((r = avformat_write_header(m->fc, NULL)) < 0) {
        snprintf(err, size, "cannot write a %s header for %s's stream to %s: %s",
                 m->fc->oformat->name, enc->codec->name, name, av_error(r, buf, sizeof(buf)));
        mux_free(m), *out = NULL;
        return -1;
    }
    return 0;
}

int mux_write(Mux *const m, AVPacket *const pkt, const AVCodecContext *const enc) {
    AVPacket *p = av_packet_clone(pkt);
    if (!p) return -1;
    av_packet_rescale_ts(p, enc->time_base, m->st->time_base);
    p->stream_index = m->st->index;
    const int r = av_interleaved_write_frame(m->fc, p);
    av_packet_free(&p);
    return r < 0 ? -1 : 0;
}

int mux_close(Mux **const pm, const int ok, char *const err, const size_t size) {
    Mux *const m = *pm;
    *pm = NULL;
    int ret = 0;
    if (ok) {
        const int r = av_write_trailer(m->fc);
        avio_flush(m->fc->pb);
        if (r < 0 || m->fc->pb->error || fflush(m->f) || ferror(m->f)) {
            snprintf(err, size, "cannot write the container");
            ret = -1;
        }
    }
    mux_free(m);
    return ret;
}
