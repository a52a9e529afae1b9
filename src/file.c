/*
 * psnrhvs: raw planar YUV and YUV4MPEG2 files, read from a stream or located
 * in a caller's mapping. Only the C library: no signals, no mmap.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"

#define Y4M_MAGIC     "YUV4MPEG2 "
#define Y4M_MAGIC_LEN 10
/* FFmpeg writes about 60 bytes; anything this long is not a Y4M header. */
#define Y4M_MAX_LINE 4096

struct PsnrHvsFile {
    FILE *f;
    int own; ///< opened here: closed here
    char *name;
    uint8_t *look; ///< bytes read ahead of the stream (the caller's head, the magic)
    size_t look_len, look_pos;
    uint64_t offset;
    unsigned frames;
    int has_format;
    PsnrHvsFileInfo info;
};

void psh_status(PsnrHvsFileStatus *const st, const enum PsnrHvsFileError e, const int errnum,
                const char *const fmt, ...) {
    if (!st) return;
    st->error = e;
    st->errnum = errnum;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->message, sizeof(st->message), fmt, ap);
    va_end(ap);
}

const char *psh_visible(char *const buf, const size_t size, const char *const s) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && n + 5 < size; p++) {
        if (*p >= 0x20 && *p < 0x7f)
            buf[n++] = (char)*p;
        else if (*p == '\r')
            n += (size_t)snprintf(buf + n, size - n, "\\r");
        else if (*p == '\t')
            n += (size_t)snprintf(buf + n, size - n, "\\t");
        else
            n += (size_t)snprintf(buf + n, size - n, "\\x%02x", *p);
    }
    if (size) buf[n < size ? n : size - 1] = '\0';
    return buf;
}

static size_t stream_read(PsnrHvsFile *const f, void *const buf, const size_t size) {
    uint8_t *const dst = buf;
    size_t done = 0;
    if (f->look_pos < f->look_len) {
        done = f->look_len - f->look_pos < size ? f->look_len - f->look_pos : size;
        memcpy(dst, f->look + f->look_pos, done);
        f->look_pos += done;
    }
    while (done < size) {
        const size_t n = fread(dst + done, 1, size - done, f->f);
        if (!n) break;
        done += n;
    }
    f->offset += done;
    return done;
}

static int read_error(PsnrHvsFile *const f, PsnrHvsFileStatus *const st) {
    const int e = errno ? errno : EIO;
    psh_status(st, PSNRHVS_FILE_ERROR_IO, e, "cannot read %s: %s", f->name, strerror(e));
    return PSNRHVS_ERR(e);
}

/*
 * One line (without its '\n', nor a '\r' before it: a CR LF header from a text
 * tool reads the same). @return its length, -1 at end of file before any
 * byte, -2 when it ends without '\n', -3 when too long.
 */
static int read_line(PsnrHvsFile *const f, char *const line, const int max) {
    int len = 0;
    for (;;) {
        uint8_t c;
        if (stream_read(f, &c, 1) != 1) return len ? -2 : -1;
        if (c == '\n') break;
        if (len == max - 1) return -3;
        line[len++] = (char)c;
    }
    if (len && line[len - 1] == '\r') len--;
    line[len] = '\0';
    return len;
}

/* A strictly decimal, positive int: no sign, no spaces, no overflow. */
static int parse_dimension(const char *const str, int *const out) {
    if (!*str) return -1;
    long long v = 0;
    for (const char *p = str; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > INT_MAX) return -2;
    }
    if (!v) return -1;
    *out = (int)v;
    return 0;
}

/* C tags as FFmpeg writes them: 420jpeg, 420p10, 422p12, 444, mono, mono10 ... */
static int parse_colorspace(const PsnrHvsFile *const f, const char *const tag,
                            PsnrHvsFormat *const fmt, PsnrHvsFileStatus *const st) {
    char shown[128];
    /* The tags are the layouts' names (format.c), but Y4M's "mono" for 400. */
    for (int l = 0; psnrhvs_layout_string((enum PsnrHvsPixelLayout)l); l++) {
        const enum PsnrHvsPixelLayout layout = (enum PsnrHvsPixelLayout)l;
        const int is_mono = layout == PSNRHVS_PIXEL_LAYOUT_I400;
        const char *const prefix = is_mono ? "mono" : psnrhvs_layout_string(layout);
        const size_t len = strlen(prefix);
        if (strncmp(tag, prefix, len)) continue;
        const char *rest = tag + len;
        int depth = 8;
        if (!*rest) {
            /* 8-bit, chroma siting implied */
        } else if (layout == PSNRHVS_PIXEL_LAYOUT_I420 &&
                   (!strcmp(rest, "jpeg") || !strcmp(rest, "mpeg2") || !strcmp(rest, "paldv"))) {
            /* 8-bit 4:2:0 with a chroma siting: siting does not change the samples */
        } else {
            if (!is_mono && *rest++ != 'p') break;
            if (parse_dimension(rest, &depth) < 0) break;
        }
        PsnrHvsFileStatus why;
        if (psnrhvs_check_bitdepth(depth, &why) < 0) {
            psh_status(st, PSNRHVS_FILE_ERROR_UNSUPPORTED, 0, "%s (C%s in %s)", why.message,
                       psh_visible(shown, sizeof(shown), tag), f->name);
            return -1;
        }
        fmt->layout = layout;
        fmt->bitdepth = depth;
        return 0;
    }
    psh_status(st, PSNRHVS_FILE_ERROR_MALFORMED, 0,
               "malformed Y4M %s: unsupported C tag 'C%s' (expected 420jpeg, 420mpeg2, "
               "420paldv, 420, 422, 444, mono or their p10/p12 forms)",
               f->name, psh_visible(shown, sizeof(shown), tag));
    return -1;
}

