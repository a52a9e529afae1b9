/*
 * psnrhvs: `psnrhvs batch`: what it shows: the progress line (rewritten in
 * place on a terminal), the lines above it, and the summary table of the
 * jobs written when they are done.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_int.h"
#include "input/bitrate.h"
#include "read_scores.h"

/* ---- the terminal ---- */

/* The progress line: rewritten in place on a terminal, a plain line otherwise. */
void batch_draw(Batch *const b, const int final) {
    const double t = cli_now(), elapsed = t - b->start;
    int done = 0, skipped = 0, failed = 0, running = 0, left = 0;
    unsigned long long frames = 0;
    double known_total = 0;
    int known = 0;
    for (int i = 0; i < b->num_jobs; i++) {
        const Job *const j = &b->jobs[i];
        switch (j->state) {
        case JOB_DONE:
        case JOB_FAILED:
            if (j->state == JOB_DONE)
                done++;
            else
                failed++;
            frames += j->frames;
            known_total += (double)j->frames;
            known++;
            break;
        case JOB_SKIPPED:
            skipped++;
            break;
        case JOB_RUNNING:
            running++;
            frames += j->frames;
            if (j->total >= 0) {
                const double t = (double)j->total, f = (double)j->frames;
                known_total += t > f ? t : f;
                known++;
            } else {
                left++; /* counted as an average job */
            }
            break;
        default:
            left++;
            break;
        }
    }
    const double fps = elapsed > 0 ? (double)frames / elapsed : 0;
    char eta[48] = "";
    if (!final && known && fps > 0) {
        /* jobs not started (or of unknown length) count as the average of the others */
        const double total = known_total + left * (known_total / known);
        const double rem = total > (double)frames ? (total - (double)frames) / fps : 0;
        const unsigned long s = rem > 3.6e8 ? 360000000ul : (unsigned long)rem;
        if (s >= 3600)
            snprintf(eta, sizeof(eta), ", ETA %lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
        else
            snprintf(eta, sizeof(eta), ", ETA %lu:%02lu", s / 60, s % 60);
    }
    char extra[128] = "";
    int n = 0;
    if (skipped)
        n += snprintf(extra + n, sizeof(extra) - (size_t)n, "%s%d skipped", n ? ", " : "", skipped);
    if (failed)
        n += snprintf(extra + n, sizeof(extra) - (size_t)n, "%s%d failed", n ? ", " : "", failed);
    if (running && !final)
        n += snprintf(extra + n, sizeof(extra) - (size_t)n, "%s%d running", n ? ", " : "", running);
    if (final) {
        const unsigned long s = elapsed > 3.6e8 ? 360000000ul : (unsigned long)elapsed;
        char t[32];
        if (s >= 3600)
            snprintf(t, sizeof(t), "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
        else
            snprintf(t, sizeof(t), "%lu:%02lu", s / 60, s % 60);
        fprintf(stderr,
                "%spsnrhvs: batch: %d jobs: %d done, %d skipped, %d failed%s; %llu frames in %s "
                "(%.1f frames/s)%s\n",
                b->tty ? "\r" : "", b->num_jobs, done, skipped, failed,
                left ? ", some not run" : "", frames, t, fps, b->tty ? "\033[K" : "");
    } else {
        fprintf(stderr, "%spsnrhvs: batch: %d/%d jobs%s%s%s, %llu frames, %.1f frames/s%s%s",
                b->tty ? "\r" : "", done + skipped + failed, b->num_jobs, n ? " (" : "", extra,
                n ? ")" : "", frames, fps, eta, b->tty ? "\033[K" : "\n");
    }
    fflush(stderr);
    b->drawn = b->tty && !final;
    b->last_draw = t;
}

/* A line of its own above the progress line. */
void batch_say(Batch *const b, const char *const fmt, ...) {
    if (b->drawn) fputs("\r\033[K", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (b->drawn) batch_draw(b, 0);
    fflush(stderr);
}

/* ---- the summary table ---- */

static const char *const state_names[] = {"pending", "running", "done",
                                          "skipped", "failed",  "not_run"};

static void csv_field(FILE *const f, const char *const s) {
    if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' && (!*s || s[strlen(s) - 1] != ' ')) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static const char *const stat_names[4] = {"min", "max", "mean", "harmonic_mean"};

/* The job's --precision (its column or args): N digits, PSNRHVS_PRECISION_MAX
 * or, not given, PSNRHVS_PRECISION_VMAF. */
static int job_precision(const Job *const j) {
    int p = PSNRHVS_PRECISION_VMAF;
    for (int i = 0; i < j->num_opts; i++) {
        const char *v = NULL;
        if (!strcmp(j->opts[i], "--precision") && i + 1 < j->num_opts)
            v = j->opts[++i];
        else if (!strncmp(j->opts[i], "--precision=", 12))
            v = j->opts[i] + 12;
        if (v) p = !strcmp(v, "max") ? PSNRHVS_PRECISION_MAX : atoi(v);
    }
    return p;
}

/* A pooled value of a CSV or sub output, which holds none: pooled here from
 * its printed per-frame values, it is printed as an XML file of the same
 * job would print it (35.942566, not the sum's 35.94256629999999). */
static const char *pooled_text(char *const buf, const size_t size, const double v,
                               const int precision) {
    if (!isfinite(v) || precision == PSNRHVS_PRECISION_MAX) return shortest(buf, size, v);
    if (precision == PSNRHVS_PRECISION_VMAF) { /* libvmaf: %.16f for a fraction under 1e-6 */
        const double frac = fabs(v) - floor(fabs(v));
        snprintf(buf, size, frac != 0 && frac < 1e-6 ? "%.16f" : "%.6f", v);
    } else {
        snprintf(buf, size, "%.*f", precision, v);
    }
    return buf;
}

int batch_summary_write(FILE *const f, const void *const cookie) {
    const Batch *const b = cookie;
    fputs("id,status,reference,distorted,output,format,frames,device,threads,seconds,bitrate,"
          "bitrate_source",
          f);
    for (int k = 0; k < PSNRHVS_NUM_KEYS; k++)
        for (int s = 0; s < 4; s++)
            fprintf(f, ",%s_%s", psnrhvs_key_string((enum PsnrHvsKey)k), stat_names[s]);
    fputs(",message\n", f);
    for (int i = 0; i < b->num_jobs; i++) {
        const Job *const j = &b->jobs[i];
        const int ran = j->state == JOB_DONE || j->state == JOB_FAILED;
        const int values = j->state == JOB_DONE || j->state == JOB_SKIPPED;
        csv_field(f, j->id);
        fprintf(f, ",%s,", state_names[j->state]);
        csv_field(f, j->reference);
        fputc(',', f);
        csv_field(f, j->distorted);
        fputc(',', f);
        csv_field(f, j->output);
        fprintf(f, ",%s,", j->format);
        if (values) fprintf(f, "%zu", j->num_frames);
        fputc(',', f);
        if (ran)
            fprintf(f, "%s,%d,%.3f", j->device_name, j->threads_used, j->seconds);
        else
            fputs(",,", f);
        /* The distorted input's kbit/s, for rate tables (bdrate, report):
         * skipped jobs too, so that a resumed summary equals a whole run's. */
        fputc(',', f);
        InputBitrate br;
        char err[256], buf[64];
        if (values && input_bitrate(j->distorted, &br, err, sizeof(err)) == 0)
            fprintf(f, "%s,%s", shortest(buf, sizeof(buf), br.kbps), br.source);
        else
            fputc(',', f);
        const int pooled_here = !strcmp(j->format, "csv") || !strcmp(j->format, "sub");
        const int precision = job_precision(j);
        for (int k = 0; k < PSNRHVS_NUM_KEYS; k++) {
            const double v[4] = {j->pool[k].min, j->pool[k].max, j->pool[k].mean,
                                 j->pool[k].harmonic_mean};
            for (int s = 0; s < 4; s++) {
                char buf[64];
                fputc(',', f);
                if (values && j->has_key[k])
                    fputs(pooled_here ? pooled_text(buf, sizeof(buf), v[s], precision)
                                      : shortest(buf, sizeof(buf), v[s]),
                          f);
            }
        }
        fputc(',', f);
        csv_field(f, j->state == JOB_NOT_RUN ? "interrupted before it started" : j->message);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}
