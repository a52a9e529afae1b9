/*
 * psnrhvs: opening inputs, probing the container, reading frames.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "msg.h"
#include "thread.h"
#include "input/convert.h"
#include "input/input.h"
#include "input/input_int.h"
#if HAVE_FFMPEG
#include "input/ffmpeg.h"
#endif

void stream_error(InputStream *const s, const char *const fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof(s->err), fmt, ap);
    va_end(ap);
}

size_t stream_read(InputStream *const s, void *const buf, const size_t size) {
    uint8_t *dst = buf;
    size_t done = 0;
    if (s->peek_pos < s->peek_len) {
        size_t n = s->peek_len - s->peek_pos;
        if (n > size) n = size;
        memcpy(dst, s->peek + s->peek_pos, n);
        s->peek_pos += n;
        done = n;
    }
    while (done < size) {
        const size_t n = fread(dst + done, 1, size - done, s->f);
        if (!n) break;
        done += n;
    }
    return done;
}

const char *sniff_compressed(const uint8_t *const data, const size_t size, const char *const path) {
    const char *const what = psnrhvs_file_probe(data, size, path);
    return what && strcmp(what, "Y4M") ? what : NULL;
}

int input_image_pattern(const char *const path) {
    /* frames/%05d.png: a printf-style number, as FFmpeg's image2 takes it */
    const char *const slash = strrchr(path, '/');
    const char *p = strchr(slash ? slash + 1 : path, '%');
    const char *const what = p ? psnrhvs_file_probe(NULL, 0, path) : NULL;
    if (!what || !strstr(what, "image")) return 0;
    for (p++; *p >= '0' && *p <= '9'; p++) {
    }
    return *p == 'd';
}

int input_file_error(Input *const in, const PsnrHvsFileStatus *const st) {
    stream_error(&in->s, "%s", st->message);
    return -1;
}

/* Probe and open the container of in->s (already opened); compressed inputs
 * are recognised by content and name, or from memory by name only (the
 * fuzzers' raw and Y4M bytes stay raw and Y4M, a .mkv goes to FFmpeg).
 * @return 0 or -1 with in->s.err set. */
static int open_stream(Input *const in, const char *const path, const int sniff) {
    /* Peek at the first bytes: stdin cannot seek back. */
    while (in->s.peek_len < sizeof(in->s.peek)) {
        const size_t n =
            fread(in->s.peek + in->s.peek_len, 1, sizeof(in->s.peek) - in->s.peek_len, in->s.f);
        if (!n) break;
        in->s.peek_len += n;
    }
    if (ferror(in->s.f)) {
        stream_error(&in->s, "cannot read %s: %s", in->s.name, strerror(errno));
        return -1;
    }

    /* Compressed (a container's magic, or its name): FFmpeg decodes it. Never
     * read as raw samples. From memory only the name says so (the fuzzers' raw
     * and Y4M bytes stay raw and Y4M, a .mkv goes to FFmpeg). */
    const char *what = psnrhvs_file_probe(in->s.peek, in->s.peek_len,
                                          !sniff              ? NULL
                                          : strcmp(path, "-") ? path
                                                              : NULL);
    if (!sniff && (!what || strcmp(what, "Y4M"))) what = psnrhvs_file_probe(NULL, 0, path);
    if (!what || !strcmp(what, "Y4M")) {
        PsnrHvsFileStatus st;
        if (psnrhvs_file_open_stream(&in->file, in->s.f, in->s.name, in->s.peek + in->s.peek_pos,
                                     in->s.peek_len - in->s.peek_pos, &st) < 0)
            return input_file_error(in, &st);
        in->s.peek_pos = in->s.peek_len; /* the library's now */
        PsnrHvsFileInfo info;
        psnrhvs_file_info(in->file, &info);
        in->has_format = info.y4m;
        in->nfmt = info.format;
        in->s.colour = info.colour;
        return 0;
    }
#if HAVE_FFMPEG
    in->dmx = &decoder_ffmpeg;
#else
    const char *const p = strcmp(path, "-") ? path : "INPUT";
    stream_error(&in->s,
                 "psnrhvs was built without FFmpeg: cannot decode %s (%s); convert it "
                 "to Y4M first with: ffmpeg -i %s -fps_mode passthrough -strict -1 -f "
                 "yuv4mpegpipe out.y4m",
                 in->s.name, what, p);
    return -1;
#endif
    if (in->dmx->priv_data_size && !(in->priv = calloc(1, in->dmx->priv_data_size))) {
        stream_error(&in->s, "out of memory");
        return -1;
    }
    const int res = in->dmx->open(in->priv, &in->s, &in->nfmt);
    if (res < 0) return -1;
    in->has_format = res;
    return 0;
}

