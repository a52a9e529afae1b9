/*
 * The raw and Y4M files of the public API (psnrhvs_file_*, psnrhvs_geometry,
 * psnrhvs_format_negotiate, psnrhvs_check_*): a golden Y4M read back against
 * its raw twin, odd sizes and 10-bit samples, frames located in memory as a
 * mapping caller does, and each error's kind and exact message (the CLI's).
 * usage: test_file DATA_DIR
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "psnrhvs.h"

/* The status says kind and exactly msg. */
static void expect(const PsnrHvsFileStatus *const st, const enum PsnrHvsFileError kind,
                   const char *const msg, const int line) {
    if (st->error != kind || strcmp(st->message, msg))
        printf("FAIL line %d: got kind %d \"%s\"\n  want kind %d \"%s\"\n", line, st->error,
               st->message, kind, msg),
            failures++;
}
#define EXPECT(st, kind, msg) expect(st, kind, msg, __LINE__)

static uint8_t *slurp(const char *const path, size_t *const size) {
    FILE *const f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    rewind(f);
    uint8_t *const buf = malloc(*size ? *size : 1);
    if (buf && fread(buf, 1, *size, f) != *size) *size = 0;
    fclose(f);
    return buf;
}

/* A golden Y4M reads back as the samples of its raw twin, frame by frame. */
static void golden(const char *const dir) {
    char y4m[1024], raw[1024];
    snprintf(y4m, sizeof(y4m), "%s/yuv420p_176x144_ref.y4m", dir);
    snprintf(raw, sizeof(raw), "%s/yuv420p_176x144_ref.yuv", dir);
    size_t raw_size = 0;
    uint8_t *const want = slurp(raw, &raw_size);
    PsnrHvsFile *f;
    PsnrHvsFileStatus st;
    CHECK(want && !psnrhvs_file_open(&f, y4m, &st), "open %s: %s", y4m, st.message);
    if (!want || !f) return;
    PsnrHvsFileInfo info;
    psnrhvs_file_info(f, &info);
    CHECK(info.y4m && info.format.width == 176 && info.format.height == 144 &&
              info.format.layout == PSNRHVS_PIXEL_LAYOUT_I420 && info.format.bitdepth == 8,
          "header: %dx%d layout %d %d-bit", info.format.width, info.format.height,
          info.format.layout, info.format.bitdepth);
    CHECK(info.header_bytes == 58 && info.frame_header_bytes == 6 && !info.colour.range[0],
          "header bytes %zu", info.header_bytes);
    CHECK(info.geometry.frame_bytes == 176 * 144 * 3 / 2, "frame bytes %zu",
          info.geometry.frame_bytes);
    const size_t fb = info.geometry.frame_bytes;
    uint8_t *const buf = malloc(fb);
    PsnrHvsPicture pic;
    int n = 0, res;
    while ((res = psnrhvs_file_read(f, buf, &pic, &st)) == 1) {
        CHECK((size_t)(n + 1) * fb <= raw_size && !memcmp(buf, want + (size_t)n * fb, fb),
              "frame %d differs from the raw file", n);
        CHECK(pic.data[0] == buf && pic.stride[0] == 176 &&
                  (const uint8_t *)pic.data[1] == buf + 176 * 144 && pic.stride[1] == 88 &&
                  (const uint8_t *)pic.data[2] == buf + 176 * 144 + 88 * 72 && pic.stride[2] == 88,
              "frame %d planes", n);
        n++;
    }
    CHECK(res == 0 && (size_t)n * fb == raw_size, "%d frames, end %d", n, res);
    CHECK(psnrhvs_file_offset(f) == info.header_bytes + (uint64_t)n * (fb + 6), "offset %llu",
          (unsigned long long)psnrhvs_file_offset(f));
    psnrhvs_file_close(&f);
    CHECK(!f, "close leaves NULL");
    free(buf);
    free(want);
}

