/*
 * psnrhvs: target's samples: a few segments spread over the source, each
 * starting at a scene change where one is near, read once through the
 * input layer and kept in memory while the search runs.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _DEFAULT_SOURCE 1 /* madvise */
#include <libavformat/avformat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/input.h"
#include "target/target_int.h"

/* Mean absolute luma difference between two frames, every 4th sample of
 * every 4th row, on the 8-bit scale, above which a frame starts a scene. */
#define SCENE_CUT 24.0

/* The frame rate the container or Y4M header declares (FFmpeg reads both),
 * 0 when none (raw video). */
static void declared_fps(const char *const path, int *const num, int *const den) {
    AVFormatContext *fc = NULL;
    *num = *den = 0;
    if (avformat_open_input(&fc, path, NULL, NULL) < 0) return;
    if (avformat_find_stream_info(fc, NULL) >= 0) {
        const int i = av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
        if (i >= 0) {
            AVRational r = fc->streams[i]->avg_frame_rate;
            if (r.num <= 0 || r.den <= 0) r = fc->streams[i]->r_frame_rate;
            if (r.num > 0 && r.den > 0) *num = r.num, *den = r.den;
        }
    }
    avformat_close_input(&fc);
}

static int source_format(const TargetArgs *const a, Input *const in, Source *const s) {
    if (!input_has_format(in, &s->fmt)) {
        if (!a->width || !a->height) {
            fprintf(stderr, "psnrhvs: target: %s is raw video: give its size with -w and -h\n",
                    a->source);
            return -1;
        }
        s->fmt = (PsnrHvsFormat){a->width, a->height,
                                 a->have_layout ? a->layout : PSNRHVS_PIXEL_LAYOUT_I420,
                                 a->bitdepth ? a->bitdepth : 8};
    } else if ((a->width && a->width != s->fmt.width) ||
               (a->height && a->height != s->fmt.height) ||
               (a->bitdepth && a->bitdepth != s->fmt.bitdepth) ||
               (a->have_layout && a->layout != s->fmt.layout)) {
        fprintf(stderr, "psnrhvs: target: %s declares %dx%d %s %d-bit, not what the flags say\n",
                a->source, s->fmt.width, s->fmt.height, layout_name(s->fmt.layout),
                s->fmt.bitdepth);
        return -1;
    }
    if (psnrhvs_geometry(&s->fmt, &s->geo) < 0 || input_set_format(in, &s->fmt) < 0) return -1;
    if (a->fps_num)
        s->fps_num = a->fps_num, s->fps_den = a->fps_den;
    else if (input_has_format(in, &(PsnrHvsFormat){0}))
        declared_fps(a->source, &s->fps_num, &s->fps_den);
    if (!s->fps_num) s->fps_num = 25, s->fps_den = 1; /* FFmpeg's rawvideo default */
    struct stat st;
    s->file_bytes = !stat(a->source, &st) && S_ISREG(st.st_mode) ? (long long)st.st_size : 0;
    return 0;
}

/* Where each sample would start, before scene changes: k segments of len
 * frames centred in k equal parts of the clip. */
static void plan(const TargetArgs *const a, Source *const s, const long long n, int *const len,
                 int *const window, long long *const start) {
    const double fps = (double)s->fps_num / s->fps_den;
    long long l = (long long)(a->sample_seconds * fps + 0.5);
    if (l < 1) l = 1;
    int k = a->samples;
    if (!k) {
        const int by_length = (int)(n / fps / 10.0);
        k = by_length < 3 ? 3 : by_length > 8 ? 8 : by_length;
    }
    if (a->full || n < 0 || (long long)k * l >= n) {
        s->num_samples = 1;
        start[0] = 0;
        *len = n < 0 || n > INT32_MAX ? INT32_MAX : (int)n;
        *window = 0;
        return;
    }
    s->num_samples = k;
    *len = (int)l;
    const long long part = n / k;
    const long long w = part - l < l / 2 ? part - l : l / 2;
    *window = w > 0 ? (int)w : 0;
    for (int i = 0; i < k; i++) {
        long long st = i * part + (part - l - *window) / 2;
        start[i] = st < 0 ? 0 : st;
    }
}

