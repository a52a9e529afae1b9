/*
 * psnrhvs parity: the same frames through several backend configurations,
 * compared bit for bit (memcmp of the f32 raw scores and of the f64 dB values).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "parity.h"
#include "score/score_int.h"

/* Frames listed per key before "and N more". */
#define MAX_LISTED 16

static const char *const isa_names[] = {"auto", "scalar", "avx2", "avx512", "neon"};

static int lookup(const char *const name, const char *const *const tbl, const int n) {
    for (int i = 0; i < n; i++)
        if (!strcmp(name, tbl[i])) return i;
    return -1;
}

static int parse_int(const char *const s, const int max, int *const out) {
    long long v = 0;
    if (!*s) return -1;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > max) return -1;
    }
    *out = (int)v;
    return 0;
}

/* One configuration: BACKEND[:ISA][:KEY=VALUE...] */
static int parse_one(char *const text, ParityConfig *const c, char *const err,
                     const size_t err_size) {
    *c = (ParityConfig){
        .isa = -1,
        .threads = -1,
        .device = -1,
        .exact_helpers = -1,
        .mask_product = -1,
        .frames_in_flight = -1,
    };
    if (strlen(text) >= sizeof(c->label)) {
        snprintf(err, err_size, "configuration '%.40s...' is too long", text);
        return -1;
    }
    strcpy(c->label, text);
    char *next = strchr(text, ':');
    if (next) *next++ = '\0';
    enum PsnrHvsBackend b;
    if (cli_backend_from_name(text, &b) < 0) {
        char names[128];
        snprintf(err, err_size, "unknown backend '%s' in configuration '%s' (expected %s)", text,
                 c->label, cli_backend_names(names, sizeof(names)));
        return -1;
    }
    c->backend = b;
    /* auto (the CPU and every GPU) takes the CPU's options */
    const int is_cpu = psnrhvs_backend_kind(c->backend) != PSNRHVS_KIND_DEVICE;
    for (char *opt = next; opt; opt = next) {
        next = strchr(opt, ':');
        if (next) *next++ = '\0';
        char *const val = strchr(opt, '=');
        if (!val) {
            const int isa = lookup(opt, isa_names, 5);
            if (!is_cpu || isa < 0 || c->isa >= 0) {
                snprintf(err, err_size,
                         is_cpu ? "bad '%s' in configuration '%s' (expected one ISA: scalar, avx2, "
                                  "avx512, neon or auto, then KEY=VALUE options)"
                                : "bad '%s' in configuration '%s' (expected KEY=VALUE)",
                         opt, c->label);
                return -1;
            }
            c->isa = isa;
            continue;
        }
        *val = '\0';
        const char *const v = val + 1;
        int *field = NULL, max = 1 << 30;
        if (!strcmp(opt, "threads") && is_cpu)
            field = &c->threads, max = 1024;
        else if (!strcmp(opt, "device") && !is_cpu)
            field = &c->device;
        else if (!strcmp(opt, "exact_helpers") && !is_cpu)
            field = &c->exact_helpers, max = 1;
        else if (!strcmp(opt, "frames_in_flight"))
            field = &c->frames_in_flight, max = 1024;
        if (field) {
            if (parse_int(v, max, field) < 0) {
                snprintf(err, err_size, "bad value '%s' for %s in configuration '%s' (0 to %d)", v,
                         opt, c->label, max);
                return -1;
            }
        } else if (!strcmp(opt, "mask_product")) {
            c->mask_product = !strcmp(v, "float")   ? PSNRHVS_MASK_PRODUCT_FLOAT
                              : !strcmp(v, "exact") ? PSNRHVS_MASK_PRODUCT_EXACT
                                                    : -1;
            if (c->mask_product < 0) {
                snprintf(err, err_size,
                         "bad value '%s' for mask_product in configuration '%s' (float or exact)",
                         v, c->label);
                return -1;
            }
        } else {
            snprintf(err, err_size, "unknown option '%s' in configuration '%s' (%s)", opt, c->label,
                     is_cpu ? "cpu takes an ISA, threads=N, mask_product=M, frames_in_flight=N"
                            : "device backends take device=N, exact_helpers=0|1, mask_product=M, "
                              "frames_in_flight=N");
            return -1;
        }
    }
    return 0;
}

