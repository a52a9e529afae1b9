/*
 * psnrhvs: telling Y4M, raw video and a compressed file (a container, a coded
 * stream, an image) apart, by the first bytes or the name: the front-ends
 * decode compressed files elsewhere (the CLI through FFmpeg), never as raw.
 *
 * Raw YUV has no signature, so only magics that raw video practically never
 * starts with count; where a magic is weak (MPEG-TS's one 0x47 byte, AV1's
 * two-byte temporal delimiter) only the file name decides.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>
#include <strings.h>

#include "file.h"

/* Annex B H.264 or HEVC: a start code, then the first NAL header of a stream
 * as encoders write it (access unit delimiter, parameter set or SEI). */
static const char *annexb(const uint8_t *const d, const size_t size) {
    size_t sc = 0;
    if (size >= 5 && !d[0] && !d[1] && !d[2] && d[3] == 1)
        sc = 4;
    else if (size >= 4 && !d[0] && !d[1] && d[2] == 1)
        sc = 3;
    if (!sc) return NULL;
    const uint8_t h = d[sc];
    if (h & 0x80) return NULL; /* forbidden_zero_bit */
    const int h264_type = h & 0x1f, hevc_type = (h >> 1) & 0x3f;
    /* HEVC: VPS, SPS, PPS, AUD, prefix SEI; nuh_layer_id 0, temporal id 1 */
    if (size > sc + 1 && d[sc + 1] == 1 && !(h & 1) && hevc_type >= 32 && hevc_type <= 39)
        return "HEVC";
    /* H.264: SEI, SPS, AUD, with nal_ref_idc as encoders set it */
    if ((h264_type == 7 && (h & 0x60)) || h264_type == 9 || h264_type == 6) return "H.264";
    return NULL;
}

static const char *by_magic(const uint8_t *const d, const size_t size) {
    if (size >= 4 && !memcmp(d, "\x1a\x45\xdf\xa3", 4)) return "Matroska/WebM";
    if (size >= 4 && !memcmp(d, "DKIF", 4)) return "IVF";
    if (size >= 8 && !memcmp(d, "nut/mult", 8)) return "NUT";
    if (size >= 12 && !memcmp(d + 4, "ftyp", 4)) return "MP4/QuickTime";
    if (size >= 8 && (!memcmp(d + 4, "moov", 4) || !memcmp(d + 4, "mdat", 4) ||
                      !memcmp(d + 4, "wide", 4) || !memcmp(d + 4, "free", 4)))
        return "QuickTime";
    if (size >= 12 && !memcmp(d, "RIFF", 4) && !memcmp(d + 8, "AVI ", 4)) return "AVI";
    if (size >= 4 && !memcmp(d, "OggS", 4)) return "Ogg";
    if (size >= 4 && !memcmp(d, "FLV\x01", 4)) return "FLV";
    if (size >= 4 && !memcmp(d, "\x06\x0e\x2b\x34", 4)) return "MXF";
    if (size >= 4 && !memcmp(d, "\x00\x00\x01\xba", 4)) return "MPEG program stream";
    /* Images: FFmpeg decodes them too, a YUV one is scored (an RGB one is an error) */
    if (size >= 8 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8)) return "PNG image";
    if (size >= 3 && !memcmp(d, "\xff\xd8\xff", 3)) return "JPEG image";
    if (size >= 4 && (!memcmp(d, "II*\x00", 4) || !memcmp(d, "MM\x00*", 4))) return "TIFF image";
    if (size >= 12 && !memcmp(d, "RIFF", 4) && !memcmp(d + 8, "WEBP", 4)) return "WebP image";
    return annexb(d, size);
}

static const char *by_name(const char *const path) {
    // clang-format off
    static const struct {
        const char *ext, *what;
    } exts[] = {
        {"mp4", "MP4"},      {"m4v", "MP4"},     {"mov", "QuickTime"}, {"3gp", "3GP"},
        {"mkv", "Matroska"}, {"webm", "WebM"},   {"ivf", "IVF"},       {"obu", "AV1 OBU"},
        {"av1", "AV1 OBU"},  {"264", "H.264"},   {"h264", "H.264"},    {"avc", "H.264"},
        {"265", "HEVC"},     {"h265", "HEVC"},   {"hevc", "HEVC"},     {"ts", "MPEG-TS"},
        {"m2ts", "MPEG-TS"}, {"mts", "MPEG-TS"}, {"avi", "AVI"},       {"nut", "NUT"},
        {"flv", "FLV"},      {"ogv", "Ogg"},     {"mxf", "MXF"},       {"mpg", "MPEG"},
        {"mpeg", "MPEG"},    {"vob", "MPEG"},    {"wmv", "ASF"},
        /* images, through FFmpeg too */
        {"png", "PNG image"}, {"jpg", "JPEG image"}, {"jpeg", "JPEG image"},
        {"tif", "TIFF image"}, {"tiff", "TIFF image"}, {"bmp", "BMP image"},
        {"webp", "WebP image"},
    };
    // clang-format on
    const char *const slash = strrchr(path, '/');
    const char *const dot = strrchr(slash ? slash + 1 : path, '.');
    if (!dot) return NULL;
    for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
        if (!strcasecmp(dot + 1, exts[i].ext)) return exts[i].what;
    return NULL;
}

int psh_y4m_magic(const uint8_t *const head, const size_t size) {
    return size >= 10 && !memcmp(head, "YUV4MPEG2 ", 10);
}

const char *psnrhvs_file_probe(const void *const head, const size_t size, const char *const path) {
    if (head && psh_y4m_magic(head, size)) return "Y4M";
    /* A .y4m name without the magic is a broken Y4M, not raw video. */
    const size_t len = path ? strlen(path) : 0;
    if (len >= 4 && (!strcmp(path + len - 4, ".y4m") || !strcmp(path + len - 4, ".Y4M")))
        return "Y4M";
    const char *const what = head ? by_magic(head, size) : NULL;
    return what ? what : path ? by_name(path) : NULL;
}