/* Opens the bytes as a stream called name; NULL with st filled on failure. */
static PsnrHvsFile *open_mem(const char *const bytes, const size_t size, const char *const name,
                             PsnrHvsFileStatus *const st, FILE **const fp) {
    *fp = fmemopen((void *)(uintptr_t)bytes, size, "rb");
    PsnrHvsFile *f = NULL;
    memset(st, 0, sizeof(*st));
    if (psnrhvs_file_open_stream(&f, *fp, name, NULL, 0, st) < 0) {
        fclose(*fp);
        *fp = NULL;
    }
    return f;
}

/* 17x9 4:2:0 10-bit, CR LF header, XCOLORRANGE, a FRAME parameter: chroma
 * stored 9x5 (rounded up), scored 8x4, samples little endian in the file. */
static void odd_10bit(void) {
    enum { W = 17, H = 9, CW = 9, CH = 5, SAMPLES = W * H + 2 * CW * CH };
    static const char head[] = "YUV4MPEG2 W17 H9 F25:1 C420p10 XCOLORRANGE=FULL\r\n";
    char file[sizeof(head) + 2 * (16 + 2 * SAMPLES)];
    size_t len = sizeof(head) - 1;
    memcpy(file, head, len);
    for (int fr = 0; fr < 2; fr++) {
        const char *const fh = fr ? "FRAME Ixyz\n" : "FRAME\n";
        memcpy(file + len, fh, strlen(fh));
        len += strlen(fh);
        for (int i = 0; i < SAMPLES; i++) {
            const unsigned v = (unsigned)(i * 7 + fr) % 1024;
            file[len++] = (char)(v & 0xff);
            file[len++] = (char)(v >> 8);
        }
    }
    PsnrHvsFileStatus st;
    FILE *fp;
    PsnrHvsFile *f = open_mem(file, len, "odd.y4m", &st, &fp);
    CHECK(f, "open: %s", st.message);
    if (!f) return;
    PsnrHvsFileInfo info;
    psnrhvs_file_info(f, &info);
    const PsnrHvsGeometry *const g = &info.geometry;
    CHECK(info.format.bitdepth == 10 && g->bytes_per_sample == 2 && g->num_planes == 3 &&
              g->stored_w[1] == CW && g->stored_h[1] == CH && g->scored_w[1] == 8 &&
              g->scored_h[1] == 4 && g->frame_bytes == 2 * SAMPLES,
          "geometry");
    CHECK(!strcmp(info.colour.range, "full"), "colour range '%s'", info.colour.range);
    uint16_t buf[SAMPLES];
    PsnrHvsPicture pic;
    for (int fr = 0; fr < 2; fr++) {
        CHECK(psnrhvs_file_read(f, buf, &pic, &st) == 1, "frame %d: %s", fr, st.message);
        int same = 1;
        for (int i = 0; i < SAMPLES; i++) same &= buf[i] == (unsigned)(i * 7 + fr) % 1024;
        CHECK(same, "frame %d samples", fr);
        CHECK(pic.stride[0] == 2 * W && pic.stride[1] == 2 * CW &&
                  (const uint16_t *)pic.data[2] == buf + W * H + CW * CH,
              "frame %d planes", fr);
    }
    CHECK(psnrhvs_file_read(f, buf, &pic, &st) == 0, "end");
    psnrhvs_file_close(&f);
    fclose(fp);

    /* The same bytes located in memory, as a caller that maps the file. */
    f = open_mem(file, len, "odd.y4m", &st, &fp);
    size_t pos = info.header_bytes, header = 0;
    CHECK(pos == sizeof(head) - 1, "header bytes %zu", pos);
    for (int fr = 0; f && fr < 2; fr++) {
        CHECK(psnrhvs_file_locate(f, file + pos, len - pos, &header, &st) == 1 &&
                  header == (fr ? 11u : 6u),
              "locate %d: %s", fr, st.message);
        pos += header + 2 * SAMPLES;
    }
    CHECK(f && psnrhvs_file_locate(f, file + pos, len - pos, &header, &st) == 0, "located end");
    psnrhvs_file_close(&f);
    if (fp) fclose(fp);
    /* Cut short: the second frame lacks 3 bytes. */
    f = open_mem(file, len, "odd.y4m", &st, &fp);
    pos = info.header_bytes;
    CHECK(f && psnrhvs_file_locate(f, file + pos, len - 3 - pos, &header, &st) == 1, "first");
    pos += header + 2 * SAMPLES;
    CHECK(f && psnrhvs_file_locate(f, file + pos, len - 3 - pos, &header, &st) < 0, "cut");
    EXPECT(&st, PSNRHVS_FILE_ERROR_TRUNCATED,
           "truncated frame 1 in odd.y4m: expected 486 bytes, got 483");
    psnrhvs_file_close(&f);
    if (fp) fclose(fp);
}

