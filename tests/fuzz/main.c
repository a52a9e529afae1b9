/*
 * Replay driver of a fuzz target without libFuzzer (linked with one of
 * fuzz_y4m.c, fuzz_pair.c, fuzz_output.c): runs each corpus file and checks
 * what the expectation file says of it, then feeds seeded random mutations of
 * the corpus to the target (they must only not crash or break a promise the
 * target checks; ASan/UBSan judge memory errors when built with them).
 *
 *   fuzz_<target>_replay [--expect FILE] [--mutations N] [--seed S] FILE|DIR...
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_target.h"

typedef struct Sample {
    char name[256];
    uint8_t *data;
    size_t size;
} Sample;

static Sample *samples;
static int num_samples, cap_samples;
static int failures, checks;

static void fail(const char *name, const char *fmt, const char *a, const char *b) {
    failures++;
    printf("FAIL %s: ", name);
    printf(fmt, a, b);
    printf("\n");
}

static void add_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    if (num_samples == cap_samples) {
        cap_samples = cap_samples ? cap_samples * 2 : 64;
        samples = realloc(samples, (size_t)cap_samples * sizeof(*samples));
        if (!samples) exit(2);
    }
    Sample *s = &samples[num_samples++];
    const char *base = strrchr(path, '/');
    snprintf(s->name, sizeof(s->name), "%s", base ? base + 1 : path);
    s->data = NULL;
    s->size = 0;
    size_t cap = 0;
    for (;;) {
        if (s->size == cap) {
            cap = cap ? cap * 2 : 4096;
            s->data = realloc(s->data, cap);
            if (!s->data) exit(2);
        }
        const size_t n = fread(s->data + s->size, 1, cap - s->size, f);
        if (!n) break;
        s->size += n;
    }
    fclose(f);
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const Sample *)a)->name, ((const Sample *)b)->name);
}

static void add_path(const char *path) {
    struct stat st;
    if (stat(path, &st) < 0) {
        perror(path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        add_file(path);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        exit(2);
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char full[4096];
        snprintf(full, sizeof(full), "%s/%s", path, e->d_name);
        add_file(full);
    }
    closedir(d);
}

/* One line of expect.txt against the target's result. */
static void check_expectation(const Sample *s, const char *expect) {
    FuzzOutcome r;
    fuzz_target_run(s->data, s->size, &r);
    checks++;
    char kind[16] = "";
    int n = -1, used = 0;
    sscanf(expect, "%15s %n", kind, &used);
    const char *rest = expect + used;
    char got[700];
    snprintf(got, sizeof(got), "opened %d capped %d frames %d status %d message '%s'", r.opened,
             r.capped, r.frames, r.status, r.err);
    if (!strcmp(kind, "reject")) {
        if (r.opened || !strstr(r.err, rest))
            fail(s->name, "expected the header to be rejected with '%s'; got %s", rest, got);
    } else if (!strcmp(kind, "capped")) {
        if (!r.opened || !r.capped)
            fail(s->name, "expected %s over the frame cap; got %s", "", got);
    } else if (!strcmp(kind, "ok") && sscanf(rest, "%d", &n) == 1) {
        if (!r.opened || r.capped || r.status != 0 || r.frames != n)
            fail(s->name, "expected %s frames and a clean end; got %s", rest, got);
    } else if (!strcmp(kind, "fail") && sscanf(rest, "%d %n", &n, &used) == 1) {
        if (!r.opened || r.status != -1 || r.frames != n || !strstr(r.err, rest + used))
            fail(s->name, "expected a frame error after '%s'; got %s", rest, got);
    } else {
        fail(s->name, "bad expectation '%s'%s", expect, "");
    }
}

static void run_expectations(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    int *seen = calloc((size_t)num_samples + 1, sizeof(*seen));
    char line[1024];
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#') continue;
        char *sp = strchr(line, ' ');
        if (!sp) continue;
        *sp = '\0';
        int found = 0;
        for (int i = 0; i < num_samples; i++) {
            if (!strcmp(samples[i].name, line)) {
                check_expectation(&samples[i], sp + 1);
                seen[i] = found = 1;
            }
        }
        if (!found) fail(line, "listed in %s but not in the corpus%s", path, "");
    }
    fclose(f);
    for (int i = 0; i < num_samples; i++)
        if (!seen[i]) fail(samples[i].name, "no expectation for it in %s%s", path, "");
    free(seen);
}