int parity_parse(const char *const list, ParityConfig *const cfg, const int max, char *const err,
                 const size_t err_size) {
    char *const copy = strdup(list);
    if (!copy) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    int n = 0;
    char *next = copy;
    do {
        char *const item = next;
        next = strchr(item, ',');
        if (next) *next++ = '\0';
        if (!*item) {
            snprintf(err, err_size, "empty configuration in '%s'", list);
            n = -1;
        } else if (n == max) {
            snprintf(err, err_size, "more than %d configurations", max);
            n = -1;
        } else if (parse_one(item, &cfg[n], err, err_size) < 0) {
            n = -1;
        } else {
            n++;
        }
    } while (next && n >= 0);
    free(copy);
    if (n == 1) {
        snprintf(err, err_size, "parity needs at least two configurations, got '%s'", list);
        n = -1;
    }
    return n;
}

/* Messages of a context: kept while it opens (the reason to skip it), then printed. */
typedef struct ParityLog {
    const char *label;
    int capturing;
    char first[512];
} ParityLog;

static void parity_log(void *const cookie, const char *const msg) {
    ParityLog *const log = cookie;
    if (log->capturing) {
        if (!log->first[0]) snprintf(log->first, sizeof(log->first), "%s", msg);
        return;
    }
    fprintf(stderr, "psnrhvs: %s: %s\n", log->label, msg);
}

typedef struct ParitySlot {
    const ParityConfig *cfg;
    PsnrHvsContext *ctx;
    ParityLog log;
    PsnrHvsScore *scores;
    size_t num, cap;
} ParitySlot;

static int open_slot(ParitySlot *const sl, const PsnrHvsSettings *const base, const int quiet) {
    const ParityConfig *const c = sl->cfg;
    PsnrHvsSettings s = *base;
    s.backend = c->backend;
    if (c->isa >= 0) s.isa = (enum PsnrHvsIsa)c->isa;
    if (c->threads >= 0) s.threads = c->threads;
    if (c->device >= 0) s.device = c->device;
    if (c->exact_helpers >= 0) s.exact_helpers = c->exact_helpers;
    if (c->mask_product >= 0) s.mask_product = (enum PsnrHvsMaskProduct)c->mask_product;
    if (c->frames_in_flight >= 0) s.frames_in_flight = c->frames_in_flight;
    sl->log.label = c->label;
    sl->log.capturing = 1;
    s.logger.cookie = &sl->log;
    s.logger.callback = parity_log;
    const int res = psnrhvs_open(&sl->ctx, &s);
    sl->log.capturing = 0;
    if (!res) return 0;
    const char *const why = sl->log.first[0]             ? sl->log.first
                            : res == PSNRHVS_ERR(ENOSYS) ? "not built in"
                            : res == PSNRHVS_ERR(ENODEV) ? "no such device"
                                                         : strerror(-res);
    if (c->optional) {
        if (!quiet) fprintf(stderr, "psnrhvs: parity: skipping %s: %s\n", c->label, why);
        return 1;
    }
    fprintf(stderr, "psnrhvs: parity: cannot open %s: %s\n", c->label, why);
    return -1;
}

static int receive_one(ParitySlot *const sl) {
    if (sl->num == sl->cap) {
        const size_t cap = sl->cap ? sl->cap * 2 : 64;
        PsnrHvsScore *const p = realloc(sl->scores, cap * sizeof(*p));
        if (!p) {
            fprintf(stderr, "psnrhvs: out of memory\n");
            return -1;
        }
        sl->scores = p;
        sl->cap = cap;
    }
    const int res = psnrhvs_receive(sl->ctx, &sl->scores[sl->num]);
    if (res == PSNRHVS_ERR(EAGAIN)) return 0;
    if (res < 0) {
        fprintf(stderr, "psnrhvs: %s: scoring failed: %s\n", sl->cfg->label, strerror(-res));
        return -1;
    }
    sl->num++;
    return 1;
}