static int parse_header(PsnrHvsFile *const f, PsnrHvsFileStatus *const st) {
    char magic[Y4M_MAGIC_LEN];
    char line[Y4M_MAX_LINE];
    stream_read(f, magic, Y4M_MAGIC_LEN); /* probed: it is there */
    const int len = read_line(f, line, sizeof(line));
    if (len == -3) {
        psh_status(st, PSNRHVS_FILE_ERROR_MALFORMED, 0,
                   "malformed Y4M %s: header too long (over %d bytes)", f->name, Y4M_MAX_LINE);
        return -1;
    }
    if (len < 0) {
        psh_status(st, PSNRHVS_FILE_ERROR_MALFORMED, 0,
                   "malformed Y4M %s: header does not end with a newline", f->name);
        return -1;
    }
    /* A NUL would end the line for the parser below: the tags after it unread. */
    if (memchr(line, '\0', (size_t)len)) {
        psh_status(st, PSNRHVS_FILE_ERROR_MALFORMED, 0,
                   "malformed Y4M %s: a NUL byte in the header", f->name);
        return -1;
    }
    PsnrHvsFormat *const fmt = &f->info.format;
    *fmt = (PsnrHvsFormat){.layout = PSNRHVS_PIXEL_LAYOUT_I420, .bitdepth = 8};
    int have_w = 0, have_h = 0;
    for (char *tok = line, *next; tok; tok = next) {
        next = strchr(tok, ' ');
        if (next) *next++ = '\0';
        if (!*tok) continue;
        const char *const val = tok + 1;
        const int is_w = *tok == 'W';
        switch (*tok) {
        case 'W':
        case 'H': {
            int *const dim = is_w ? &fmt->width : &fmt->height;
            const int res = parse_dimension(val, dim);
            if (res == -2 || (!res && *dim > PSNRHVS_MAX_DIMENSION)) {
                psh_status(st, PSNRHVS_FILE_ERROR_LIMIT, 0, "%s in %s exceeds the maximum of %d",
                           is_w ? "width" : "height", f->name, PSNRHVS_MAX_DIMENSION);
                return -1;
            }
            if (res < 0) {
                char shown[128];
                psh_status(st, PSNRHVS_FILE_ERROR_MALFORMED, 0, "malformed Y4M %s: bad %c tag '%s'",
                           f->name, *tok, psh_visible(shown, sizeof(shown), tok));
                return -1;
            }
            *(is_w ? &have_w : &have_h) = 1;
            break;
        }
        case 'C':
            if (parse_colorspace(f, val, fmt, st) < 0) return -1;
            break;
        case 'X':
            /* XCOLORRANGE is compared with the other input's range; the
             * samples are scored as they are. */
            if (!strcmp(val, "COLORRANGE=FULL"))
                snprintf(f->info.colour.range, sizeof(f->info.colour.range), "full");
            else if (!strcmp(val, "COLORRANGE=LIMITED"))
                snprintf(f->info.colour.range, sizeof(f->info.colour.range), "limited");
            break;
        default:
            /* F (rate), I (interlacing), A (aspect) and the other X tags
             * (XYSCSS, ...) do not change the samples. */
            break;
        }
    }
    if (!have_w || !have_h) {
        psh_status(st, PSNRHVS_FILE_ERROR_MALFORMED, 0,
                   "malformed Y4M %s: missing %s tag in the header", f->name,
                   !have_w ? "W (width)" : "H (height)");
        return -1;
    }
    return 0;
}

