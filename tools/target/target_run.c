/*
 * psnrhvs: target's run: the source read once, one scorer for the whole
 * search, the search, and what it found.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "input/ffmpeg.h"
#include "output/output.h"
#include "target/search.h"
#include "target/target_int.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* -o and --encode are never the source, nor each other; --keep-probes is
 * a folder. */
static int check_outputs(const TargetArgs *const a) {
    NamedFile outs[2];
    int n = 0;
    if (a->output) outs[n++] = (NamedFile){a->output, "-o"};
    if (a->encode) outs[n++] = (NamedFile){a->encode, "--encode"};
    const NamedFile in = {a->source, "the source"};
    char err[8192];
    if (output_check_clobber(outs, n, &in, 1, err, sizeof(err)) < 0) {
        fprintf(stderr, "psnrhvs: target: %s\n", err);
        return -1;
    }
    if (a->encode && !av_guess_format(NULL, a->encode, NULL)) {
        fprintf(stderr,
                "psnrhvs: target: --encode %s: FFmpeg writes no container of that name "
                "(.mkv, .mp4, .webm, .ivf, ...)\n",
                a->encode);
        return -1;
    }
    struct stat st;
    if (a->keep_probes && (stat(a->keep_probes, &st) || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "psnrhvs: target: --keep-probes %s: not a folder\n", a->keep_probes);
        return -1;
    }
    return 0;
}

static int open_scorer(const TargetArgs *const a, const Source *const s,
                       PsnrHvsContext **const ctx) {
    PsnrHvsSettings set;
    psnrhvs_default_settings(&set);
    set.width = s->fmt.width, set.height = s->fmt.height;
    set.layout = s->fmt.layout, set.bitdepth = s->fmt.bitdepth;
    set.backend = a->backend, set.device = a->device, set.threads = a->threads;
    const int r = psnrhvs_open(ctx, &set);
    if (r < 0) {
        fprintf(stderr, "psnrhvs: target: cannot open the %s scorer: %s\n",
                psnrhvs_backend_string(a->backend), strerror(-r));
        return -1;
    }
    return 0;
}

/* A target out of reach: the error names the best score found. */
static int out_of_reach(const TargetArgs *const a, const Encoder *const e,
                        const TargetResult *const r) {
    const Probe *const b = r->best >= 0 ? &r->probe[r->best] : NULL;
    fprintf(stderr,
            "psnrhvs: target: %s %s %g dB is out of reach of %s in %s %g-%g: the best found "
            "is %.4f dB at %s %g\n",
            psnrhvs_key_string(a->key), a->pool.name, a->target, e->codec->name, e->param, e->lo,
            e->hi, b ? b->score : 0.0, e->param, b ? b->value : 0.0);
    return 1;
}

/* --encode at the setting chosen, scored on the way. @return 0 or 1. */
static int encode_chosen(const ProbeRun *const run, TargetResult *const r) {
    const TargetArgs *const a = run->a;
    const Probe *const p = &r->probe[r->chosen];
    if (encode_full(run, p->value, &r->encoded_score, &r->encoded_kbps, &r->encoded_bytes) < 0)
        return 1;
    if (!a->quiet)
        printf("%s: %s %g: %s %s %.4f dB, %.1f kbit/s, %lld bytes\n", a->encode, r->param, p->value,
               psnrhvs_key_string(a->key), a->pool.name, r->encoded_score, r->encoded_kbps,
               r->encoded_bytes);
    return 0;
}

static int search(const TargetArgs *const a, const Source *const s, const Encoder *const e,
                  PsnrHvsContext *const ctx, TargetResult *const r) {
    ProbeRun run = {a, s, e, ctx, NULL, NULL};
    run.values = malloc(sizeof(double) * (size_t)s->sample_frames);
    run.pooled = malloc(sizeof(double) * (size_t)s->sample_frames);
    if (!run.values || !run.pooled) {
        free(run.values), free(run.pooled);
        fprintf(stderr, "psnrhvs: target: out of memory\n");
        return 1;
    }
    const SearchFns fn = {&run, probe_setting};
    const double t = now();
    int ret = target_search(&fn, e->n, a->target, a->sweep, r) < 0 ? 1 : 0;
    r->seconds = now() - t;
    r->backend = psnrhvs_backend_name(ctx);
    r->param = e->param, r->lo = e->lo, r->hi = e->hi;
    if (ret == 0 && target_print(a, s, r) < 0) ret = 1;
    if (ret == 0 && r->chosen >= 0 && a->encode) ret = encode_chosen(&run, r);
    if (ret == 0 && target_write(a, s, r) < 0) ret = 1;
    if (ret == 0 && r->chosen < 0) ret = out_of_reach(a, e, r);
    free(run.values);
    free(run.pooled);
    return ret;
}

int target_run(const TargetArgs *const a) {
    if (check_outputs(a) < 0) return 1;
    /* FFmpeg's messages (the encoders' too) go into psnrhvs's error lines. */
    ffmpeg_log_init();
#ifdef __GLIBC__
    /* Debian's libx264 (0.164) reads heap memory it never wrote: its bytes
     * then depended on what the process allocated before (the probes before,
     * the backend's start). Every block of 4 KiB or more is mapped afresh
     * (zero pages, as a process's first encoder gets); filling every block
     * with one byte (M_PERTURB) did too but cost 40 % of a 1080p probe. */
    mallopt(M_MMAP_THRESHOLD, 4096);
#endif
    Source *const s = calloc(1, sizeof(*s));
    TargetResult *const r = calloc(1, sizeof(*r));
    if (!s || !r) {
        free(s), free(r);
        fprintf(stderr, "psnrhvs: target: out of memory\n");
        return 1;
    }
    int ret = 1;
    Encoder e = {0};
    PsnrHvsContext *ctx = NULL;
    if (source_load(a, s) == 0) {
        if (encoder_setup(&e, a, s) == 0 && open_scorer(a, s, &ctx) == 0)
            ret = search(a, s, &e, ctx, r);
        psnrhvs_close(&ctx);
        encoder_free(&e);
        source_free(s);
    }
    free(s);
    free(r);
    return ret;
}
