/*
 * psnrhvs: where a fresh decoder may start (input/keyframes.h). Only headers
 * are read: NAL unit types (H.264, HEVC), an H.264 recovery point SEI, AV1
 * OBU types, and parameter sets compared byte for byte.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include <libavcodec/codec_id.h>

#include "input/keyframes.h"

#define MAX_NALS 64

typedef struct Nal {
    const uint8_t *p;
    size_t n;
} Nal;

enum KeyCodec keyscan_codec(const int codec_id) {
    switch (codec_id) {
    case AV_CODEC_ID_H264:
        return KEY_H264;
    case AV_CODEC_ID_HEVC:
        return KEY_HEVC;
    case AV_CODEC_ID_VP9:
        return KEY_VP9;
    case AV_CODEC_ID_AV1:
        return KEY_AV1;
    case AV_CODEC_ID_FFV1:
        return KEY_FFV1;
    default:
        return KEY_OTHER;
    }
}

/* NAL units of an Annex B buffer (start codes), trailing zero bytes dropped. */
static int split_annexb(const uint8_t *const d, const size_t size, Nal *const nals, const int max) {
    int n = 0;
    size_t i = 0;
    for (;;) {
        while (i + 3 <= size && !(d[i] == 0 && d[i + 1] == 0 && d[i + 2] == 1)) i++;
        if (i + 3 > size) break;
        const size_t s = i + 3;
        size_t e = s;
        while (e + 3 <= size && !(d[e] == 0 && d[e + 1] == 0 && d[e + 2] == 1)) e++;
        if (e + 3 > size) e = size;
        i = e;
        size_t end = e;
        while (end > s && !d[end - 1]) end--;
        if (end > s && n < max) nals[n++] = (Nal){d + s, end - s};
    }
    return n;
}

/* NAL units prefixed by their length (MP4, Matroska); -1 if the lengths do
 * not add up to the packet (then it is read as Annex B). */
static int split_lengths(const uint8_t *const d, const size_t size, const int ls, Nal *const nals,
                         const int max) {
    int n = 0;
    size_t pos = 0;
    while (pos < size) {
        if (size - pos < (size_t)ls) return -1;
        size_t len = 0;
        for (int b = 0; b < ls; b++) len = len << 8 | d[pos + b];
        pos += (size_t)ls;
        if (len > size - pos) return -1;
        if (len && n < max) nals[n++] = (Nal){d + pos, len};
        pos += len;
    }
    return n;
}

static int split(const KeyScan *const k, const uint8_t *const d, const size_t size,
                 Nal *const nals) {
    const int n = k->length_size ? split_lengths(d, size, k->length_size, nals, MAX_NALS) : -1;
    return n >= 0 ? n : split_annexb(d, size, nals, MAX_NALS);
}

static int nal_type(const KeyScan *const k, const Nal *const nal) {
    if (k->codec == KEY_H264) return nal->p[0] & 0x1f;
    if (nal->n < 2) return -1;
    /* HEVC: layers above the base one are not looked at */
    if (((nal->p[0] & 1) << 5 | nal->p[1] >> 3) != 0) return -1;
    return nal->p[0] >> 1 & 0x3f;
}

static int is_param_set(const KeyScan *const k, const int type) {
    if (k->codec == KEY_H264) return type == 7 || type == 8 || type == 13 || type == 15;
    return type >= 32 && type <= 34; /* VPS, SPS, PPS */
}

static int is_vcl(const KeyScan *const k, const int type) {
    return k->codec == KEY_H264 ? type >= 1 && type <= 5 : type >= 0 && type <= 31;
}

static int known_ps(const KeyScan *const k, const uint8_t *const p, const size_t n,
                    const int upto) {
    for (int i = 0; i < upto; i++)
        if (k->ps_size[i] == n && !memcmp(k->ps[i], p, n)) return 1;
    return 0;
}

static void add_ps(KeyScan *const k, const uint8_t *const p, const size_t n) {
    if (known_ps(k, p, n, k->num_ps)) return;
    if (k->num_ps == KEY_MAX_PARAM_SETS) {
        k->overflow = 1;
        return;
    }
    uint8_t *const copy = malloc(n);
    if (!copy) {
        k->overflow = 1;
        return;
    }
    memcpy(copy, p, n);
    k->ps[k->num_ps] = copy;
    k->ps_size[k->num_ps++] = n;
}