/* Raw: no header, a format set, a partial last frame is an error. */
static void raw(void) {
    char bytes[16 * 16 * 3 / 2 * 2 + 5];
    for (size_t i = 0; i < sizeof(bytes); i++) bytes[i] = (char)i;
    PsnrHvsFileStatus st;
    FILE *fp;
    PsnrHvsFile *f = open_mem(bytes, sizeof(bytes), "r.yuv", &st, &fp);
    CHECK(f, "open raw: %s", st.message);
    if (!f) return;
    PsnrHvsFileInfo info;
    psnrhvs_file_info(f, &info);
    CHECK(!info.y4m && !info.header_bytes && !info.frame_header_bytes, "raw info");
    uint8_t buf[384];
    CHECK(psnrhvs_file_read(f, buf, NULL, &st) < 0, "read without a format");
    const PsnrHvsFormat fmt = {16, 16, PSNRHVS_PIXEL_LAYOUT_I420, 8};
    CHECK(!psnrhvs_file_set_format(f, &fmt, &st), "set format");
    const PsnrHvsFormat bad = {0, 16, PSNRHVS_PIXEL_LAYOUT_I420, 8};
    CHECK(psnrhvs_file_set_format(f, &bad, &st) == PSNRHVS_ERR(EINVAL), "set 0x16");
    EXPECT(&st, PSNRHVS_FILE_ERROR_USAGE, "invalid frame geometry 0x16 for r.yuv");
    CHECK(psnrhvs_file_read(f, buf, NULL, &st) == 1 && !memcmp(buf, bytes, 384), "frame 0");
    CHECK(psnrhvs_file_read(f, buf, NULL, &st) == 1 && !memcmp(buf, bytes + 384, 384), "frame 1");
    CHECK(psnrhvs_file_read(f, buf, NULL, &st) == PSNRHVS_ERR(EIO), "partial frame");
    EXPECT(&st, PSNRHVS_FILE_ERROR_TRUNCATED,
           "truncated frame 2 in r.yuv: expected 384 bytes, got 5 (the size is not a whole number "
           "of 16x16 420 8-bit frames: -w/-h/-p/-b may be wrong)");
    psnrhvs_file_close(&f);
    fclose(fp);

    /* The head a probe read first comes before the stream. */
    fp = fmemopen(bytes + 10, sizeof(bytes) - 10, "rb");
    CHECK(!psnrhvs_file_open_stream(&f, fp, "r.yuv", bytes, 10, &st), "open with a head");
    psnrhvs_file_set_format(f, &fmt, &st);
    CHECK(psnrhvs_file_read(f, buf, NULL, &st) == 1 && !memcmp(buf, bytes, 384), "head read");
    psnrhvs_file_close(&f);
    fclose(fp);

    CHECK(psnrhvs_file_open_stream(&f, NULL, "x", NULL, 0, &st) == PSNRHVS_ERR(EINVAL) && !f &&
              st.error == PSNRHVS_FILE_ERROR_USAGE,
          "no stream");
    CHECK(psnrhvs_file_open(&f, "/nonexistent/r.yuv", &st) == PSNRHVS_ERR(ENOENT) && !f,
          "missing file");
    EXPECT(&st, PSNRHVS_FILE_ERROR_IO, "cannot open /nonexistent/r.yuv: No such file or directory");
    CHECK(st.errnum == ENOENT, "errnum %d", st.errnum);
}