static double luma_diff(const Source *const s, const uint8_t *const a, const uint8_t *const b) {
    const int w = s->geo.stored_w[0], h = s->geo.stored_h[0], bps = s->geo.bytes_per_sample;
    double sum = 0;
    long long cnt = 0;
    for (int y = 0; y < h; y += 4)
        for (int x = 0; x < w; x += 4, cnt++) {
            const size_t o = (size_t)y * w + x;
            const int va = bps == 1 ? a[o] : ((const uint16_t *)a)[o];
            const int vb = bps == 1 ? b[o] : ((const uint16_t *)b)[o];
            sum += va > vb ? va - vb : vb - va;
        }
    return cnt ? sum / cnt / (1 << (s->fmt.bitdepth - 8)) : 0;
}

/* Of the frames read for a sample (win[0] at planned start), the scene
 * change nearest the start within the window, else the start itself. */
static int cut_in(const Source *const s, uint8_t **const win, const int got, const int window) {
    int best = 0;
    double best_diff = SCENE_CUT;
    for (int i = 1; i <= window && i < got; i++) {
        const double d = luma_diff(s, win[i - 1], win[i]);
        if (d > best_diff) best = i, best_diff = d;
    }
    return best;
}

static void copy_frame(const Source *const s, const InputFrame *const f, uint8_t *p) {
    for (int pl = 0; pl < s->geo.num_planes; pl++) {
        const size_t row = (size_t)s->geo.stored_w[pl] * s->geo.bytes_per_sample;
        for (int y = 0; y < s->geo.stored_h[pl]; y++, p += row)
            memcpy(p, (const uint8_t *)f->pic.data[pl] + (ptrdiff_t)y * f->pic.stride[pl], row);
    }
}

int source_copy_frame(const Source *const s, const InputFrame *const f, uint8_t **const out) {
    uint8_t *const buf = malloc(s->geo.frame_bytes);
    if (!buf) return -1;
    copy_frame(s, f, buf);
    *out = buf;
    return 0;
}

/* A sample's frames in one block that the kernel may back with 2 MiB pages:
 * faulting a 1080p source in 4 KiB at a time was most of reading it. Frames
 * past the block (a length not known, or longer than said) are allocated
 * on their own. */