static uint64_t rng_state;

static uint64_t rng(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static size_t below(size_t n) {
    return n ? (size_t)(rng() % n) : 0;
}

/* A position, mostly in the header where the parsing is. */
static size_t position(size_t size) {
    return below(rng() % 4 ? (size < 80 ? size : 80) : size);
}

/* Mutate buf (size bytes, room for cap) in place; @return the new size. */
static size_t mutate(uint8_t *buf, size_t size, const size_t cap) {
    static const char *const tokens[] = {
        " ",      "\n",   "0",       "9",      "W",           "H",          "C",  "F",
        "X",      "p",    "65536",   "65537",  "99999999999", "4294967296", "-1", "420",
        "444p12", "mono", "FRAME\n", "FRAME ", "YUV4MPEG2 ",  "\0"};
    const int ops = 1 + (int)below(3);
    for (int o = 0; o < ops; o++) {
        const size_t at = position(size);
        switch (below(6)) {
        case 0: /* flip a bit */
            if (size) buf[at] ^= (uint8_t)(1u << below(8));
            break;
        case 1: /* a random byte */
            if (size) buf[at] = (uint8_t)rng();
            break;
        case 2: { /* delete a run */
            const size_t n = at < size ? 1 + below(size - at < 16 ? size - at : 16) : 0;
            memmove(buf + at, buf + at + n, size - at - n);
            size -= n;
            break;
        }
        case 3: { /* insert a token */
            const char *t = tokens[below(sizeof(tokens) / sizeof(tokens[0]))];
            const size_t n = *t ? strlen(t) : 1;
            if (size + n > cap) break;
            memmove(buf + at + n, buf + at, size - at);
            memcpy(buf + at, t, n);
            size += n;
            break;
        }
        case 4: /* cut the end */
            size = size ? below(size + 1) : 0;
            break;
        default: { /* overwrite with bytes from elsewhere */
            const size_t from = below(size), n = below(8);
            for (size_t i = 0; i < n && at + i < size && from + i < size; i++)
                buf[at + i] = buf[from + i];
            break;
        }
        }
    }
    return size;
}

int main(int argc, char **argv) {
    const char *expect = NULL;
    long mutations = 0;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect") && i + 1 < argc)
            expect = argv[++i];
        else if (!strcmp(argv[i], "--mutations") && i + 1 < argc)
            mutations = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else
            add_path(argv[i]);
    }
    if (!num_samples) {
        fprintf(stderr, "usage: %s [--expect FILE] [--mutations N] [--seed S] FILE|DIR...\n",
                argv[0]);
        return 2;
    }
    qsort(samples, (size_t)num_samples, sizeof(*samples), by_name);
    if (expect) run_expectations(expect);

    /* The mutations must not crash; count what they did, to show they reach past the header. */
    rng_state = seed ? seed : 1;
    long opened = 0, read_frames = 0, rejected = 0;
    for (long m = 0; m < mutations; m++) {
        const Sample *s = &samples[m % num_samples];
        const size_t cap = s->size + 64;
        uint8_t *buf = malloc(cap);
        if (!buf) return 2;
        if (s->size) memcpy(buf, s->data, s->size);
        const size_t size = mutate(buf, s->size, cap);
        /* A copy of exactly size bytes, so ASan sees any read past the end. */
        uint8_t *exact = malloc(size ? size : 1);
        if (!exact) return 2;
        if (size) memcpy(exact, buf, size);
        FuzzOutcome r;
        fuzz_target_run(exact, size, &r);
        opened += r.opened;
        rejected += !r.opened;
        read_frames += r.frames > 0;
        free(exact);
        free(buf);
    }
    if (mutations)
        printf("fuzz_%s: %ld mutations (seed %llu): %ld rejected, %ld accepted, %ld with "
               "frames\n",
               fuzz_target_name, mutations, seed, rejected, opened, read_frames);
    for (int i = 0; i < num_samples; i++) free(samples[i].data);
    free(samples);
    printf("%d corpus files, %d expectations checked, %d failures\n", num_samples, checks,
           failures);
    return failures || (expect && !checks) ? 1 : 0;
}
