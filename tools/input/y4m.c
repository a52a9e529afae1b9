/*
 * psnrhvs: YUV4MPEG2 reader.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"

#define Y4M_MAGIC     "YUV4MPEG2 "
#define Y4M_MAGIC_LEN 10
/* FFmpeg writes about 60 bytes; anything this long is not a Y4M header. */
#define Y4M_MAX_LINE 4096

static int y4m_probe(const uint8_t *const data, const size_t size) {
    return size >= Y4M_MAGIC_LEN && !memcmp(data, Y4M_MAGIC, Y4M_MAGIC_LEN);
}

/*
 * Read one line (without its '\n', nor a '\r' before it: a CR LF header from a
 * text tool reads the same) into line. @return its length, -1 at end of file
 * before any byte, -2 when it ends without '\n', -3 when too long.
 */
static int read_line(InputStream *const s, char *const line, const int max) {
    int len = 0;
    for (;;) {
        uint8_t c;
        if (stream_read(s, &c, 1) != 1) return len ? -2 : -1;
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
static int parse_colorspace(InputStream *const s, const char *const tag, InputFormat *const fmt) {
    static const struct {
        const char *prefix;
        enum PsnrHvsPixelLayout layout;
    } prefixes[] = {
        {"420", PSNRHVS_PIXEL_LAYOUT_I420},
        {"422", PSNRHVS_PIXEL_LAYOUT_I422},
        {"444", PSNRHVS_PIXEL_LAYOUT_I444},
        {"mono", PSNRHVS_PIXEL_LAYOUT_I400},
    };
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        const size_t len = strlen(prefixes[i].prefix);
        if (strncmp(tag, prefixes[i].prefix, len)) continue;
        const char *rest = tag + len;
        const int is_mono = prefixes[i].layout == PSNRHVS_PIXEL_LAYOUT_I400;
        int depth = 8;
        if (!*rest) {
            /* 8-bit, chroma siting implied */
        } else if (prefixes[i].layout == PSNRHVS_PIXEL_LAYOUT_I420 &&
                   (!strcmp(rest, "jpeg") || !strcmp(rest, "mpeg2") || !strcmp(rest, "paldv"))) {
            /* 8-bit 4:2:0 with a chroma siting: siting does not change the samples */
        } else {
            if (!is_mono && *rest++ != 'p') break;
            if (parse_dimension(rest, &depth) < 0) break;
        }
        char msg[256];
        if (check_bitdepth(depth, msg, sizeof(msg)) < 0) {
            char shown[128];
            stream_error(s, "%s (C%s in %s)", msg, visible(shown, sizeof(shown), tag), s->name);
            return -1;
        }
        fmt->layout = prefixes[i].layout;
        fmt->bitdepth = depth;
        return 0;
    }
    char shown[128];
    stream_error(s,
                 "malformed Y4M %s: unsupported C tag 'C%s' (expected 420jpeg, 420mpeg2, "
                 "420paldv, 420, 422, 444, mono or their p10/p12 forms)",
                 s->name, visible(shown, sizeof(shown), tag));
    return -1;
}

static int y4m_open(void *const priv, InputStream *const s, InputFormat *const fmt) {
    char magic[Y4M_MAGIC_LEN];
    char line[Y4M_MAX_LINE];
    if (stream_read(s, magic, Y4M_MAGIC_LEN) != Y4M_MAGIC_LEN ||
        memcmp(magic, Y4M_MAGIC, Y4M_MAGIC_LEN)) {
        stream_error(s, "malformed Y4M %s: missing \"YUV4MPEG2 \" magic", s->name);
        return -1;
    }
    const int len = read_line(s, line, sizeof(line));
    if (len == -3) {
        stream_error(s, "malformed Y4M %s: header too long (over %d bytes)", s->name, Y4M_MAX_LINE);
        return -1;
    }
    if (len < 0) {
        stream_error(s, "malformed Y4M %s: header does not end with a newline", s->name);
        return -1;
    }

    *fmt = (InputFormat){.layout = PSNRHVS_PIXEL_LAYOUT_I420, .bitdepth = 8};
    int have_w = 0, have_h = 0;
    for (char *tok = line, *next; tok; tok = next) {
        next = strchr(tok, ' ');
        if (next) *next++ = '\0';
        if (!*tok) continue;
        const char *const val = tok + 1;
        int res;
        switch (*tok) {
        case 'W':
        case 'H':
            res = parse_dimension(val, *tok == 'W' ? &fmt->width : &fmt->height);
            if (res == -2 ||
                (!res && (*tok == 'W' ? fmt->width : fmt->height) > PSNRHVS_MAX_DIMENSION)) {
                stream_error(s, "%s in %s exceeds the maximum of %d",
                             *tok == 'W' ? "width" : "height", s->name, PSNRHVS_MAX_DIMENSION);
                return -1;
            }
            if (res < 0) {
                char shown[128];
                stream_error(s, "malformed Y4M %s: bad %c tag '%s'", s->name, *tok,
                             visible(shown, sizeof(shown), tok));
                return -1;
            }
            *(*tok == 'W' ? &have_w : &have_h) = 1;
            break;
        case 'C':
            if (parse_colorspace(s, val, fmt) < 0) return -1;
            break;
        case 'X':
            /* XCOLORRANGE is compared with the other input's range; the
             * samples are scored as they are. */
            if (!strcmp(val, "COLORRANGE=FULL"))
                snprintf(s->colour.range, sizeof(s->colour.range), "full");
            else if (!strcmp(val, "COLORRANGE=LIMITED"))
                snprintf(s->colour.range, sizeof(s->colour.range), "limited");
            break;
        default:
            /* F (rate), I (interlacing), A (aspect) and the other X tags
             * (XYSCSS, ...) do not change the samples. */
            break;
        }
    }
    if (!have_w || !have_h) {
        stream_error(s, "malformed Y4M %s: missing %s tag in the header", s->name,
                     !have_w ? "W (width)" : "H (height)");
        return -1;
    }
    return 1;
}

/* "FRAME", optionally followed by parameters, which do not change the samples. */
static int frame_line_ok(const char *const line, const size_t len) {
    return len >= 5 && !memcmp(line, "FRAME", 5) && (len == 5 || line[5] == ' ' || !line[5]);
}

static int y4m_read(void *const priv, InputStream *const s, uint8_t *const buf,
                    const size_t frame_bytes, const unsigned frame_idx) {
    char line[Y4M_MAX_LINE];
    const int len = read_line(s, line, sizeof(line));
    if (len == -1) {
        if (ferror(s->f)) {
            stream_error(s, "cannot read %s: %s", s->name, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (len == -2) {
        stream_error(s, "truncated frame %u in %s: incomplete FRAME header", frame_idx, s->name);
        return -1;
    }
    if (len < 0 || !frame_line_ok(line, strlen(line))) {
        stream_error(s, "malformed Y4M %s: bad FRAME header at frame %u", s->name, frame_idx);
        return -1;
    }
    /* After a FRAME header, a missing body is a truncated frame too. */
    return stream_read_frame(s, buf, frame_bytes, frame_idx, 0);
}

/* The FRAME line of a mapped file: its length with the newline. */
static long long y4m_frame_header(InputStream *const s, const uint8_t *const data,
                                  const size_t avail, const unsigned frame_idx) {
    const size_t scan = avail < Y4M_MAX_LINE ? avail : Y4M_MAX_LINE;
    const uint8_t *const nl = memchr(data, '\n', scan);
    if (!nl) {
        if (avail < Y4M_MAX_LINE)
            stream_error(s, "truncated frame %u in %s: incomplete FRAME header", frame_idx,
                         s->name);
        else
            stream_error(s, "malformed Y4M %s: bad FRAME header at frame %u", s->name, frame_idx);
        return -1;
    }
    size_t len = (size_t)(nl - data);
    const size_t full = len + 1;
    if (len && data[len - 1] == '\r') len--;
    if (!frame_line_ok((const char *)data, len)) {
        stream_error(s, "malformed Y4M %s: bad FRAME header at frame %u", s->name, frame_idx);
        return -1;
    }
    return (long long)full;
}

const Demuxer demuxer_y4m = {
    .name = "y4m",
    .priv_data_size = 0,
    .frame_header_bytes = 6, /* "FRAME\n" */
    .probe = y4m_probe,
    .open = y4m_open,
    .read = y4m_read,
    .close = NULL,
    .magic = "YUV4MPEG2 ",
    .extension = ".y4m",
    .label = "Y4M",
    .frame_header = y4m_frame_header,
};