int psnrhvs_file_open_stream(PsnrHvsFile **const out, FILE *const stream, const char *const name,
                             const void *const head, const size_t head_len,
                             PsnrHvsFileStatus *const st) {
    *out = NULL;
    if (!stream || !name || (head_len && !head)) {
        psh_status(st, PSNRHVS_FILE_ERROR_USAGE, 0, "no stream, name or head to open");
        return PSNRHVS_ERR(EINVAL);
    }
    const size_t name_len = strlen(name);
    PsnrHvsFile *const f = calloc(1, sizeof(*f) + name_len + 1 + head_len + Y4M_MAGIC_LEN);
    if (!f) {
        psh_status(st, PSNRHVS_FILE_ERROR_NOMEM, ENOMEM, "out of memory");
        return PSNRHVS_ERR(ENOMEM);
    }
    f->f = stream;
    f->name = memcpy((char *)(f + 1), name, name_len + 1);
    f->look = (uint8_t *)f->name + name_len + 1;
    if (head_len) memcpy(f->look, head, head_len);
    f->look_len = head_len;
    /* The magic's bytes stay in the look-ahead: raw video starts with them. */
    while (f->look_len < Y4M_MAGIC_LEN) {
        const size_t n = fread(f->look + f->look_len, 1, Y4M_MAGIC_LEN - f->look_len, stream);
        if (!n) break;
        f->look_len += n;
    }
    if (ferror(stream)) {
        const int res = read_error(f, st);
        free(f);
        return res;
    }
    const char *const what = psnrhvs_file_probe(f->look, f->look_len, name);
    f->info.y4m = what && !strcmp(what, "Y4M");
    if (f->info.y4m && !psh_y4m_magic(f->look, f->look_len)) {
        psh_status(st, PSNRHVS_FILE_ERROR_MALFORMED, 0,
                   "malformed Y4M %s: missing \"" Y4M_MAGIC "\" magic", name);
        free(f);
        return PSNRHVS_ERR(EINVAL);
    }
    if (f->info.y4m) {
        if (parse_header(f, st) < 0) {
            free(f);
            return PSNRHVS_ERR(EINVAL);
        }
        f->info.header_bytes = (size_t)f->offset;
        f->info.frame_header_bytes = 6; /* "FRAME\n" */
        if (psnrhvs_geometry(&f->info.format, &f->info.geometry) < 0) {
            psh_status(st, PSNRHVS_FILE_ERROR_LIMIT, 0, "invalid frame geometry %dx%d for %s",
                       f->info.format.width, f->info.format.height, name);
            free(f);
            return PSNRHVS_ERR(EINVAL);
        }
        f->has_format = 1;
    }
    *out = f;
    return 0;
}

int psnrhvs_file_open(PsnrHvsFile **const out, const char *const path,
                      PsnrHvsFileStatus *const st) {
    *out = NULL;
    FILE *const stream = fopen(path, "rb");
    if (!stream) {
        const int e = errno;
        psh_status(st, PSNRHVS_FILE_ERROR_IO, e, "cannot open %s: %s", path, strerror(e));
        return PSNRHVS_ERR(e);
    }
    const int res = psnrhvs_file_open_stream(out, stream, path, NULL, 0, st);
    if (res < 0) {
        fclose(stream);
        return res;
    }
    (*out)->own = 1;
    return 0;
}

void psnrhvs_file_info(const PsnrHvsFile *const f, PsnrHvsFileInfo *const info) {
    *info = f->info;
}

int psnrhvs_file_set_format(PsnrHvsFile *const f, const PsnrHvsFormat *const fmt,
                            PsnrHvsFileStatus *const st) {
    PsnrHvsGeometry g;
    if (psnrhvs_geometry(fmt, &g) < 0) {
        psh_status(st, PSNRHVS_FILE_ERROR_USAGE, 0, "invalid frame geometry %dx%d for %s",
                   fmt->width, fmt->height, f->name);
        return PSNRHVS_ERR(EINVAL);
    }
    f->info.format = *fmt;
    f->info.geometry = g;
    f->has_format = 1;
    return 0;
}

uint64_t psnrhvs_file_offset(const PsnrHvsFile *const f) {
    return f->offset;
}

/* "FRAME", optionally followed by parameters, which do not change the samples. */
static int frame_line_ok(const char *const line, const size_t len) {
    return len >= 5 && !memcmp(line, "FRAME", 5) && (len == 5 || line[5] == ' ' || !line[5]);
}

