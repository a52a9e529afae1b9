/*
 * psnrhvs: what target found: a table on stdout, and -o's JSON or CSV.
 * The JSON's "run" object holds what depends on where and how fast it ran
 * (the backend, times); the rest is the same bytes on every backend.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "output/output.h"
#include "target/target.h"

/** What a writer of the result needs. */
typedef struct Out {
    const TargetArgs *a;
    const Source *s;
    const TargetResult *r;
} Out;

static double duration(const Source *const s, const long long frames) {
    return (double)frames * s->fps_den / s->fps_num;
}

/* The whole source's size at a probe's bitrate. */
static double predicted_bytes(const Source *const s, const Probe *const p) {
    return p->kbps * 1000 / 8 * duration(s, s->frames);
}

static void print_answer(const Out *const o, const Probe *const p) {
    const double bytes = predicted_bytes(o->s, p);
    printf("%s %.6g: %s %s %.4f dB, %.1f kbit/s; predicted %.0f bytes for %.2f s", o->r->param,
           p->value, psnrhvs_key_string(o->a->key), o->a->pool.name, p->score, p->kbps, bytes,
           duration(o->s, o->s->frames));
    if (o->s->file_bytes)
        printf(" (%.2f %% of the source's %lld)", 100.0 * bytes / (double)o->s->file_bytes,
               o->s->file_bytes);
    printf("\n");
}

int target_print(const TargetArgs *const a, const Source *const s, const TargetResult *const r) {
    const Out o = {a, s, r};
    if (!a->quiet) {
        printf("%s %s %g-%g, %s %s >= %g dB; %d sample%s, %d of %lld frames; scored on %s\n",
               a->encoder, r->param, r->lo, r->hi, psnrhvs_key_string(a->key), a->pool.name,
               a->target, s->num_samples, s->num_samples == 1 ? "" : "s", s->sample_frames,
               s->frames, r->backend);
        printf("%8s %10s %12s %12s %9s %9s\n", r->param, "score", "kbit/s", "bytes", "encode s",
               "score s");
        /* By setting, best quality first. */
        for (int idx = -1;;) {
            int next = -1;
            for (int i = 0; i < r->num_probes; i++)
                if (r->probe[i].index > idx &&
                    (next < 0 || r->probe[i].index < r->probe[next].index))
                    next = i;
            if (next < 0) break;
            const Probe *const p = &r->probe[next];
            printf("%8.6g %10.4f %12.1f %12lld %9.3f %9.3f%s\n", p->value, p->score, p->kbps,
                   p->bytes, p->encode_s, p->score_s, next == r->chosen ? "  <-" : "");
            idx = p->index;
        }
    }
    if (r->chosen >= 0) print_answer(&o, &r->probe[r->chosen]);
    return fflush(stdout) || ferror(stdout) ? -1 : 0;
}