static int send_one(ParitySlot *const sl, const FramePair *const fp) {
    for (;;) {
        const int res = psnrhvs_send(sl->ctx, fp->ref, fp->dist, fp->idx);
        if (!res) return 0;
        if (res != PSNRHVS_ERR(EAGAIN)) {
            fprintf(stderr, "psnrhvs: %s: scoring frame %u failed: %s\n", sl->cfg->label, fp->idx,
                    strerror(-res));
            return -1;
        }
        const int r = receive_one(sl);
        if (r < 0) return -1;
        if (!r) {
            fprintf(stderr, "psnrhvs: %s: the scorer is full with nothing queued\n",
                    sl->cfg->label);
            return -1;
        }
    }
}

static int drain(ParitySlot *const slots, const int n) {
    for (int i = 0; i < n; i++) {
        int r;
        while ((r = receive_one(&slots[i])) > 0) {
        }
        if (r < 0) return -1;
    }
    return 0;
}

enum { KEY_RAW_Y, KEY_RAW_CB, KEY_RAW_CR, KEY_Y, KEY_CB, KEY_CR, KEY_ALL, NUM_KEYS };
static const char *const key_names[NUM_KEYS] = {
    "raw_y", "raw_cb", "raw_cr", "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs",
};

static double key_value(const PsnrHvsScore *const s, const int k) {
    switch (k) {
    case KEY_RAW_Y:
    case KEY_RAW_CB:
    case KEY_RAW_CR:
        return s->raw[k];
    case KEY_Y:
        return s->psnr_hvs_y;
    case KEY_CB:
        return s->psnr_hvs_cb;
    case KEY_CR:
        return s->psnr_hvs_cr;
    default:
        return s->psnr_hvs;
    }
}

/* Bits, not values: -0 != +0 and a NaN equals only the same NaN. */
static int key_same(const PsnrHvsScore *const a, const PsnrHvsScore *const b, const int k) {
    if (k <= KEY_RAW_CR) return !memcmp(&a->raw[k], &b->raw[k], sizeof(float));
    const double x = key_value(a, k), y = key_value(b, k);
    return !memcmp(&x, &y, sizeof(double));
}

/* Distance in units in the last place (values of one type, both finite). */
static uint64_t ulps(const double x, const double y, const int is_float) {
    int64_t ox, oy;
    if (is_float) {
        const float fx = (float)x, fy = (float)y;
        int32_t ix, iy;
        memcpy(&ix, &fx, 4);
        memcpy(&iy, &fy, 4);
        ox = ix < 0 ? -(int64_t)(ix & 0x7fffffff) : ix;
        oy = iy < 0 ? -(int64_t)(iy & 0x7fffffff) : iy;
        return (uint64_t)(ox > oy ? ox - oy : oy - ox);
    }
    memcpy(&ox, &x, 8);
    memcpy(&oy, &y, 8);
    const uint64_t ux = ox < 0 ? (uint64_t)INT64_MAX + 1 - ((uint64_t)ox & INT64_MAX)
                               : (uint64_t)INT64_MAX + 1 + (uint64_t)ox;
    const uint64_t uy = oy < 0 ? (uint64_t)INT64_MAX + 1 - ((uint64_t)oy & INT64_MAX)
                               : (uint64_t)INT64_MAX + 1 + (uint64_t)oy;
    return ux > uy ? ux - uy : uy - ux;
}