/* frames/%05d.png: no stream of our own (s.f is NULL), FFmpeg's image2 reads the files. */
static int open_image_sequence(Input *const in, const char *const path) {
#if HAVE_FFMPEG
    in->dmx = &decoder_ffmpeg;
    if (!(in->priv = calloc(1, in->dmx->priv_data_size))) {
        stream_error(&in->s, "out of memory");
        return -1;
    }
    const int res = in->dmx->open(in->priv, &in->s, &in->nfmt);
    if (res < 0) return -1;
    in->has_format = res;
    return 0;
#else
    stream_error(&in->s,
                 "psnrhvs was built without FFmpeg: cannot decode the image sequence %s; "
                 "convert it to Y4M first with: ffmpeg -i %s -strict -1 -f yuv4mpegpipe "
                 "out.y4m",
                 path, path);
    return -1;
#endif
}

int input_open(Input **const in_out, const char *const path, const InputOptions *const opt) {
    Input *in = calloc(1, sizeof(*in));
    if (!in) {
        fprintf(cli_err(), "psnrhvs: out of memory\n");
        return -1;
    }
    if (opt) in->opt = *opt;
    in->s.opt = &in->opt;
    in->s.name = path;
    if (input_image_pattern(path) && access(path, F_OK)) {
        /* An image sequence: no file of that name; FFmpeg opens each one. */
        if (open_image_sequence(in, path) < 0) {
            fprintf(cli_err(), "psnrhvs: %s\n", in->s.err);
            input_close(&in);
            return -1;
        }
        *in_out = in;
        return 0;
    }
    if (!strcmp(path, "-")) {
        in->s.f = stdin;
        in->s.name = "stdin";
    } else if (!(in->s.f = fopen(path, "rb"))) {
        fprintf(cli_err(), "psnrhvs: cannot open %s: %s\n", path, strerror(errno));
        free(in);
        return -1;
    }
    if (open_stream(in, path, 1) < 0) {
        fprintf(cli_err(), "psnrhvs: %s\n", in->s.err);
        input_close(&in);
        return -1;
    }
    input_try_map(in, path);
    *in_out = in;
    return 0;
}

/* One input of input_open_many(), opened on a thread of its own: its
 * messages wait in memory to be printed in the inputs' order. */
typedef struct Opening {
    Input *in;
    const char *path;
    const InputOptions *opt;
    FILE *msg;
    char *text;
    size_t len;
    int res;
    double ms;
    pthread_t th;
    int started;
} Opening;

static void open_timed(Opening *const o) {
    const double t0 = cli_now();
    o->res = input_open(&o->in, o->path, o->opt);
    o->ms = (cli_now() - t0) * 1e3;
}

static void *open_one(void *const arg) {
    Opening *const o = arg;
    cli_msg_set(o->msg, NULL);
    open_timed(o);
    return NULL;
}

int input_open_many(Input **const in, const char *const *const path,
                    const InputOptions *const *const opt, const int n, double *const ms) {
    Opening o[1 + INPUT_MAX_OPEN];
    if (n < 1 || n > 1 + INPUT_MAX_OPEN) return -1;
    int together = n > 1;
    for (int i = 0; i < n; i++) together &= strcmp(path[i], "-") != 0;
    for (int i = 0; i < n; i++) {
        in[i] = NULL;
        o[i] = (Opening){.path = path[i], .opt = opt[i], .res = -1};
        /* Input 0 on this thread, its messages as they come. */
        if (!together || !i) continue;
        o[i].msg = open_memstream(&o[i].text, &o[i].len);
        o[i].started = o[i].msg && !cli_thread_start(&o[i].th, open_one, &o[i]);
    }
    /* Input 0, and any whose thread did not start, here. */
    for (int i = 0; i < n; i++)
        if (!o[i].started) open_timed(&o[i]);
    for (int i = 0; i < n; i++)
        if (o[i].started) pthread_join(o[i].th, NULL);
    /* As one after the other would have: the messages up to the first that
     * fails, every input closed then. */
    int failed = 0;
    for (int i = 0; i < n; i++) {
        if (o[i].msg) {
            fclose(o[i].msg);
            if (!failed && o[i].len) fwrite(o[i].text, 1, o[i].len, cli_err());
            free(o[i].text);
        }
        failed |= o[i].res < 0;
        if (ms) ms[i] = o[i].ms;
    }
    for (int i = 0; i < n; i++) {
        if (failed)
            input_close(&o[i].in);
        else
            in[i] = o[i].in;
    }
    return failed ? -1 : 0;
}