static int truncated(const PsnrHvsFile *const f, const size_t got, PsnrHvsFileStatus *const st) {
    /* A partial last frame is never scored. A raw file's frame size is the
     * caller's guess: one that does not divide the file is most often a
     * wrong geometry, not a cut file. */
    const PsnrHvsFormat *const fmt = &f->info.format;
    if (f->info.y4m)
        psh_status(st, PSNRHVS_FILE_ERROR_TRUNCATED, 0,
                   "truncated frame %u in %s: expected %zu bytes, got %zu", f->frames, f->name,
                   f->info.geometry.frame_bytes, got);
    else
        psh_status(st, PSNRHVS_FILE_ERROR_TRUNCATED, 0,
                   "truncated frame %u in %s: expected %zu bytes, got %zu (the size is not a "
                   "whole number of %dx%d %s %d-bit frames: -w/-h/-p/-b may be wrong)",
                   f->frames, f->name, f->info.geometry.frame_bytes, got, fmt->width, fmt->height,
                   psnrhvs_layout_string(fmt->layout), fmt->bitdepth);
    return PSNRHVS_ERR(EIO);
}

static int bad_frame_line(const PsnrHvsFile *const f, const int incomplete,
                          PsnrHvsFileStatus *const st) {
    if (incomplete)
        psh_status(st, PSNRHVS_FILE_ERROR_TRUNCATED, 0,
                   "truncated frame %u in %s: incomplete FRAME header", f->frames, f->name);
    else
        psh_status(st, PSNRHVS_FILE_ERROR_MALFORMED, 0,
                   "malformed Y4M %s: bad FRAME header at frame %u", f->name, f->frames);
    return PSNRHVS_ERR(EIO);
}

void psnrhvs_file_le16_to_native(void *const data, const size_t bytes) {
    uint8_t *const buf = data;
    const uint16_t probe = 1;
    uint8_t first;
    memcpy(&first, &probe, 1);
    if (first) return; /* little-endian host: nothing to do */
    for (size_t i = 0; i + 1 < bytes; i += 2) {
        const uint16_t v = (uint16_t)(buf[i] | (buf[i + 1] << 8));
        memcpy(buf + i, &v, 2);
    }
}

void psnrhvs_picture_layout(const PsnrHvsGeometry *const g, const void *const base,
                            PsnrHvsPicture *const pic) {
    size_t off = 0;
    for (int p = 0; p < 3; p++) {
        const int has = p < g->num_planes;
        pic->data[p] = has ? (const uint8_t *)base + off : NULL;
        pic->stride[p] = has ? (ptrdiff_t)g->stored_w[p] * g->bytes_per_sample : 0;
        if (has) off += g->plane_bytes[p];
    }
}

int psnrhvs_file_read(PsnrHvsFile *const f, void *const buf, PsnrHvsPicture *const pic,
                      PsnrHvsFileStatus *const st) {
    if (!f->has_format) {
        psh_status(st, PSNRHVS_FILE_ERROR_USAGE, 0, "%s: raw input needs a format", f->name);
        return PSNRHVS_ERR(EINVAL);
    }
    if (f->info.y4m) {
        char line[Y4M_MAX_LINE];
        const int len = read_line(f, line, sizeof(line));
        if (len == -1) return ferror(f->f) ? read_error(f, st) : 0;
        if (len == -2 || len < 0 || !frame_line_ok(line, strlen(line)))
            return bad_frame_line(f, len == -2, st);
    }
    const size_t bytes = f->info.geometry.frame_bytes;
    const size_t got = stream_read(f, buf, bytes);
    if (got != bytes) {
        if (ferror(f->f)) return read_error(f, st);
        /* Raw frames end cleanly; after a FRAME line a missing body is truncated. */
        if (!got && !f->info.y4m) return 0;
        return truncated(f, got, st);
    }
    if (f->info.geometry.bytes_per_sample == 2) psnrhvs_file_le16_to_native(buf, bytes);
    if (pic) psnrhvs_picture_layout(&f->info.geometry, buf, pic);
    f->frames++;
    return 1;
}

int psnrhvs_file_locate(PsnrHvsFile *const f, const void *const data, const size_t avail,
                        size_t *const header, PsnrHvsFileStatus *const st) {
    if (!avail) return 0;
    size_t head = 0;
    if (f->info.y4m) {
        const size_t scan = avail < Y4M_MAX_LINE ? avail : Y4M_MAX_LINE;
        const uint8_t *const nl = memchr(data, '\n', scan);
        if (!nl) return bad_frame_line(f, avail < Y4M_MAX_LINE, st);
        size_t len = (size_t)(nl - (const uint8_t *)data);
        head = len + 1;
        if (len && ((const char *)data)[len - 1] == '\r') len--;
        if (!frame_line_ok(data, len)) return bad_frame_line(f, 0, st);
    }
    if (avail - head < f->info.geometry.frame_bytes) return truncated(f, avail - head, st);
    *header = head;
    f->frames++;
    return 1;
}

void psnrhvs_file_close(PsnrHvsFile **const f) {
    if (!*f) return;
    if ((*f)->own) fclose((*f)->f);
    free(*f);
    *f = NULL;
}