/* One key of one configuration against the first. @return frames that differ. */
static size_t report_key(const ParitySlot *const base, const ParitySlot *const sl, const int k) {
    size_t differ = 0;
    double worst = 0.0;
    size_t worst_frame = 0;
    int worst_nan = 0;
    for (size_t f = 0; f < base->num; f++) {
        if (key_same(&base->scores[f], &sl->scores[f], k)) continue;
        const double d = fabs(key_value(&base->scores[f], k) - key_value(&sl->scores[f], k));
        if (!differ || (!worst_nan && (isnan(d) || d > worst))) {
            worst = d;
            worst_frame = f;
            worst_nan = isnan(d);
        }
        differ++;
    }
    printf("  %-12s ", key_names[k]);
    if (!differ) {
        printf("identical\n");
        return 0;
    }
    const double a = key_value(&base->scores[worst_frame], k);
    const double b = key_value(&sl->scores[worst_frame], k);
    printf("%zu of %zu frames differ; largest difference ", differ, base->num);
    if (k <= KEY_RAW_CR)
        printf("%a", worst);
    else
        printf("%.17g", worst);
    if (isfinite(a) && isfinite(b))
        printf(" (%llu ulp)", (unsigned long long)ulps(a, b, k <= KEY_RAW_CR));
    printf(" at frame %u (%a vs %a); frames", (unsigned)base->scores[worst_frame].tag, a, b);
    size_t listed = 0;
    for (size_t f = 0; f < base->num && listed < MAX_LISTED; f++) {
        if (key_same(&base->scores[f], &sl->scores[f], k)) continue;
        printf("%s %u", listed ? "," : "", (unsigned)base->scores[f].tag);
        listed++;
    }
    if (differ > listed) printf(" and %zu more", differ - listed);
    printf("\n");
    return differ;
}

static void default_list(ParityConfig *const cfg, int *const n, const PsnrHvsSettings *const base) {
    /* the explicit ISAs of this architecture only: another's is never built */
    static const char *const cpu[] = {
        "cpu:scalar:threads=1",
        "cpu:auto:threads=1",
        "cpu:auto",
#if defined(__aarch64__)
        "cpu:neon:threads=1",
#else
        "cpu:avx2:threads=1",
        "cpu:avx512:threads=1",
#endif
    };
    char err[256];
    *n = 0;
    for (size_t i = 0; i < sizeof(cpu) / sizeof(cpu[0]); i++) {
        parity_parse(cpu[i], &cfg[*n], 1, err, sizeof(err));
        /* the explicit ISAs may not be built or supported here */
        cfg[(*n)++].optional = i >= 3;
    }
    /* The default: the CPU and every GPU in one context. */
    parity_parse("auto", &cfg[*n], 1, err, sizeof(err));
    cfg[(*n)++].optional = 0;
    /* Then each device backend the library names, whatever its device is (a
     * GPU, or a CPU behind its API: PoCL, SYCL's OpenMP device, lavapipe). */
    for (int i = 0; psnrhvs_backend_string((enum PsnrHvsBackend)i); i++) {
        const enum PsnrHvsBackend b = (enum PsnrHvsBackend)i;
        if (psnrhvs_backend_kind(b) != PSNRHVS_KIND_DEVICE || !psnrhvs_backend_available(b))
            continue;
        parity_parse(psnrhvs_backend_string(b), &cfg[*n], 1, err, sizeof(err));
        cfg[(*n)++].optional = 1;
    }
}