int input_open_mem(Input **const in_out, const char *const name, const void *const data,
                   const size_t size, char *const err, const size_t err_size) {
    Input *in = calloc(1, sizeof(*in));
    if (!in) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    in->s.opt = &in->opt;
    in->s.name = name;
    /* fmemopen does not write through a "rb" stream; the cast only drops const. */
    if (!(in->s.f = fmemopen((void *)(uintptr_t)data, size, "rb"))) {
        snprintf(err, err_size, "cannot open %s: %s", name, strerror(errno));
        free(in);
        return -1;
    }
    if (open_stream(in, name, 0) < 0) {
        snprintf(err, err_size, "%s", in->s.err);
        input_close(&in);
        return -1;
    }
    *in_out = in;
    return 0;
}

int input_has_format(const Input *const in, InputFormat *const fmt) {
    if (in->has_format) *fmt = in->nfmt;
    return in->has_format;
}

void input_colour(const Input *const in, InputColour *const c) {
    *c = in->s.colour;
}

/* ffmpeg's name of the limited-range format with fmt's layout and depth. */
static const char *limited_pix_fmt(const InputFormat *const fmt, char *const buf,
                                   const size_t size) {
    const char *const layout = layout_name(fmt->layout);
    if (fmt->layout == PSNRHVS_PIXEL_LAYOUT_I400)
        snprintf(buf, size, "gray%s",
                 fmt->bitdepth > 8 ? (fmt->bitdepth > 10 ? "12le" : "10le") : "");
    else if (fmt->bitdepth > 8)
        snprintf(buf, size, "yuv%sp%dle", layout, fmt->bitdepth);
    else
        snprintf(buf, size, "yuv%sp", layout);
    return buf;
}

int input_colour_check(const Input *const ref, const Input *const dist, const int error,
                       const int quiet) {
    InputColour rc = ref->s.colour, dc = dist->s.colour;
    /* Full range stated by the format (a JPEG, yuvj420p) against an input
     * that declares no range, which as video is limited range: a mismatch
     * too, where a range that is only a tag says nothing. */
    const Input *const full = ref->s.range_by[0] && !dc.range[0]    ? ref
                              : dist->s.range_by[0] && !rc.range[0] ? dist
                                                                    : NULL;
    if (full) snprintf(full == ref ? dc.range : rc.range, sizeof(rc.range), "undeclared");
    PsnrHvsFileStatus st;
    const int res = psnrhvs_colour_compare(ref->s.name, &rc, dist->s.name, &dc, error, &st);
    if (res < 0 || (res && !quiet)) {
        /* How to make them alike: the side whose format states full range (a
         * JPEG's) converted to limited range. A range only tagged (Y4M's
         * XCOLORRANGE) gets the library's words alone, as in Python. */
        const Input *const conv = strcmp(rc.range, "full") && !strcmp(dc.range, "full")   ? dist
                                  : !strcmp(rc.range, "full") && strcmp(dc.range, "full") ? ref
                                                                                          : NULL;
        char pf[32], hint[8448] = "";
        if (conv && conv->has_format && conv->s.range_by[0])
            snprintf(hint, sizeof(hint),
                     "; %s is full range%s%s%s: to score it as limited-range video, convert it: "
                     "ffmpeg -i %s -vf scale=out_range=tv,format=%s OUT.y4m",
                     conv->s.name, conv->s.range_by[0] ? " (" : "", conv->s.range_by,
                     conv->s.range_by[0] ? ")" : "", conv->s.name,
                     limited_pix_fmt(&conv->nfmt, pf, sizeof(pf)));
        fprintf(cli_err(), "psnrhvs: %s%s%s\n", res < 0 ? "" : "warning: ", st.message, hint);
    }
    return res < 0 ? -1 : 0;
}

const char *input_name(const Input *const in) {
    return in->s.name;
}

void input_set_role(Input *const in, const char *const role) {
    in->role = role;
}

int input_decoded(const Input *const in) {
    return in->dmx && in->dmx->samples_native;
}

const char *input_decoded_on(const Input *const in) {
    return in->dmx && in->dmx->decoded_on ? in->dmx->decoded_on(in->priv) : NULL;
}

long long input_frames_left(const Input *const in) {
    if (in->dmx) return in->dmx->frames_left(in->priv, in->frames_read);
    struct stat st;
    const int fd = fileno(in->s.f);
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) return -1;
    PsnrHvsFileInfo info;
    psnrhvs_file_info(in->file, &info);
    const size_t per_frame = in->ngeo.frame_bytes + info.frame_header_bytes;
    if (!per_frame) return -1;
    const long long pos =
        in->map ? (long long)in->map_pos : (long long)psnrhvs_file_offset(in->file);
    const long long left = (long long)st.st_size - pos;
    return left > 0 ? left / (long long)per_frame : 0;
}