/* A number for JSON: null where it is not finite (a probe identical to the source). */
static void jnum(FILE *const f, const double v) {
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void json_string(FILE *const f, const char *const s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_probe(FILE *const f, const Out *const o, const Probe *const p, const int full) {
    fprintf(f, "{\"setting\": ");
    jnum(f, p->value);
    fprintf(f, ", \"score\": ");
    jnum(f, p->score);
    fprintf(f, ", \"kbps\": ");
    jnum(f, p->kbps);
    fprintf(f, ", \"bytes\": %lld", p->bytes);
    if (full) {
        fprintf(f, ", \"predicted_bytes\": %.0f", predicted_bytes(o->s, p));
        if (o->s->file_bytes) fprintf(f, ", \"source_bytes\": %lld", o->s->file_bytes);
    }
    fprintf(f, "}");
}

static void json_source(FILE *const f, const Out *const o) {
    const Source *const s = o->s;
    fprintf(f, "  \"source\": {\"file\": ");
    json_string(f, o->a->source);
    fprintf(f,
            ", \"width\": %d, \"height\": %d, \"pixel_format\": \"%s\", \"bitdepth\": %d, "
            "\"fps\": \"%d/%d\", \"frames\": %lld},\n",
            s->fmt.width, s->fmt.height, psnrhvs_layout_string(s->fmt.layout), s->fmt.bitdepth,
            s->fps_num, s->fps_den, s->frames);
    fprintf(f, "  \"samples\": [");
    for (int i = 0; i < s->num_samples; i++)
        fprintf(f, "%s{\"start\": %lld, \"frames\": %d}", i ? ", " : "", s->sample[i].start,
                s->sample[i].frames);
    fprintf(f, "],\n  \"encoder\": ");
    json_string(f, o->a->encoder);
    fprintf(f, ",\n  \"encoder_options\": ");
    if (o->a->encoder_options)
        json_string(f, o->a->encoder_options);
    else
        fputs("null", f);
}

static void json_run(FILE *const f, const Out *const o) {
    fprintf(f, "  \"run\": {\"backend\": ");
    json_string(f, o->r->backend ? o->r->backend : "?");
    fprintf(f, ", \"seconds\": %.3f, \"probes\": [", o->r->seconds);
    for (int i = 0; i < o->r->num_probes; i++) {
        const Probe *const p = &o->r->probe[i];
        fprintf(f,
                "%s{\"setting\": %.17g, \"encode_s\": %.3f, \"score_s\": %.3f, \"wall_s\": %.3f}",
                i ? ", " : "", p->value, p->encode_s, p->score_s, p->wall_s);
    }
    fprintf(f, "]}\n");
}

static int write_json(FILE *const f, const void *const cookie) {
    const Out *const o = cookie;
    const TargetResult *const r = o->r;
    fprintf(f, "{\n  \"version\": \"psnrhvs %s\",\n", psnrhvs_version());
    json_source(f, o);
    fprintf(f, ",\n  \"parameter\": \"%s\",\n  \"range\": [%.17g, %.17g],\n", r->param, r->lo,
            r->hi);
    fprintf(f, "  \"key\": \"%s\",\n  \"pool\": \"%s\",\n  \"target\": %.17g,\n",
            psnrhvs_key_string(o->a->key), o->a->pool.name, o->a->target);
    fprintf(f, "  \"search\": \"%s\",\n  \"probes\": [", o->a->sweep ? "sweep" : "binary");
    for (int i = 0; i < r->num_probes; i++) {
        fprintf(f, "%s\n    ", i ? "," : "");
        json_probe(f, o, &r->probe[i], 0);
    }
    fprintf(f, "\n  ],\n  \"chosen\": ");
    if (r->chosen >= 0)
        json_probe(f, o, &r->probe[r->chosen], 1);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"best\": ");
    if (r->best >= 0)
        json_probe(f, o, &r->probe[r->best], 0);
    else
        fputs("null", f);
    if (o->a->encode && r->chosen >= 0) {
        fprintf(f, ",\n  \"encode\": {\"file\": ");
        json_string(f, o->a->encode);
        fprintf(f, ", \"score\": ");
        jnum(f, r->encoded_score);
        fprintf(f, ", \"kbps\": ");
        jnum(f, r->encoded_kbps);
        fprintf(f, ", \"bytes\": %lld}", r->encoded_bytes);
    }
    fprintf(f, ",\n");
    json_run(f, o);
    fprintf(f, "}\n");
    return ferror(f) ? -1 : 0;
}

/* A rate table as psnrhvs report and bdrate read one: bitrate in kbit/s and
 * the score as KEY_POOL (psnr_hvs_mean...), a row per probe. */
static int write_csv(FILE *const f, const void *const cookie) {
    const Out *const o = cookie;
    const char *const key = psnrhvs_key_string(o->a->key);
    fprintf(f, "id,%s,bitrate,%s_%s,bytes,encode_s,score_s,wall_s,chosen\n", o->r->param, key,
            o->a->pool.name);
    for (int i = 0; i < o->r->num_probes; i++) {
        const Probe *const p = &o->r->probe[i];
        fprintf(f, "%s%.6g,%.17g,%.17g,%.17g,%lld,%.3f,%.3f,%.3f,%d\n", o->r->param, p->value,
                p->value, p->kbps, p->score, p->bytes, p->encode_s, p->score_s, p->wall_s,
                i == o->r->chosen);
    }
    return ferror(f) ? -1 : 0;
}

int target_write(const TargetArgs *const a, const Source *const s, const TargetResult *const r) {
    if (!a->output) return 0;
    const Out o = {a, s, r};
    const size_t n = strlen(a->output);
    const int csv = n >= 4 && !strcasecmp(a->output + n - 4, ".csv");
    OutputFile *of = NULL;
    if (output_open(&of, a->output) < 0) return -1;
    return output_commit_with(&of, csv ? write_csv : write_json, &o);
}