/* Each broken file: its kind and the CLI's words. */
static void errors(void) {
    static const struct {
        const char *name, *bytes;
        enum PsnrHvsFileError kind;
        const char *msg;
    } cases[] = {
        {"x.y4m", "\x1a\x45\xdf\xa3 not Y4M", PSNRHVS_FILE_ERROR_MALFORMED,
         "malformed Y4M x.y4m: missing \"YUV4MPEG2 \" magic"},
        {"x", "YUV4MPEG2 W16 H16", PSNRHVS_FILE_ERROR_MALFORMED,
         "malformed Y4M x: header does not end with a newline"},
        {"x", "YUV4MPEG2 W16\n", PSNRHVS_FILE_ERROR_MALFORMED,
         "malformed Y4M x: missing H (height) tag in the header"},
        {"x", "YUV4MPEG2 H16\n", PSNRHVS_FILE_ERROR_MALFORMED,
         "malformed Y4M x: missing W (width) tag in the header"},
        {"x", "YUV4MPEG2 W17x6 H16\n", PSNRHVS_FILE_ERROR_MALFORMED,
         "malformed Y4M x: bad W tag 'W17x6'"},
        {"x", "YUV4MPEG2 W16 H-1\n", PSNRHVS_FILE_ERROR_MALFORMED,
         "malformed Y4M x: bad H tag 'H-1'"},
        {"x", "YUV4MPEG2 W70000 H16\n", PSNRHVS_FILE_ERROR_LIMIT,
         "width in x exceeds the maximum of 65536"},
        {"x", "YUV4MPEG2 W16 H99999999999\n", PSNRHVS_FILE_ERROR_LIMIT,
         "height in x exceeds the maximum of 65536"},
        {"x", "YUV4MPEG2 W16 H16 C411\n", PSNRHVS_FILE_ERROR_MALFORMED,
         "malformed Y4M x: unsupported C tag 'C411' (expected 420jpeg, 420mpeg2, 420paldv, 420, "
         "422, 444, mono or their p10/p12 forms)"},
        {"x", "YUV4MPEG2 W16 H16 C420p16\n", PSNRHVS_FILE_ERROR_UNSUPPORTED,
         "bit depth 16 is not supported: 13-16 bits are not, because libvmaf's psnr_hvs accepts "
         "at most 12 bits and its f32 numerics are only defined up to 12 (C420p16 in x)"},
        {"x", "YUV4MPEG2 W16 H16 Cmono9\n", PSNRHVS_FILE_ERROR_UNSUPPORTED,
         "bit depth 9 is not supported (expected 8, 10 or 12) (Cmono9 in x)"},
        {"x", "YUV4MPEG2 W16 H16 C\x01\n", PSNRHVS_FILE_ERROR_MALFORMED,
         "malformed Y4M x: unsupported C tag 'C\\x01' (expected 420jpeg, 420mpeg2, 420paldv, "
         "420, 422, 444, mono or their p10/p12 forms)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        PsnrHvsFileStatus st;
        FILE *fp;
        PsnrHvsFile *f = open_mem(cases[i].bytes, strlen(cases[i].bytes), cases[i].name, &st, &fp);
        CHECK(!f, "case %zu opened", i);
        EXPECT(&st, cases[i].kind, cases[i].msg);
        psnrhvs_file_close(&f);
    }
    /* A header over 4096 bytes. */
    char *const longer = malloc(5000);
    memset(longer, 'x', 5000);
    memcpy(longer, "YUV4MPEG2 W16 H16 X", 19);
    longer[4999] = '\n';
    PsnrHvsFileStatus st;
    FILE *fp;
    CHECK(!open_mem(longer, 5000, "x", &st, &fp), "long header opened");
    EXPECT(&st, PSNRHVS_FILE_ERROR_MALFORMED, "malformed Y4M x: header too long (over 4096 bytes)");
    free(longer);

    /* FRAME lines: bad, incomplete, a body cut short, read and located. */
    static const struct {
        const char *tail;
        size_t tail_len;
        enum PsnrHvsFileError kind;
        const char *msg;
    } frames[] = {
        {"FRAMX\n", 6, PSNRHVS_FILE_ERROR_MALFORMED,
         "malformed Y4M x: bad FRAME header at frame 1"},
        {"FRA", 3, PSNRHVS_FILE_ERROR_TRUNCATED, "truncated frame 1 in x: incomplete FRAME header"},
        {"FRAME\nabc", 9, PSNRHVS_FILE_ERROR_TRUNCATED,
         "truncated frame 1 in x: expected 96 bytes, got 3"},
    };
    for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
        char file[256];
        const char head[] = "YUV4MPEG2 W8 H8 C420\nFRAME\n";
        size_t len = sizeof(head) - 1;
        memcpy(file, head, len);
        memset(file + len, 0x10, 96);
        len += 96;
        memcpy(file + len, frames[i].tail, frames[i].tail_len);
        len += frames[i].tail_len;
        for (int located = 0; located < 2; located++) {
            PsnrHvsFile *f = open_mem(file, len, "x", &st, &fp);
            CHECK(f, "open frame case %zu: %s", i, st.message);
            if (!f) continue;
            uint8_t buf[96];
            size_t pos = 21, header;
            int res = 0;
            for (int n = 0; n < 2; n++) {
                if (located) {
                    res = psnrhvs_file_locate(f, file + pos, len - pos, &header, &st);
                    if (res == 1) pos += header + 96;
                } else {
                    res = psnrhvs_file_read(f, buf, NULL, &st);
                }
                if (n == 0) CHECK(res == 1, "frame case %zu: frame 0: %s", i, st.message);
            }
            CHECK(res == PSNRHVS_ERR(EIO), "frame case %zu (%s): %d", i,
                  located ? "located" : "read", res);
            EXPECT(&st, frames[i].kind, frames[i].msg);
            psnrhvs_file_close(&f);
            fclose(fp);
        }
    }
}