int input_set_format(Input *const in, const InputFormat *const fmt) {
    return input_set_formats(in, fmt, fmt);
}

int input_set_formats(Input *const in, const InputFormat *const read,
                      const InputFormat *const fmt) {
    /* What the container described stays the format read. */
    const InputFormat native = read && !in->has_format ? *read : in->has_format ? in->nfmt : *fmt;
    if (plane_geometry(fmt, &in->geo) < 0 || plane_geometry(&native, &in->ngeo) < 0) {
        fprintf(cli_err(), "psnrhvs: invalid frame geometry %dx%d for %s\n", fmt->width,
                fmt->height, in->s.name);
        return -1;
    }
    in->nfmt = native;
    in->fmt = *fmt;
    if (in->file) psnrhvs_file_set_format(in->file, &native, NULL); /* valid: checked above */
    converter_close(&in->conv);
    input_frame_free(&in->scratch);
    if (native.width == fmt->width && native.height == fmt->height &&
        native.layout == fmt->layout && native.bitdepth == fmt->bitdepth)
        return 0;
    char err[256];
    if (converter_open(&in->conv, &native, fmt, in->opt.scale_algo, err, sizeof(err)) < 0) {
        fprintf(cli_err(), "psnrhvs: %s: %s\n", in->s.name, err);
        return -1;
    }
    in->scratch.buf = malloc(in->ngeo.frame_bytes ? in->ngeo.frame_bytes : 1);
    if (!in->scratch.buf) {
        fprintf(cli_err(), "psnrhvs: out of memory\n");
        return -1;
    }
    psnrhvs_picture_layout(&in->ngeo, in->scratch.buf, &in->scratch.pic);
    return 0;
}

size_t input_frame_bytes(const Input *const in) {
    return in->geo.frame_bytes;
}

int input_frame_buffer(const Input *const in, InputFrame *const frame) {
    /* 16-bit planes are read into place and used as uint16_t: calloc aligns them. */
    frame->buf = calloc(1, in->geo.frame_bytes ? in->geo.frame_bytes : 1);
    if (!frame->buf) return -1;
    psnrhvs_picture_layout(&in->geo, frame->buf, &frame->pic);
    return 0;
}

int input_frame_alloc(const Input *const in, InputFrame *const frame) {
    frame->hold = NULL;
    frame->buf = NULL;
    memset(&frame->pic, 0, sizeof(frame->pic));
    /* Frames scored where they are (a mapped file, a GPU) get a buffer when
     * one must be copied: zeroing the reader's slots cost a batch of short
     * jobs 3 % of its time in page faults (bench/RESULTS.md, 2026-12-05). */
    if ((in->map || in->on_device) && !in->conv) return 0;
    if (input_frame_buffer(in, frame) < 0) {
        fprintf(cli_err(), "psnrhvs: cannot allocate %zu bytes for a frame of %s\n",
                in->geo.frame_bytes, in->s.name);
        return -1;
    }
    return 0;
}

void input_frame_free(InputFrame *const frame) {
    free(frame->buf);
    frame->buf = NULL;
    input_hold_free(frame->hold);
    frame->hold = NULL;
}

void input_hold_free(void *const hold) {
#if HAVE_FFMPEG
    if (hold) ffmpeg_hold_free(hold);
#else
    (void)hold;
#endif
}

int input_device_frames(const Input *const in, DeviceFrames *const df) {
    memset(df, 0, sizeof(*df));
    if (in->conv || !in->dmx || !in->dmx->device_frames || !in->dmx->read_device) return 0;
    return in->dmx->device_frames(in->priv, df);
}

void input_keep_on_device(Input *const in) {
    DeviceFrames df;
    in->on_device = input_device_frames(in, &df);
}

/* Samples above 2^bitdepth - 1 would overflow libvmaf's integer DCT (undefined
 * behaviour there, NaN or negative dB here): a message naming the first one
 * of frame `frame` (its packed 16-bit samples at buf). 0 when none is. */
