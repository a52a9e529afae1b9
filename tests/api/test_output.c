/*
 * Score files of the public API (psnrhvs_output_write, psnrhvs_scores_parse):
 * libvmaf's own XML, JSON and CSV read alike, every layout written and read
 * back to the same bits (infinities and raw plane scores included), the
 * format names, and the errors.
 * usage: test_output DATA_DIR
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "psnrhvs.h"

typedef struct Buf {
    char *data;
    size_t len, cap;
    int fail_after; /* > 0: the n-th write fails */
} Buf;

static int to_buf(void *const cookie, const char *const data, const size_t size) {
    Buf *const b = cookie;
    if (b->fail_after && !--b->fail_after) return 1;
    if (b->len + size + 1 > b->cap) {
        b->cap = (b->len + size + 1) * 2;
        char *const d = realloc(b->data, b->cap);
        if (!d) return 1;
        b->data = d;
    }
    memcpy(b->data + b->len, data, size);
    b->len += size;
    b->data[b->len] = '\0';
    return 0;
}

static char *slurp(const char *const path, size_t *const size) {
    FILE *const f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 20);
    *size = buf ? fread(buf, 1, 1 << 20, f) : 0;
    fclose(f);
    return buf;
}

static int same_double(const double a, const double b) {
    return !memcmp(&a, &b, sizeof(a));
}

/* libvmaf's three files of one run: the same frames and values. */
static void libvmaf_files(const char *const dir) {
    static const char *const ext[3] = {"xml", "json", "csv"};
    PsnrHvsScoreSet s[3];
    for (int i = 0; i < 3; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/vmaf-output/yuv420p_176x144.%s", dir, ext[i]);
        size_t len;
        char *const buf = slurp(path, &len);
        CHECK(buf, "cannot read %s", path);
        if (!buf) return;
        PsnrHvsFileStatus st;
        const int res = psnrhvs_scores_parse(&s[i], buf, len, &st);
        free(buf);
        CHECK(!res, "%s: %s", path, st.message);
        if (res) return;
        CHECK((int)s[i].format == i, "%s read as %d", path, s[i].format);
        CHECK(s[i].num_planes == 3 && s[i].num_frames > 1, "%s: %zu frames", path, s[i].num_frames);
    }
    CHECK(s[0].width == 176 && s[0].height == 144, "XML params %dx%d", s[0].width, s[0].height);
    CHECK(s[0].version[0] && !strcmp(s[0].version, s[1].version), "versions '%s' '%s'",
          s[0].version, s[1].version);
    CHECK(isfinite(s[0].fps) && isnan(s[2].fps), "fps %g (XML), %g (CSV)", s[0].fps, s[2].fps);
    CHECK(s[0].pooled_in_file && s[1].pooled_in_file && !s[2].pooled_in_file, "pooled in file");
    for (int i = 1; i < 3; i++) {
        CHECK(s[i].num_frames == s[0].num_frames, "%s: %zu frames, XML %zu", ext[i],
              s[i].num_frames, s[0].num_frames);
        for (size_t f = 0; f < s[0].num_frames && f < s[i].num_frames; f++) {
            CHECK(s[i].frames[f].frame_num == s[0].frames[f].frame_num, "frameNum");
            for (int k = 0; k < PSNRHVS_NUM_KEYS; k++)
                CHECK(s[i].frames[f].has[k] &&
                          same_double(s[i].frames[f].value[k], s[0].frames[f].value[k]),
                      "%s frame %zu %s: %a, XML %a", ext[i], f,
                      psnrhvs_key_string((enum PsnrHvsKey)k), s[i].frames[f].value[k],
                      s[0].frames[f].value[k]);
        }
    }
    for (int i = 0; i < 3; i++) psnrhvs_scores_free(&s[i]);
}