static size_t rb16(const uint8_t *const p) {
    return (size_t)p[0] << 8 | p[1];
}

/* The parameter sets of avcC, hvcC or Annex B extradata. */
static void extradata_sets(KeyScan *const k, const uint8_t *const d, const size_t size) {
    Nal nals[MAX_NALS];
    int n = 0;
    if (k->codec == KEY_H264 && size >= 7 && d[0] == 1) {
        k->length_size = (d[4] & 3) + 1;
        size_t p = 5;
        for (int list = 0; list < 2 && p < size; list++) {
            int count = list ? d[p] : d[p] & 0x1f;
            p++;
            while (count-- > 0 && p + 2 <= size && p + 2 + rb16(d + p) <= size) {
                if (n < MAX_NALS && rb16(d + p)) nals[n++] = (Nal){d + p + 2, rb16(d + p)};
                p += 2 + rb16(d + p);
            }
        }
    } else if (k->codec == KEY_HEVC && size >= 23 && (d[0] == 1 || d[0] == 0)) {
        k->length_size = (d[21] & 3) + 1;
        size_t p = 23;
        for (int a = 0; a < d[22] && p + 3 <= size; a++) {
            size_t count = rb16(d + p + 1);
            p += 3;
            while (count-- > 0 && p + 2 <= size && p + 2 + rb16(d + p) <= size) {
                if (n < MAX_NALS && rb16(d + p)) nals[n++] = (Nal){d + p + 2, rb16(d + p)};
                p += 2 + rb16(d + p);
            }
        }
    } else {
        n = split_annexb(d, size, nals, MAX_NALS);
    }
    for (int i = 0; i < n; i++)
        if (is_param_set(k, nal_type(k, &nals[i]))) add_ps(k, nals[i].p, nals[i].n);
    k->num_extradata = k->num_ps;
}

int keyscan_init(KeyScan *const k, const enum KeyCodec codec, const uint8_t *const extradata,
                 const size_t size) {
    memset(k, 0, sizeof(*k));
    k->codec = codec;
    k->x264_build = -1;
    if ((codec == KEY_H264 || codec == KEY_HEVC) && extradata && size)
        extradata_sets(k, extradata, size);
    return k->overflow ? -1 : 0;
}

void keyscan_free(KeyScan *const k) {
    for (int i = 0; i < k->num_ps; i++) free((void *)(uintptr_t)k->ps[i]);
    memset(k, 0, sizeof(*k));
}

/* ---- H.264 SEI: recovery point and x264's version -------------------- */

typedef struct Bits {
    const uint8_t *p;
    size_t n, pos; ///< in bits
} Bits;

static int bit(Bits *const b) {
    if (b->pos >= 8 * b->n) return -1;
    const int v = b->p[b->pos >> 3] >> (7 - (b->pos & 7)) & 1;
    b->pos++;
    return v;
}

static long ue(Bits *const b) {
    int zeros = 0, v;
    while ((v = bit(b)) == 0)
        if (++zeros > 31) return -1;
    if (v < 0) return -1;
    unsigned long x = 1;
    for (int i = 0; i < zeros; i++) {
        if ((v = bit(b)) < 0) return -1;
        x = x << 1 | (unsigned long)v;
    }
    return (long)(x - 1);
}

/* The RBSP of a NAL payload: emulation prevention bytes (00 00 03) removed. */
static size_t unescape(const uint8_t *const src, const size_t n, uint8_t *const dst) {
    size_t m = 0;
    int zeros = 0;
    for (size_t i = 0; i < n; i++) {
        if (zeros >= 2 && src[i] == 3) {
            zeros = 0;
            continue;
        }
        zeros = src[i] ? 0 : zeros + 1;
        dst[m++] = src[i];
    }
    return m;
}

/* recovery_frame_cnt of an SEI NAL's recovery point message, -1 if none. */
static long recovery_frames(const Nal *const nal) {
    uint8_t *const rb = malloc(nal->n);
    if (!rb) return -1;
    const size_t m = unescape(nal->p + 1, nal->n - 1, rb);
    long cnt = -1;
    size_t p = 0;
    while (p + 2 <= m && cnt < 0) {
        size_t type = 0, size = 0;
        while (p < m && rb[p] == 0xff) type += 255, p++;
        if (p >= m) break;
        type += rb[p++];
        while (p < m && rb[p] == 0xff) size += 255, p++;
        if (p >= m) break;
        size += rb[p++];
        if (size > m - p) break;
        if (type == 6) {
            Bits b = {rb + p, size, 0};
            cnt = ue(&b);
            break;
        }
        p += size;
    }
    free(rb);
    return cnt;
}