static int range_message(const Input *const in, const uint8_t *const buf, const unsigned frame,
                         char *const msg, const size_t size) {
    const unsigned max = (1u << in->nfmt.bitdepth) - 1;
    const uint16_t *const samples = (const uint16_t *)(const void *)buf;
    const size_t n = in->ngeo.frame_bytes / 2;
    /* max is all ones: the OR of the samples exceeds it only if one does.
     * OR-ed 8 bytes at a time, then the four lanes folded: this scan runs
     * on the reader thread for every frame, at memory speed. */
    uint64_t acc = 0;
    const size_t words = in->ngeo.frame_bytes / 8;
    for (size_t w = 0; w < words; w++) {
        uint64_t v;
        memcpy(&v, buf + 8 * w, 8);
        acc |= v;
    }
    unsigned any = (unsigned)((acc | acc >> 16 | acc >> 32 | acc >> 48) & 0xffff);
    for (size_t i = words * 4; i < n; i++) any |= samples[i];
    if (any <= max) return 0;
    static const char *const plane_names[3] = {"Y", "Cb", "Cr"};
    size_t i = 0;
    while (samples[i] <= max) i++;
    int p = 0;
    size_t start = 0;
    while (i >= start + in->ngeo.plane_bytes[p] / 2) start += in->ngeo.plane_bytes[p++] / 2;
    const size_t at = i - start, w = (size_t)in->ngeo.stored_w[p];
    /* "in the reference ref.yuv", or "in ref.yuv" without a role */
    char where[600];
    snprintf(where, sizeof(where), "%s%s%s%s", in->role ? "the " : "", in->role ? in->role : "",
             in->role ? " " : "", in->s.name);
    snprintf(msg, size,
             "sample out of range in %s, frame %u: %s plane x=%zu y=%zu is %u, above the %d-bit "
             "maximum %u",
             where, frame, plane_names[p], at % w, at / w, (unsigned)samples[i], in->nfmt.bitdepth,
             max);
    return 1;
}

int input_check_sample_range(Input *const in, const uint8_t *const buf) {
    char msg[sizeof(in->s.err)];
    if (!range_message(in, buf, in->frames_read, msg, sizeof(msg))) return 0;
    stream_error(&in->s, "%s", msg);
    return -1;
}

void input_defer_range_check(Input *const in) {
    in->defer_range = input_in_place(in) && in->ngeo.bytes_per_sample == 2;
}

int input_range_message(const Input *const in, const PsnrHvsPicture *const pic,
                        const unsigned frame, char *const msg, const size_t size) {
    if (in->ngeo.bytes_per_sample != 2) return 0;
    return range_message(in, pic->data[0], frame, msg, size);
}

int input_read(Input *const in, InputFrame *const frame) {
    if (in->map) return input_mapped_read(in, frame);
    if (in->on_device) {
        input_hold_free(frame->hold);
        frame->hold = NULL;
        const int res =
            in->dmx->read_device(in->priv, &in->s, &frame->pic, &frame->hold, in->frames_read);
        if (res <= 0) return res;
        in->frames_read++;
        return 1;
    }
    /* Converted frames are read into the scratch frame first. Samples come
     * in native byte order from the library and from decoders alike. */
    uint8_t *const buf = in->conv ? in->scratch.buf : frame->buf;
    PsnrHvsFileStatus st;
    const int res =
        in->file ? psnrhvs_file_read(in->file, buf, NULL, &st)
                 : in->dmx->read(in->priv, &in->s, buf, in->ngeo.frame_bytes, in->frames_read);
    if (res < 0 && in->file) return input_file_error(in, &st);
    if (res <= 0) return res < 0 ? -1 : 0;
    if (in->ngeo.bytes_per_sample == 2 && input_check_sample_range(in, buf) < 0) return -1;
    if (in->conv && converter_run(in->conv, &in->scratch.pic, &frame->pic) < 0) {
        stream_error(&in->s, "cannot convert frame %u of %s", in->frames_read, in->s.name);
        return -1;
    }
    in->frames_read++;
    return 1;
}

const char *input_error(const Input *const in) {
    return in->s.err;
}

unsigned input_frames_read(const Input *const in) {
    return in->frames_read;
}

void input_mark_scored(Input *const in) {
    in->s.scored = 1;
}

void input_close(Input **const in_p) {
    Input *const in = *in_p;
    if (!in) return;
    if (in->dmx && in->dmx->close && in->priv) in->dmx->close(in->priv);
    converter_close(&in->conv);
    input_frame_free(&in->scratch);
    free(in->priv);
    psnrhvs_file_close(&in->file);
    if (in->map) input_unmap(in);
    if (in->s.f && in->s.f != stdin) fclose(in->s.f);
    free(in);
    *in_p = NULL;
}

int check_bitdepth(const int bitdepth, char *const msg, const size_t size) {
    PsnrHvsFileStatus st;
    if (!psnrhvs_check_bitdepth(bitdepth, &st)) return 0;
    snprintf(msg, size, "%s", st.message);
    return -1;
}