/* Every layout written with %.17g and raw scores, read back to the same bits. */
static void round_trip(void) {
    PsnrHvsFrameScore fr[3];
    memset(fr, 0, sizeof(fr));
    const float raws[3][3] = {{1.5e-3f, 2e-4f, 3.25e-4f}, {0, 0, 0}, {7e-3f, 0, 1e-2f}};
    for (int i = 0; i < 3; i++) {
        fr[i].frame_num = 2 * (unsigned)i;
        fr[i].score.num_planes = 3;
        memcpy(fr[i].score.raw, raws[i], sizeof(raws[i]));
        psnrhvs_raw_to_db(&fr[i].score);
    }
    const PsnrHvsOutput o = {.version = "psnrhvs-test",
                             .width = 64,
                             .height = 48,
                             .fps = 25,
                             .num_planes = 3,
                             .precision = PSNRHVS_PRECISION_MAX,
                             .raw = 1,
                             .frames = fr,
                             .num_frames = 3};
    for (int f = 0; psnrhvs_scores_format_string((enum PsnrHvsScoreFormat)f); f++) {
        const char *const name = psnrhvs_scores_format_string((enum PsnrHvsScoreFormat)f);
        Buf b = {0};
        CHECK(!psnrhvs_output_write(&o, (enum PsnrHvsScoreFormat)f, to_buf, &b), "%s write", name);
        PsnrHvsScoreSet s;
        PsnrHvsFileStatus st;
        const int res = psnrhvs_scores_parse(&s, b.data, b.len, &st);
        CHECK(!res, "%s read back: %s", name, st.message);
        if (!res) {
            CHECK((int)s.format == f && s.num_frames == 3, "%s: format %d, %zu frames", name,
                  s.format, s.num_frames);
            for (size_t i = 0; i < 3 && i < s.num_frames; i++) {
                CHECK(s.frames[i].frame_num == fr[i].frame_num, "%s frameNum", name);
                for (int k = 0; k < PSNRHVS_NUM_KEYS; k++)
                    CHECK(same_double(s.frames[i].value[k],
                                      psnrhvs_key_value(&fr[i].score, (enum PsnrHvsKey)k)),
                          "%s frame %zu key %d: %a", name, i, k, s.frames[i].value[k]);
                for (int p = 0; p < 3; p++)
                    CHECK(s.frames[i].has_raw[p] &&
                              !memcmp(&s.frames[i].raw[p], &fr[i].score.raw[p], sizeof(float)),
                          "%s frame %zu raw %d", name, i, p);
            }
            /* frame 1 is identical (+inf), frame 2's Cb too: JSON's nulls, each counted */
            size_t nulls = 0;
            for (const char *q = b.data; (q = strstr(q, "null")); q += 4) nulls++;
            CHECK(s.nulls == nulls && (f != PSNRHVS_SCORES_JSON || nulls >= 5), "%s: %zu nulls",
                  name, s.nulls);
            PsnrHvsPool want;
            psnrhvs_pool(&fr[0].score.psnr_hvs_y, 3, sizeof(fr[0]), &want);
            CHECK(same_double(s.pool[PSNRHVS_KEY_Y].mean, want.mean) &&
                      same_double(s.pool[PSNRHVS_KEY_Y].harmonic_mean, want.harmonic_mean),
                  "%s pooled y mean %a, want %a", name, s.pool[PSNRHVS_KEY_Y].mean, want.mean);
            if (f == PSNRHVS_SCORES_XML || f == PSNRHVS_SCORES_JSON)
                CHECK(!strcmp(s.version, "psnrhvs-test") && s.fps == 25, "%s: '%s' %g", name,
                      s.version, s.fps);
            psnrhvs_scores_free(&s);
        }
        /* cut short: an error with its message, nothing kept */
        if (b.len > 10) {
            const int cut = psnrhvs_scores_parse(&s, b.data, b.len - 10, &st);
            CHECK(cut == PSNRHVS_ERR(EINVAL) && st.error == PSNRHVS_FILE_ERROR_MALFORMED &&
                      st.message[0] && !s.frames,
                  "%s cut short: %d '%s'", name, cut, st.message);
        }
        /* a failing write stops the writer with EIO */
        Buf fail = {.fail_after = 1};
        CHECK(psnrhvs_output_write(&o, (enum PsnrHvsScoreFormat)f, to_buf, &fail) ==
                  PSNRHVS_ERR(EIO),
              "%s: a failed write", name);
        free(b.data);
        free(fail.data);
    }
    Buf b = {0};
    CHECK(!psnrhvs_output_summary(&o, to_buf, &b) && b.data &&
              !strncmp(b.data, "3 frames, 64x48\npsnr_hvs_y   mean ", 34),
          "summary '%s'", b.data ? b.data : "");
    free(b.data);
    PsnrHvsOutput bad = o;
    bad.precision = -3;
    CHECK(psnrhvs_output_write(&bad, PSNRHVS_SCORES_XML, to_buf, &b) == PSNRHVS_ERR(EINVAL),
          "precision -3");
    CHECK(psnrhvs_output_write(&o, (enum PsnrHvsScoreFormat)4, to_buf, &b) == PSNRHVS_ERR(EINVAL),
          "format 4");
}

static void names_and_errors(void) {
    CHECK(psnrhvs_scores_format_from_string("csv") == PSNRHVS_SCORES_CSV, "csv");
    CHECK(psnrhvs_scores_format_from_string("yaml") == PSNRHVS_ERR(EINVAL), "yaml");
    CHECK(psnrhvs_scores_format_for_path("a/b.JSON") == PSNRHVS_SCORES_JSON, "b.JSON");
    CHECK(psnrhvs_scores_format_for_path("a.csv/b") == PSNRHVS_SCORES_XML, "a.csv/b");
    CHECK(!psnrhvs_scores_format_string((enum PsnrHvsScoreFormat)4), "past the last");
    CHECK(!psnrhvs_key_string(PSNRHVS_NUM_KEYS), "key past the last");
    PsnrHvsScoreSet s;
    PsnrHvsFileStatus st;
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"", "an empty file"},
        {"hello\n", "not a score file (libvmaf's XML, JSON, CSV or sub layout)"},
        {"Frame,psnr_hvs,\n0,oops,\n", "CSV row 2: bad psnr_hvs value 'oops'"},
        {"{\"frames\": []}", "no frames"},
        {"Frame,ssim,\n0,1,\n", "no psnr_hvs scores (psnr_hvs, psnr_hvs_y, ...)"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const int res = psnrhvs_scores_parse(&s, bad[i].text, strlen(bad[i].text), &st);
        CHECK(res == PSNRHVS_ERR(EINVAL) && !strcmp(st.message, bad[i].msg), "'%s': '%s'",
              bad[i].text, st.message);
    }
}

int main(const int argc, char **const argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_output DATA_DIR\n");
        return 2;
    }
    libvmaf_files(argv[1]);
    round_trip();
    names_and_errors();
    if (failures) printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