#define HUGE_PAGE ((size_t)2 << 20)
static void block_alloc(const Source *const s, Sample *const sm, const long long frames) {
    sm->block = NULL, sm->block_frames = 0;
    if (frames <= 0 || frames > INT32_MAX || (size_t)frames > SIZE_MAX / 2 / s->geo.frame_bytes)
        return;
    const size_t bytes = ((size_t)frames * s->geo.frame_bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *b = NULL;
    if (posix_memalign(&b, HUGE_PAGE, bytes)) return;
#ifdef MADV_HUGEPAGE
    madvise(b, bytes, MADV_HUGEPAGE);
#endif
    sm->block = b, sm->block_frames = (int)frames;
}

static int in_block(const Source *const s, const Sample *const sm, const uint8_t *const p) {
    return sm->block && p >= sm->block &&
           p < sm->block + (size_t)sm->block_frames * s->geo.frame_bytes;
}

/* Frame k of a sample being read: in its block, else allocated. */
static uint8_t *frame_at(const Source *const s, const Sample *const sm, const int k) {
    return k < sm->block_frames ? sm->block + (size_t)k * s->geo.frame_bytes
                                : malloc(s->geo.frame_bytes);
}

/* A frame not kept: a block's whole pages within it go back to the system. */
static void frame_drop(const Source *const s, const Sample *const sm, uint8_t *const frame) {
    if (!in_block(s, sm, frame)) {
        free(frame);
        return;
    }
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const uintptr_t a = ((uintptr_t)frame + page - 1) & ~(uintptr_t)(page - 1);
    const uintptr_t b = ((uintptr_t)frame + s->geo.frame_bytes) & ~(uintptr_t)(page - 1);
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}

static void sample_free(const Source *const s, Sample *const sm, uint8_t **const frames,
                        const int n) {
    for (int k = 0; frames && k < n; k++)
        if (!in_block(s, sm, frames[k])) free(frames[k]);
    free(sm->block);
    sm->block = NULL, sm->block_frames = 0;
}

/* Grow a frame list to hold at least n. */
static int reserve(uint8_t ***const list, int *const cap, const int n) {
    if (n <= *cap) return 0;
    const int c = n > 2 * *cap ? n : 2 * *cap;
    uint8_t **const l = realloc(*list, sizeof(**list) * (size_t)c);
    if (!l) return -1;
    *list = l;
    *cap = c;
    return 0;
}

/* Next frame into f: 1, 0 at the end, -1 on error (reported). */
static int next(Input *const in, InputFrame *const f, int *const eof) {
    const int r = *eof ? 0 : input_read(in, f);
    if (r < 0) fprintf(stderr, "psnrhvs: target: %s\n", input_error(in));
    if (r == 0) *eof = 1;
    return r;
}

/* Keep len frames of win from its cut as sample sm; drop the others. */
static int keep_sample(Source *const s, Sample *const sm, uint8_t **const win, const int got,
                       const int len, const int window, const long long start) {
    const int cut = cut_in(s, win, got, window);
    const int keep = got - cut < len ? got - cut : len;
    sm->start = start + cut;
    sm->ref = malloc(sizeof(*sm->ref) * (size_t)(keep ? keep : 1));
    if (!sm->ref) {
        sample_free(s, sm, win, got);
        return -1;
    }
    for (int k = 0; k < got; k++)
        if (k >= cut && k < cut + keep)
            sm->ref[k - cut] = win[k];
        else
            frame_drop(s, sm, win[k]);
    sm->frames = keep;
    s->sample_frames += keep;
    return 0;
}

/* Read the frames, keeping each sample's: sample i reads len + window
 * frames from its planned start and keeps len from its cut. */
static int read_samples(Input *const in, Source *const s, const int len, const int window,
                        long long *const start) {
    InputFrame f;
    if (input_frame_alloc(in, &f) < 0) return -1;
    uint8_t **win = NULL;
    int cap = 0, ret = 0, eof = 0, r = 0;
    long long pos = 0;
    const int want = len > INT32_MAX - window ? INT32_MAX : len + window;
    for (int i = 0; i < s->num_samples && ret == 0; i++) {
        while (pos < start[i] && (r = next(in, &f, &eof)) > 0) pos++;
        int got = 0;
        Sample *const sm = &s->sample[i];
        block_alloc(s, sm, want < INT32_MAX ? want : s->frames);
        while (r >= 0 && got < want && (r = next(in, &f, &eof)) > 0) {
            pos++;
            if (reserve(&win, &cap, got + 1) < 0 || !(win[got] = frame_at(s, sm, got))) {
                r = -1;
                fprintf(stderr, "psnrhvs: target: out of memory for the source's frames\n");
                break;
            }
            copy_frame(s, &f, win[got++]);
        }
        if (r < 0) {
            sample_free(s, sm, win, got);
            ret = -1;
        } else if (keep_sample(s, sm, win, got, len, window, start[i]) < 0) {
            fprintf(stderr, "psnrhvs: target: out of memory for the source's frames\n");
            ret = -1;
        }
        if (i + 1 < s->num_samples && start[i + 1] < pos) start[i + 1] = pos; /* no overlap */
    }
    /* The whole source's length: counted where the file was read to its end. */
    if (eof || s->frames < 0) s->frames = pos;
    free(win);
    input_frame_free(&f);
    return ret;
}

void source_free(Source *const s) {
    for (int i = 0; i < s->num_samples; i++) {
        sample_free(s, &s->sample[i], s->sample[i].ref, s->sample[i].frames);
        free(s->sample[i].ref);
    }
    memset(s, 0, sizeof(*s));
}

/* Samples with no frame (a source shorter than its length said) are dropped. */
static void drop_empty(Source *const s) {
    int n = 0;
    for (int i = 0; i < s->num_samples; i++) {
        if (s->sample[i].frames)
            s->sample[n++] = s->sample[i];
        else
            free(s->sample[i].ref), sample_free(s, &s->sample[i], NULL, 0);
    }
    s->num_samples = n;
}

int source_load(const TargetArgs *const a, Source *const s) {
    memset(s, 0, sizeof(*s));
    Input *in = NULL;
    if (input_open(&in, a->source, NULL) < 0) return -1;
    input_set_role(in, "source");
    if (source_format(a, in, s) < 0) {
        input_close(&in);
        return -1;
    }
    s->frames = input_frames_left(in);
    int len, window;
    long long start[TARGET_MAX_SAMPLES];
    plan(a, s, s->frames, &len, &window, start);
    int ret = read_samples(in, s, len, window, start);
    input_close(&in);
    drop_empty(s);
    if (ret == 0 && !s->sample_frames) {
        fprintf(stderr, "psnrhvs: target: %s has no frames\n", a->source);
        ret = -1;
    }
    if (ret < 0) source_free(s);
    return ret;
}

int source_reopen(const TargetArgs *const a, const Source *const s, Input **const in) {
    if (input_open(in, a->source, NULL) < 0) return -1;
    input_set_role(*in, "source");
    if (input_set_format(*in, &s->fmt) < 0) {
        input_close(in);
        return -1;
    }
    return 0;
}