static void probe(void) {
    static const struct {
        const char *head;
        size_t size;
        const char *path, *want;
    } cases[] = {
        {"YUV4MPEG2 W1 H1\n", 16, "a.yuv", "Y4M"},
        {"\x1a\x45\xdf\xa3....", 8, "a.yuv", "Matroska/WebM"},
        {"\x00\x00\x00\x20"
         "ftypisom",
         12, NULL, "MP4/QuickTime"},
        {"\x00\x00\x00\x01\x67\x64", 6, "a.yuv", "H.264"},
        {"\x47\x40\x00\x10", 4, "a.yuv", NULL}, /* MPEG-TS's one byte: too weak */
        {"\x47\x40\x00\x10", 4, "a.ts", "MPEG-TS"},
        {"\x10\x10\x10\x10", 4, "a.yuv", NULL},
        {"\x10\x10\x10\x10", 4, "a.y4m", "Y4M"}, /* broken Y4M, not raw */
        {"\x10\x10\x10\x10", 4, "a.Y4M", "Y4M"},
        {NULL, 0, "frames/%05d.png", "PNG image"},
        {NULL, 0, "clip.MKV", "Matroska"},
        {NULL, 0, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *const got = psnrhvs_file_probe(cases[i].head, cases[i].size, cases[i].path);
        CHECK(got == cases[i].want || (got && cases[i].want && !strcmp(got, cases[i].want)),
              "probe %zu: %s, want %s", i, got ? got : "NULL",
              cases[i].want ? cases[i].want : "NULL");
    }
}

static void formats(void) {
    PsnrHvsGeometry g;
    const PsnrHvsFormat f422 = {7, 5, PSNRHVS_PIXEL_LAYOUT_I422, 12};
    CHECK(!psnrhvs_geometry(&f422, &g) && g.stored_w[1] == 4 && g.scored_w[1] == 3 &&
              g.stored_h[1] == 5 && g.plane_bytes[0] == 70 && g.plane_bytes[1] == 40 &&
              g.frame_bytes == 150,
          "4:2:2 7x5 geometry");
    const PsnrHvsFormat mono = {8, 8, PSNRHVS_PIXEL_LAYOUT_I400, 8};
    CHECK(!psnrhvs_geometry(&mono, &g) && g.num_planes == 1 && g.frame_bytes == 64, "4:0:0");
    uint8_t frame[64];
    PsnrHvsPicture pic;
    psnrhvs_picture_layout(&g, frame, &pic);
    CHECK(pic.data[0] == frame && pic.stride[0] == 8 && !pic.data[1] && !pic.data[2] &&
              !pic.stride[1],
          "4:0:0 layout");
    const PsnrHvsFormat huge = {65537, 8, PSNRHVS_PIXEL_LAYOUT_I420, 8};
    CHECK(psnrhvs_geometry(&huge, &g) == PSNRHVS_ERR(EINVAL), "65537 wide");
    CHECK(!strcmp(psnrhvs_layout_string(PSNRHVS_PIXEL_LAYOUT_I444), "444") &&
              !psnrhvs_layout_string((enum PsnrHvsPixelLayout)9),
          "layout strings");
    /* One table both ways: every name the library lists reads back as its
     * layout; other words (Y4M's "mono", FFmpeg's "yuv420p") are not names. */
    int names = 0;
    for (; psnrhvs_layout_string((enum PsnrHvsPixelLayout)names); names++)
        CHECK(psnrhvs_layout_from_string(psnrhvs_layout_string((enum PsnrHvsPixelLayout)names)) ==
                  names,
              "layout name round trip");
    CHECK(names == 4 && psnrhvs_layout_from_string("400") == PSNRHVS_PIXEL_LAYOUT_I400 &&
              psnrhvs_layout_from_string("mono") == PSNRHVS_ERR(EINVAL) &&
              psnrhvs_layout_from_string("yuv420p") == PSNRHVS_ERR(EINVAL) &&
              psnrhvs_layout_from_string("") == PSNRHVS_ERR(EINVAL) &&
              psnrhvs_layout_from_string(NULL) == PSNRHVS_ERR(EINVAL),
          "layout from string");
    const PsnrHvsFormat odd420 = {17, 9, PSNRHVS_PIXEL_LAYOUT_I420, 10};
    CHECK(!psnrhvs_geometry(&odd420, &g) && g.stored_w[2] == 9 && g.stored_h[2] == 5 &&
              g.scored_w[2] == 8 && g.scored_h[2] == 4 && g.frame_bytes == 2 * (17 * 9 + 2 * 45),
          "4:2:0 17x9 geometry");

    PsnrHvsFileStatus st;
    CHECK(!psnrhvs_check_bitdepth(10, &st), "10 bits");
    CHECK(psnrhvs_check_bitdepth(9, &st) == PSNRHVS_ERR(EINVAL), "9 bits");
    EXPECT(&st, PSNRHVS_FILE_ERROR_UNSUPPORTED,
           "bit depth 9 is not supported (expected 8, 10 or 12)");

    const PsnrHvsFormat tiny = {7, 7, PSNRHVS_PIXEL_LAYOUT_I444, 8};
    CHECK(psnrhvs_check_planes(&tiny, 1, &st) < 0, "7x7");
    EXPECT(&st, PSNRHVS_FILE_ERROR_TOO_SMALL,
           "frame size 7x7 is smaller than 8x8: psnr_hvs has no block to score");
    const PsnrHvsFormat thin = {16, 14, PSNRHVS_PIXEL_LAYOUT_I420, 8};
    CHECK(psnrhvs_check_planes(&thin, 1, &st) < 0 && !psnrhvs_check_planes(&thin, 0, &st),
          "16x14 4:2:0");
    EXPECT(&st, PSNRHVS_FILE_ERROR_TOO_SMALL,
           "chroma planes of 16x14 420 are 8x7, smaller than 8x8: psnr_hvs has no block to "
           "score in them; use --feature psnr_hvs=enable_chroma=false to score luma only");
}

/* --common_bitdepth: v << (to - from), 8-bit and odd-addressed 16-bit sources. */
static void shift(void) {
    const PsnrHvsFormat to = {9, 2, PSNRHVS_PIXEL_LAYOUT_I420, 12};
    uint8_t src8[9 * 2 + 2 * 5];
    uint8_t src10[1 + 2 * sizeof(src8)];
    uint16_t dst[sizeof(src8)];
    for (size_t i = 0; i < sizeof(src8); i++) {
        src8[i] = (uint8_t)(250 + i);
        src10[1 + 2 * i] = (uint8_t)(i * 37), src10[2 + 2 * i] = (uint8_t)(i % 4);
    }
    const PsnrHvsPicture d = {{dst, dst + 18, dst + 23}, {18, 10, 10}};
    const PsnrHvsPicture s8 = {{src8, src8 + 18, src8 + 23}, {9, 5, 5}};
    CHECK(!psnrhvs_picture_shift(&to, 8, &s8, &d), "8 to 12 bits");
    int same = 1;
    for (size_t i = 0; i < sizeof(src8); i++) same &= dst[i] == (uint16_t)(src8[i] << 4);
    CHECK(same, "8-bit samples << 4");
    const PsnrHvsPicture s10 = {{src10 + 1, src10 + 37, src10 + 47}, {18, 10, 10}};
    CHECK(!psnrhvs_picture_shift(&to, 10, &s10, &d), "10 to 12 bits");
    same = 1;
    for (size_t i = 0; i < sizeof(src8); i++)
        same &= dst[i] == (uint16_t)((((i % 4) << 8) | (uint8_t)(i * 37)) << 2);
    CHECK(same, "10-bit samples << 2");
    CHECK(psnrhvs_picture_shift(&to, 12, &s10, &d) == PSNRHVS_ERR(EINVAL), "no shift");
}

/* Only values both declare are compared; a difference warns, or is an error. */
static void colour(void) {
    const PsnrHvsColour a = {"full", "bt709", "", "bt709"},
                        b = {"limited", "", "bt709", "smpte2084"};
    const PsnrHvsColour c = {"full", "", "", ""};
    PsnrHvsFileStatus st = {0};
    CHECK(!psnrhvs_colour_compare("r.y4m", &a, "d.y4m", &c, 1, &st), "same range");
    CHECK(psnrhvs_colour_compare("r.y4m", &a, "d.mkv", &b, 0, &st) == 1, "warning");
    EXPECT(&st, PSNRHVS_FILE_OK,
           "the reference r.y4m and the distorted d.mkv declare different colour: range full vs "
           "limited, transfer bt709 vs smpte2084; scored as they are, as libvmaf does "
           "(--colour_mismatch error makes it an error)");
    CHECK(psnrhvs_colour_compare("r.y4m", &a, "d.mkv", &b, 1, &st) == PSNRHVS_ERR(EINVAL), "error");
    EXPECT(&st, PSNRHVS_FILE_ERROR_MISMATCH,
           "the reference r.y4m and the distorted d.mkv declare different colour: range full vs "
           "limited, transfer bt709 vs smpte2084 (--colour_mismatch error; convert one, or leave "
           "the option out to score them as they are)");
}

static int negotiate(const PsnrHvsFormatOptions o, const PsnrHvsFormat *const rf,
                     const PsnrHvsFormat *const df, PsnrHvsFormatSide *const r,
                     PsnrHvsFormatSide *const d, PsnrHvsFormat *const out,
                     PsnrHvsFileStatus *const st) {
    *r = (PsnrHvsFormatSide){"r.y4m", rf ? "the Y4M header" : NULL, rf ? *rf : (PsnrHvsFormat){0}};
    *d = (PsnrHvsFormatSide){"d.yuv", df ? "the Y4M header" : NULL, df ? *df : (PsnrHvsFormat){0}};
    if (!rf) r->name = "r.yuv";
    if (df) d->name = "d.y4m";
    return psnrhvs_format_negotiate(&o, r, d, out, st);
}

static void negotiation(void) {
    const PsnrHvsFormat y8 = {176, 144, PSNRHVS_PIXEL_LAYOUT_I420, 8};
    const PsnrHvsFormat y10 = {176, 144, PSNRHVS_PIXEL_LAYOUT_I420, 10};
    const PsnrHvsFormat y444 = {176, 144, PSNRHVS_PIXEL_LAYOUT_I444, 8};
    const PsnrHvsFormat small = {88, 72, PSNRHVS_PIXEL_LAYOUT_I420, 8};
    const PsnrHvsFormatOptions none = {.layout = -1};
    PsnrHvsFormatSide r, d;
    PsnrHvsFormat out;
    PsnrHvsFileStatus st;

    CHECK(!negotiate(none, &y8, NULL, &r, &d, &out, &st) && d.format.width == 176 &&
              out.bitdepth == 8,
          "raw side takes the header's format");
    CHECK(!negotiate((PsnrHvsFormatOptions){.layout = -1, .bitdepth = 10, .common_bitdepth = 1},
                     &y8, NULL, &r, &d, &out, &st) &&
              d.format.bitdepth == 10 && r.format.bitdepth == 8 && out.bitdepth == 10,
          "common_bitdepth: the raw side's depth from the options");
    CHECK(!negotiate(
              (PsnrHvsFormatOptions){
                  .width = 16, .height = 8, .layout = PSNRHVS_PIXEL_LAYOUT_I400, .bitdepth = 12},
              NULL, NULL, &r, &d, &out, &st) &&
              out.width == 16 && out.layout == PSNRHVS_PIXEL_LAYOUT_I400 && out.bitdepth == 12,
          "both raw");

    negotiate(none, NULL, NULL, &r, &d, &out, &st);
    EXPECT(&st, PSNRHVS_FILE_ERROR_USAGE,
           "raw input needs --width and --height (or use Y4M files)");
    negotiate((PsnrHvsFormatOptions){.width = 160, .layout = -1}, &y8, NULL, &r, &d, &out, &st);
    EXPECT(&st, PSNRHVS_FILE_ERROR_MISMATCH,
           "--width 160 does not match the Y4M header of r.y4m (W176)");
    negotiate((PsnrHvsFormatOptions){.height = 100, .layout = -1}, NULL, &y8, &r, &d, &out, &st);
    EXPECT(&st, PSNRHVS_FILE_ERROR_MISMATCH,
           "--height 100 does not match the Y4M header of d.y4m (H144)");
    negotiate((PsnrHvsFormatOptions){.layout = PSNRHVS_PIXEL_LAYOUT_I444}, &y8, NULL, &r, &d, &out,
              &st);
    EXPECT(&st, PSNRHVS_FILE_ERROR_MISMATCH,
           "--pixel_format 444 does not match the Y4M header of r.y4m (420)");
    negotiate((PsnrHvsFormatOptions){.layout = -1, .bitdepth = 10}, &y8, NULL, &r, &d, &out, &st);
    EXPECT(&st, PSNRHVS_FILE_ERROR_MISMATCH,
           "--bitdepth 10 does not match the Y4M header of r.y4m (8-bit)");
    negotiate(none, &y8, &small, &r, &d, &out, &st);
    EXPECT(&st, PSNRHVS_FILE_ERROR_MISMATCH,
           "reference and distorted differ in size: 176x144 (r.y4m) vs 88x72 (d.y4m); use "
           "--scale to scale the distorted to the reference size");
    CHECK(!negotiate((PsnrHvsFormatOptions){.layout = -1, .scale = 1}, &y8, &small, &r, &d, &out,
                     &st) &&
              out.width == 176 && d.format.width == 88,
          "scale: the reference's size");
    negotiate(none, &y8, &y444, &r, &d, &out, &st);
    EXPECT(&st, PSNRHVS_FILE_ERROR_MISMATCH,
           "reference and distorted differ in pixel format: 420 (r.y4m) vs 444 (d.y4m)");
    negotiate(none, &y10, &y8, &r, &d, &out, &st);
    EXPECT(&st, PSNRHVS_FILE_ERROR_MISMATCH,
           "reference and distorted differ in bit depth: 10 (r.y4m) vs 8 (d.y4m); use "
           "--common_bitdepth to shift the 8-bit side up to 10 bits");
}

int main(const int argc, char **const argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_file DATA_DIR\n");
        return 2;
    }
    golden(argv[1]);
    odd_10bit();
    raw();
    errors();
    probe();
    formats();
    shift();
    colour();
    negotiation();
    if (failures) printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