int parity_run(const ParityOptions *const opt, const PsnrHvsSettings *const base,
               PairReader *const pr) {
    ParityConfig defaults[PARITY_MAX_CONFIGS];
    const ParityConfig *configs = opt->configs;
    int num_configs = opt->num_configs;
    if (!configs) {
        default_list(defaults, &num_configs, base);
        configs = defaults;
    }
    ParitySlot slots[PARITY_MAX_CONFIGS];
    memset(slots, 0, sizeof(slots));
    int n = 0, ret = 1;
    for (int i = 0; i < num_configs; i++) {
        slots[n] = (ParitySlot){.cfg = &configs[i]};
        const int res = open_slot(&slots[n], base, opt->quiet);
        if (res < 0) goto end;
        if (!res) n++;
    }
    if (n < 2) {
        fprintf(stderr, "psnrhvs: parity: fewer than two configurations could be opened\n");
        goto end;
    }

    FramePair fp;
    int res;
    while ((res = pair_reader_next(pr, &fp)) > 0) {
        if (fp.idx % opt->subsample == 0)
            for (int i = 0; i < n; i++)
                if (send_one(&slots[i], &fp) < 0) goto end;
        pair_reader_release(pr);
    }
    /* Frames before a read error come first, as without parity. */
    if (drain(slots, n) < 0) goto end;
    if (res < 0) {
        fprintf(stderr, "psnrhvs: %s\n", pair_reader_error(pr));
        goto end;
    }
    if (!slots[0].num) {
        fprintf(stderr, "psnrhvs: no frames to score\n");
        goto end;
    }
    for (int i = 1; i < n; i++) {
        if (slots[i].num != slots[0].num) {
            fprintf(stderr, "psnrhvs: parity: %s returned %zu scores, %s %zu\n", configs[i].label,
                    slots[i].num, slots[0].cfg->label, slots[0].num);
            goto end;
        }
        for (size_t f = 0; f < slots[0].num; f++) {
            if (slots[i].scores[f].tag != slots[0].scores[f].tag) {
                fprintf(stderr, "psnrhvs: parity: %s returned frame %u where %s returned %u\n",
                        slots[i].cfg->label, (unsigned)slots[i].scores[f].tag, slots[0].cfg->label,
                        (unsigned)slots[0].scores[f].tag);
                goto end;
            }
        }
    }

    /* Which configurations differ from the first, then each in detail. */
    int differing = 0;
    size_t frames_differ[PARITY_MAX_CONFIGS] = {0};
    const int luma_only = slots[0].scores[0].num_planes == 1;
    for (int i = 1; i < n; i++) {
        for (size_t f = 0; f < slots[0].num; f++) {
            for (int k = 0; k < NUM_KEYS; k++) {
                if (luma_only && k != KEY_RAW_Y && k != KEY_Y && k != KEY_ALL) continue;
                if (!key_same(&slots[0].scores[f], &slots[i].scores[f], k)) {
                    frames_differ[i]++;
                    break;
                }
            }
        }
        differing += frames_differ[i] > 0;
    }
    if (!differing) {
        printf("parity: %zu frames, %d configurations, identical\n", slots[0].num, n);
        ret = fflush(stdout) ? 1 : 0;
        goto end;
    }
    printf("parity: %zu frames, %d configurations, %d differ%s from %s\n", slots[0].num, n,
           differing, differing == 1 ? "s" : "", slots[0].cfg->label);
    for (int i = 1; i < n; i++) {
        if (!frames_differ[i]) {
            printf("%s: identical to %s\n", slots[i].cfg->label, slots[0].cfg->label);
            continue;
        }
        printf("%s vs %s: %zu of %zu frames differ\n", slots[i].cfg->label, slots[0].cfg->label,
               frames_differ[i], slots[0].num);
        for (int k = 0; k < NUM_KEYS; k++) {
            if (luma_only && k != KEY_RAW_Y && k != KEY_Y && k != KEY_ALL) continue;
            report_key(&slots[0], &slots[i], k);
        }
    }
    fflush(stdout);
    ret = 3;

end:
    for (int i = 0; i < num_configs && i < PARITY_MAX_CONFIGS; i++) {
        if (slots[i].ctx) psnrhvs_close(&slots[i].ctx);
        free(slots[i].scores);
    }
    return ret;
}

int cli_parity(const CLISettings *const cli, const PsnrHvsSettings lib) {
    Run *const run = run_new(cli, &lib, NULL);
    if (!run) return 1;
    int ret = run_open_inputs(run);
    if (!ret) ret = run_agree_format(run);
    if (!ret) ret = run_open_outputs(run);
    if (!ret) ret = run_prepare(run);
    if (!ret) {
        const ParityOptions po = {
            .configs = cli->num_configs ? cli->configs : NULL,
            .num_configs = cli->num_configs,
            .subsample = cli->subsample,
            .quiet = cli->quiet,
        };
        ret = parity_run(&po, &run->lib, run->pr);
    }
    return run_free(run, ret);
}