/* As FFmpeg's h264 decoder reads x264's user data SEI: "x264 - core N". */
static void x264_version(KeyScan *const k, const Nal *const nal) {
    static const char tag[] = "x264 - core ";
    const size_t t = sizeof(tag) - 1;
    for (size_t i = 0; i + t < nal->n; i++) {
        if (memcmp(nal->p + i, tag, t)) continue;
        long build = 0;
        size_t j = i + t;
        int digits = 0;
        while (j < nal->n && nal->p[j] >= '0' && nal->p[j] <= '9' && build < 100000000)
            build = build * 10 + (nal->p[j++] - '0'), digits++;
        if (digits && build > 0) k->x264_build = (int)build;
        return;
    }
}

/* ---- AV1 ---------------------------------------------------------------- */

/* A sequence header OBU in the temporal unit: a decoder can start with it. */
static int av1_has_sequence_header(const uint8_t *const d, const size_t size) {
    size_t p = 0;
    while (p < size) {
        const int h = d[p++];
        const int type = h >> 3 & 0xf, ext = h >> 2 & 1, has_size = h >> 1 & 1;
        if (ext) p++;
        size_t len = size > p ? size - p : 0;
        if (has_size) {
            len = 0;
            for (int i = 0; i < 8; i++) {
                if (p >= size) return 0;
                const int b = d[p++];
                len |= (size_t)(b & 0x7f) << (7 * i);
                if (!(b & 0x80)) break;
            }
        }
        if (type == 1) return 1;
        if (p > size || len > size - p) return 0;
        p += len;
    }
    return 0;
}

/* ---- a packet ------------------------------------------------------------ */

void keyscan_packet(KeyScan *const k, const uint8_t *const data, const size_t size, const int key,
                    KeyInfo *const out) {
    *out = (KeyInfo){KEY_NONE, 0};
    if (k->codec == KEY_VP9 || k->codec == KEY_FFV1) {
        out->kind = key ? KEY_CLOSED : KEY_NONE;
        return;
    }
    if (k->codec == KEY_AV1) {
        out->kind = key && av1_has_sequence_header(data, size) ? KEY_CLOSED : KEY_NONE;
        return;
    }
    if (k->codec != KEY_H264 && k->codec != KEY_HEVC) return;
    Nal nals[MAX_NALS];
    const int n = split(k, data, size, nals);
    int vcl = -1;
    long recovery = -1;
    for (int i = 0; i < n; i++) {
        const int type = nal_type(k, &nals[i]);
        if (type < 0) continue;
        if (vcl < 0 && is_vcl(k, type)) vcl = type;
        if (is_param_set(k, type)) add_ps(k, nals[i].p, nals[i].n);
        if (k->codec == KEY_H264 && type == 6) {
            x264_version(k, &nals[i]);
            if (recovery < 0) recovery = recovery_frames(&nals[i]);
        }
    }
    if (k->codec == KEY_HEVC) out->leading = vcl >= 6 && vcl <= 9;
    if (!key || vcl < 0 || k->overflow) return;
    KeyKind kind = KEY_NONE;
    if (k->codec == KEY_H264)
        kind = vcl == 5 ? KEY_CLOSED : vcl == 1 && recovery == 0 ? KEY_OPEN : KEY_NONE;
    else if (vcl >= 16 && vcl <= 21)
        kind = vcl == 18 || vcl == 20 ? KEY_CLOSED : KEY_OPEN; /* BLA_N_LP, IDR_N_LP */
    if (kind == KEY_NONE) return;
    /* Every parameter set seen so far must reach a decoder that starts here. */
    for (int i = k->num_extradata; i < k->num_ps; i++) {
        int here = 0;
        for (int j = 0; j < n && !here; j++)
            here = nals[j].n == k->ps_size[i] && !memcmp(nals[j].p, k->ps[i], nals[j].n);
        if (!here) return;
    }
    out->kind = kind;
}
