/*
 * The CLI's threaded pair reader: pairs in frame order with the right
 * samples (skips, frame_cnt, one side shorter), a read error queued after
 * the good pairs, several distorted inputs (a ladder, one rendition
 * shorter), and closing early while the reader waits for room or is still
 * reading. Build it with -fsanitize=thread to check the locking.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "input/input.h"
#include "input/pair_reader.h"

#define W  16
#define H  16
#define FB (W * H * 3 / 2)

static int failures, checks;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static void pause_us(long us) {
    const struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* A raw 16x16 4:2:0 file of n frames (plus extra bytes); frame i is all (base + i) & 255. */
static void write_file(const char *path, int n, int base, int extra) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    unsigned char buf[FB];
    for (int i = 0; i < n; i++) {
        memset(buf, (base + i) & 255, FB);
        fwrite(buf, 1, FB, f);
    }
    memset(buf, 0, FB);
    fwrite(buf, 1, (size_t)extra, f);
    fclose(f);
}

static Input *open_raw(const char *path) {
    Input *in = NULL;
    const InputFormat fmt = {
        .width = W, .height = H, .layout = PSNRHVS_PIXEL_LAYOUT_I420, .bitdepth = 8};
    if (input_open(&in, path, NULL) < 0 || input_set_format(in, &fmt) < 0) exit(1);
    return in;
}

/* Every sample of the three planes is v. */
static int all_equal(const PsnrHvsPicture *p, int v) {
    for (int pl = 0; pl < 3; pl++) {
        const unsigned char *d = p->data[pl];
        const int n = pl ? FB / 6 : W * H;
        for (int i = 0; i < n; i++)
            if (d[i] != v) return 0;
    }
    return 1;
}

/* Read everything; @return the status, the pairs seen in *n. */
static int read_all(PairReader *pr, int ref_base, int dist_base, int *n) {
    FramePair fp;
    int res;
    *n = 0;
    while ((res = pair_reader_next(pr, &fp)) > 0) {
        CHECK(fp.idx == (unsigned)*n, "pair %d has idx %u", *n, fp.idx);
        CHECK(all_equal(fp.ref, (ref_base + *n) & 255), "pair %d: reference samples", *n);
        CHECK(all_equal(fp.dist, (dist_base + *n) & 255), "pair %d: distorted samples", *n);
        if (*n % 7 == 3) pause_us(1000); /* a slow consumer now and then: the ring fills */
        pair_reader_release(pr);
        (*n)++;
    }
    return res;
}

int main(void) {
    char dir[] = "/tmp/pair_reader_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char a[64], b[64], c[64], e[64];
    snprintf(a, sizeof(a), "%s/a.yuv", dir);
    snprintf(b, sizeof(b), "%s/b.yuv", dir);
    snprintf(c, sizeof(c), "%s/c.yuv", dir);
    snprintf(e, sizeof(e), "%s/e.yuv", dir);
    write_file(a, 40, 0, 0);
    write_file(b, 37, 100, 0);
    write_file(c, 6, 50, FB / 2); /* 6 frames, then half a frame */
    write_file(e, 10, 200, 0);

    for (int round = 0; round < 20; round++) {
        /* All of both: the shorter side ends it (with a warning, quiet here). */
        Input *ra = open_raw(a), *rb = open_raw(b);
        PairReader *pr = NULL;
        PairReaderSettings s = {.quiet = 1};
        CHECK(!pair_reader_open(&pr, ra, rb, &s), "open");
        int n;
        CHECK(read_all(pr, 0, 100, &n) == 0 && n == 37, "a vs b: status, %d pairs", n);
        pair_reader_close(&pr);
        input_close(&ra);
        input_close(&rb);

        /* Skips and frame_cnt. */
        ra = open_raw(a), rb = open_raw(b);
        s = (PairReaderSettings){.skip_ref = 3, .skip_dist = 1, .frame_cnt = 10, .quiet = 1};
        CHECK(!pair_reader_open(&pr, ra, rb, &s), "open");
        CHECK(read_all(pr, 3, 101, &n) == 0 && n == 10, "skips: %d pairs", n);
        pair_reader_close(&pr);
        input_close(&ra);
        input_close(&rb);

        /* A truncated frame: 6 good pairs first, then the error with its message. */
        ra = open_raw(a), rb = open_raw(c);
        s = (PairReaderSettings){.quiet = 1};
        CHECK(!pair_reader_open(&pr, ra, rb, &s), "open");
        CHECK(read_all(pr, 0, 50, &n) == -1 && n == 6, "truncated: %d pairs", n);
        CHECK(strstr(pair_reader_error(pr), "truncated frame 6 in ") != NULL, "error message '%s'",
              pair_reader_error(pr));
        pair_reader_close(&pr);
        input_close(&ra);
        input_close(&rb);

        /* Several distorted inputs (a ladder): b (37 frames) and e (10 frames)
         * against a (40): frames until the longest rendition ends, e's bit
         * cleared after its 10th, its picture then the reference's. */
        {
            Input *rs = open_raw(a), *dd[2] = {open_raw(b), open_raw(e)};
            s = (PairReaderSettings){.quiet = 1};
            CHECK(!pair_reader_open_n(&pr, rs, dd, 2, &s), "open_n");
            FramePair fp;
            int res, got = 0;
            while ((res = pair_reader_next(pr, &fp)) > 0) {
                const unsigned want = got < 10 ? 3u : 1u;
                CHECK(fp.idx == (unsigned)got && fp.active == want, "ladder %d: idx %u active %u",
                      got, fp.idx, fp.active);
                CHECK(all_equal(fp.ref, got & 255) && all_equal(fp.dists[0], (100 + got) & 255) &&
                          fp.dist == fp.dists[0],
                      "ladder %d: samples", got);
                CHECK(got < 10 ? all_equal(fp.dists[1], (200 + got) & 255) : fp.dists[1] == fp.ref,
                      "ladder %d: the short rendition", got);
                pair_reader_release(pr);
                got++;
            }
            CHECK(res == 0 && got == 37, "ladder: status %d, %d frames", res, got);
            pair_reader_close(&pr);
            input_close(&rs);
            input_close(&dd[0]);
            input_close(&dd[1]);
        }

        /* Closing early: holding a pair while the reader fills the ring, or at once. */
        for (int take = 0; take < 3; take++) {
            ra = open_raw(a), rb = open_raw(b);
            CHECK(!pair_reader_open(&pr, ra, rb, &s), "open");
            FramePair fp;
            for (int i = 0; i < take; i++) {
                CHECK(pair_reader_next(pr, &fp) == 1 && fp.idx == (unsigned)i, "take %d", i);
                if (i + 1 < take) pair_reader_release(pr);
            }
            if (round & 1) pause_us(500);
            pair_reader_close(&pr);
            input_close(&ra);
            input_close(&rb);
        }
    }
    unlink(a);
    unlink(b);
    unlink(c);
    unlink(e);
    rmdir(dir);
    printf("%d checks, %d failures\n", checks, failures);
    return failures || !checks;
}
