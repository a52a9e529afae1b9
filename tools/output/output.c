/*
 * psnrhvs: pooling, the human summary and atomic output files.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/output.h"

const char *psnrhvs_output_key_name(const enum OutputKey k) {
    static const char *const names[OUTPUT_NUM_KEYS] = {
        "psnr_hvs_y",
        "psnr_hvs_cb",
        "psnr_hvs_cr",
        "psnr_hvs",
    };
    return names[k];
}

double psnrhvs_output_value(const PsnrHvsScore *const s, const enum OutputKey k) {
    switch (k) {
    case OUTPUT_KEY_Y:
        return s->psnr_hvs_y;
    case OUTPUT_KEY_CB:
        return s->psnr_hvs_cb;
    case OUTPUT_KEY_CR:
        return s->psnr_hvs_cr;
    default:
        return s->psnr_hvs;
    }
}

void psnrhvs_output_pool(OutputData *const d) {
    d->num_keys = 0;
    d->keys[d->num_keys++] = OUTPUT_KEY_Y;
    if (d->num_planes == 3) {
        d->keys[d->num_keys++] = OUTPUT_KEY_CB;
        d->keys[d->num_keys++] = OUTPUT_KEY_CR;
    }
    d->keys[d->num_keys++] = OUTPUT_KEY_COMBINED;

    for (int k = 0; k < OUTPUT_NUM_KEYS; k++) {
        OutputPool *const pool = &d->pool[k];
        if (!d->num_frames) {
            *pool = (OutputPool){NAN, NAN, NAN, NAN};
            continue;
        }
        /* libvmaf's order: plain double sums in frame order, no compensation. */
        double sum = 0.0, inv_sum = 0.0;
        pool->min = pool->max = psnrhvs_output_value(&d->frames[0].score, k);
        for (size_t i = 0; i < d->num_frames; i++) {
            const double v = psnrhvs_output_value(&d->frames[i].score, k);
            if (v < pool->min) pool->min = v;
            if (v > pool->max) pool->max = v;
            sum += v;
            inv_sum += 1.0 / (v + 1.0);
        }
        const double n = (double)d->num_frames;
        pool->mean = sum / n;
        pool->harmonic_mean = n / inv_sum - 1.0;
    }
}

int psnrhvs_output_summary(FILE *const f, const OutputData *const d) {
    char a[NUMFMT_SIZE], b[NUMFMT_SIZE], c[NUMFMT_SIZE], e[NUMFMT_SIZE];
    fprintf(f, "%zu frame%s, %dx%d\n", d->num_frames, d->num_frames == 1 ? "" : "s", d->width,
            d->height);
    for (int i = 0; i < d->num_keys; i++) {
        const OutputPool *const p = &d->pool[d->keys[i]];
        fprintf(f, "%-12s mean %s  min %s  max %s  harmonic_mean %s\n",
                psnrhvs_output_key_name(d->keys[i]), psnrhvs_numfmt(a, p->mean, d->precision, 0),
                psnrhvs_numfmt(b, p->min, d->precision, 0),
                psnrhvs_numfmt(c, p->max, d->precision, 0),
                psnrhvs_numfmt(e, p->harmonic_mean, d->precision, 0));
    }
    return ferror(f) ? -1 : 0;
}

/* The temporary file to remove if the run is interrupted (one output per run). */
static const char *volatile pending_tmp;

static void remove_pending_and_die(const int sig) {
    if (pending_tmp) unlink(pending_tmp); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void watch_tmp(const char *const tmp) {
    pending_tmp = tmp;
    if (!tmp) return;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = remove_pending_and_die;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

struct OutputFile {
    FILE *f;
    char *path; ///< final name, NULL for stdout
    char *tmp;  ///< temporary name in the same directory
    int fd;
};

int psnrhvs_output_open(OutputFile **const of_out, const char *const path) {
    OutputFile *of = calloc(1, sizeof(*of));
    if (!of) goto oom;
    of->fd = -1;
    if (!strcmp(path, "-")) {
        of->f = stdout;
        *of_out = of;
        return 0;
    }
    const size_t len = strlen(path);
    of->path = malloc(len + 1);
    of->tmp = malloc(len + sizeof(".XXXXXX"));
    if (!of->path || !of->tmp) goto oom;
    memcpy(of->path, path, len + 1);
    /* Same directory as the target, so rename() is atomic. */
    memcpy(of->tmp, path, len);
    memcpy(of->tmp + len, ".XXXXXX", sizeof(".XXXXXX"));
    of->fd = mkstemp(of->tmp);
    if (of->fd < 0) {
        fprintf(stderr, "psnrhvs: cannot create output file %s: %s\n", path, strerror(errno));
        free(of->tmp);
        of->tmp = NULL;
        psnrhvs_output_abort(&of);
        return -1;
    }
    watch_tmp(of->tmp);
    if (!(of->f = fdopen(of->fd, "w"))) {
        fprintf(stderr, "psnrhvs: cannot write %s: %s\n", path, strerror(errno));
        psnrhvs_output_abort(&of);
        return -1;
    }
    *of_out = of;
    return 0;

oom:
    fprintf(stderr, "psnrhvs: out of memory\n");
    if (of) {
        free(of->path);
        free(of->tmp);
        free(of);
    }
    return -1;
}

void psnrhvs_output_abort(OutputFile **const of_p) {
    OutputFile *const of = *of_p;
    if (!of) return;
    watch_tmp(NULL);
    if (of->f && of->f != stdout)
        fclose(of->f);
    else if (!of->f && of->fd >= 0)
        close(of->fd);
    if (of->tmp) unlink(of->tmp);
    free(of->tmp);
    free(of->path);
    free(of);
    *of_p = NULL;
}

int psnrhvs_output_commit(OutputFile **const of_p, const Muxer *const m,
                          const OutputData *const d) {
    OutputFile *const of = *of_p;
    const char *const name = of->path ? of->path : "stdout";
    int err = m->write(of->f, d) < 0 || fflush(of->f) != 0 || ferror(of->f);
    if (of->path) {
        if (!err) {
            /* mkstemp() makes the file 0600; give it the mode fopen() would have. */
            const mode_t mask = umask(0);
            umask(mask);
            fchmod(of->fd, 0666 & ~mask);
        }
        if (fclose(of->f)) err = 1;
        of->f = NULL;
        of->fd = -1;
        if (!err && rename(of->tmp, of->path)) {
            fprintf(stderr, "psnrhvs: cannot rename %s to %s: %s\n", of->tmp, of->path,
                    strerror(errno));
            psnrhvs_output_abort(of_p);
            return -1;
        }
    }
    if (err) {
        fprintf(stderr, "psnrhvs: cannot write %s: %s\n", name, strerror(errno));
        psnrhvs_output_abort(of_p);
        return -1;
    }
    watch_tmp(NULL);
    free(of->tmp); /* renamed: nothing left to remove */
    of->tmp = NULL;
    psnrhvs_output_abort(of_p);
    return 0;
}
