/*
 * psnrhvs: the VapourSynth API4 plugin, psnrhvs.Metric (docs/vapoursynth.md); how
 * its requests map to one context: docs/architecture.md, "The VapourSynth plugin".
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <VapourSynth4.h>

#include "psnrhvs.h"

#define PLUGIN_ID "com.psnrhvs.psnrhvs"

/* One frame's pair, from the getFrame call that waits for it. */
typedef struct Job {
    PsnrHvsPicture ref, dist;
    int n;
    int done, res;
    PsnrHvsScore score;
    char msg[1024];
    struct Job *next;
} Job;

typedef struct Filter {
    VSNode *ref, *dist;
    int luma_only;
    PsnrHvsContext *ctx;
    pthread_t worker;
    int worker_started;

    pthread_mutex_t lock;
    pthread_cond_t work, done;
    Job *queue, *queue_tail;   ///< waiting to be sent
    Job *flight, *flight_tail; ///< sent, oldest first: what receive returns next
    int stop;

    pthread_mutex_t log_lock;
    char last_log[512]; ///< the library's last message, for errors
    const VSAPI *vsapi;
    VSCore *core;
} Filter;

static void log_message(void *const cookie, const char *const msg) {
    Filter *const d = cookie;
    pthread_mutex_lock(&d->log_lock);
    snprintf(d->last_log, sizeof(d->last_log), "%s", msg);
    pthread_mutex_unlock(&d->log_lock);
    if (d->core) d->vsapi->logMessage(mtInformation, msg, d->core);
}

static void take_log(Filter *const d, char *const buf, const size_t size) {
    pthread_mutex_lock(&d->log_lock);
    snprintf(buf, size, "%s", d->last_log);
    d->last_log[0] = '\0';
    pthread_mutex_unlock(&d->log_lock);
}

static void push(Job **const head, Job **const tail, Job *const j) {
    j->next = NULL;
    if (*tail)
        (*tail)->next = j;
    else
        *head = j;
    *tail = j;
}

static Job *pop(Job **const head, Job **const tail) {
    Job *const j = *head;
    if (j && !(*head = j->next)) *tail = NULL;
    return j;
}

/* An error for job j: the library's message where it logged one. */
static void fail_job(Filter *const d, Job *const j, const int res, const char *const what) {
    char log[512];
    take_log(d, log, sizeof(log));
    snprintf(j->msg, sizeof(j->msg), "Metric: frame %d: %s: %s", j->n, what,
             log[0] ? log : strerror(-res));
    j->res = res;
    j->done = 1;
}

static void *worker_main(void *const arg) {
    Filter *const d = arg;
    pthread_mutex_lock(&d->lock);
    for (;;) {
        /* Sending first: a frame queued while a receive waited goes out at once. */
        Job *const j = pop(&d->queue, &d->queue_tail);
        if (j) {
            pthread_mutex_unlock(&d->lock);
            const int res = psnrhvs_send(d->ctx, &j->ref, &j->dist, (uint64_t)(uintptr_t)j);
            pthread_mutex_lock(&d->lock);
            if (res == PSNRHVS_ERR(EAGAIN) && d->flight) {
                /* Full: back to the front, and take the oldest score first. */
                j->next = d->queue;
                d->queue = j;
                if (!d->queue_tail) d->queue_tail = j;
            } else if (res < 0) {
                fail_job(d, j, res, "cannot score it");
                pthread_cond_broadcast(&d->done);
                continue;
            } else {
                push(&d->flight, &d->flight_tail, j);
                continue;
            }
        }
        if (d->flight) {
            Job *const oldest = pop(&d->flight, &d->flight_tail);
            PsnrHvsScore score;
            pthread_mutex_unlock(&d->lock);
            const int res = psnrhvs_receive(d->ctx, &score);
            pthread_mutex_lock(&d->lock);
            if (res < 0)
                fail_job(d, oldest, res, "cannot score it");
            else if (score.tag != (uint64_t)(uintptr_t)oldest)
                fail_job(d, oldest, PSNRHVS_ERR(EIO), "scores came back out of order");
            else
                oldest->score = score, oldest->done = 1;
            pthread_cond_broadcast(&d->done);
            continue;
        }
        if (d->stop) break;
        pthread_cond_wait(&d->work, &d->lock);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

static void picture(const VSAPI *const vsapi, const VSFrame *const f, const int planes,
                    PsnrHvsPicture *const pic) {
    memset(pic, 0, sizeof(*pic));
    for (int p = 0; p < planes; p++) {
        pic->data[p] = vsapi->getReadPtr(f, p);
        pic->stride[p] = vsapi->getStride(f, p);
    }
}

static const VSFrame *VS_CC metric_get_frame(int n, int reason, void *instance, void **frame_data,
                                             VSFrameContext *fc, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    Filter *const d = instance;
    if (reason == arInitial) {
        vsapi->requestFrameFilter(n, d->ref, fc);
        vsapi->requestFrameFilter(n, d->dist, fc);
        return NULL;
    }
    if (reason != arAllFramesReady) return NULL;
    const VSFrame *const ref = vsapi->getFrameFilter(n, d->ref, fc);
    const VSFrame *const dist = vsapi->getFrameFilter(n, d->dist, fc);
    const int planes = d->luma_only ? 1 : 3;
    Job job = {.n = n};
    picture(vsapi, ref, planes, &job.ref);
    picture(vsapi, dist, planes, &job.dist);

    pthread_mutex_lock(&d->lock);
    push(&d->queue, &d->queue_tail, &job);
    pthread_cond_signal(&d->work);
    while (!job.done) pthread_cond_wait(&d->done, &d->lock);
    pthread_mutex_unlock(&d->lock);

    VSFrame *out = NULL;
    if (job.res < 0) {
        vsapi->setFilterError(job.msg, fc);
    } else {
        out = vsapi->copyFrame(dist, core);
        VSMap *const props = vsapi->getFramePropertiesRW(out);
        vsapi->mapSetFloat(props, "_PSNRHVS", job.score.psnr_hvs, maReplace);
        vsapi->mapSetFloat(props, "_PSNRHVS_Y", job.score.psnr_hvs_y, maReplace);
        if (job.score.num_planes == 3) {
            vsapi->mapSetFloat(props, "_PSNRHVS_CB", job.score.psnr_hvs_cb, maReplace);
            vsapi->mapSetFloat(props, "_PSNRHVS_CR", job.score.psnr_hvs_cr, maReplace);
        }
    }
    vsapi->freeFrame(ref);
    vsapi->freeFrame(dist);
    return out;
}

static void filter_destroy(Filter *const d, const VSAPI *const vsapi) {
    if (d->worker_started) {
        pthread_mutex_lock(&d->lock);
        d->stop = 1;
        pthread_cond_signal(&d->work);
        pthread_mutex_unlock(&d->lock);
        pthread_join(d->worker, NULL);
    }
    if (d->ctx) psnrhvs_close(&d->ctx);
    pthread_cond_destroy(&d->work);
    pthread_cond_destroy(&d->done);
    pthread_mutex_destroy(&d->lock);
    pthread_mutex_destroy(&d->log_lock);
    vsapi->freeNode(d->ref);
    vsapi->freeNode(d->dist);
    free(d);
}

static void VS_CC metric_free(void *instance, VSCore *core, const VSAPI *vsapi) {
    (void)core;
    filter_destroy(instance, vsapi);
}

/* The clip's format as the library's, or a reason it has none. */
static const char *check_format(const VSVideoInfo *const vi, const VSAPI *const vsapi,
                                PsnrHvsSettings *const s, char *const buf, const size_t size) {
    const VSVideoFormat *const f = &vi->format;
    char name[32] = "?";
    if (f->colorFamily != cfUndefined) vsapi->getVideoFormatName(f, name);
    if (f->colorFamily == cfUndefined || !vi->width || !vi->height)
        return "clips must have a constant format and size";
    if ((f->colorFamily != cfYUV && f->colorFamily != cfGray) || f->sampleType != stInteger) {
        snprintf(buf, size,
                 "%s is not supported: psnr_hvs scores planar YUV or GRAY of integer samples "
                 "(convert it, e.g. with resize.Bicubic(format=vs.YUV420P8))",
                 name);
        return buf;
    }
    if (f->bitsPerSample != 8 && f->bitsPerSample != 10 && f->bitsPerSample != 12) {
        snprintf(buf, size,
                 "%s is not supported: %d-bit samples; psnr_hvs (as libvmaf) scores 8, 10 or 12 "
                 "bits",
                 name, f->bitsPerSample);
        return buf;
    }
    if (f->colorFamily == cfGray)
        s->layout = PSNRHVS_PIXEL_LAYOUT_I400;
    else if (f->subSamplingW == 1 && f->subSamplingH == 1)
        s->layout = PSNRHVS_PIXEL_LAYOUT_I420;
    else if (f->subSamplingW == 1 && f->subSamplingH == 0)
        s->layout = PSNRHVS_PIXEL_LAYOUT_I422;
    else if (f->subSamplingW == 0 && f->subSamplingH == 0)
        s->layout = PSNRHVS_PIXEL_LAYOUT_I444;
    else {
        snprintf(buf, size, "%s is not supported: chroma 4:2:0, 4:2:2 or 4:4:4 only", name);
        return buf;
    }
    s->bitdepth = f->bitsPerSample;
    s->width = vi->width;
    s->height = vi->height;
    return NULL;
}

/* Why the two clips cannot be scored together, in msg, or msg empty; the format into s. */
static void check_clips(const VSVideoInfo *const rvi, const VSVideoInfo *const dvi,
                        const VSAPI *const vsapi, PsnrHvsSettings *const s, const char *const rname,
                        const char *const dname, char *const msg, const size_t size) {
    char why[512];
    const char *const bad = check_format(rvi, vsapi, s, why, sizeof(why));
    msg[0] = '\0';
    if (bad)
        snprintf(msg, size, "Metric: reference: %s", bad);
    else if (rvi->width != dvi->width || rvi->height != dvi->height)
        snprintf(msg, size,
                 "Metric: reference and distorted differ in size: %dx%d vs %dx%d (scale the "
                 "distorted to the reference size first, e.g. with resize.Bicubic)",
                 rvi->width, rvi->height, dvi->width, dvi->height);
    else if (memcmp(&rvi->format, &dvi->format, sizeof(rvi->format)))
        snprintf(msg, size, "Metric: reference and distorted differ in format: %s vs %s", rname,
                 dname);
    else if (rvi->numFrames != dvi->numFrames)
        snprintf(msg, size,
                 "Metric: reference and distorted differ in length: %d vs %d frames (trim the "
                 "longer one)",
                 rvi->numFrames, dvi->numFrames);
}

/* The library's backend names: "auto, cpu, ... or vulkan". */
static void backend_names(char *const names, const size_t size) {
    names[0] = '\0';
    for (int i = 0; psnrhvs_backend_string((enum PsnrHvsBackend)i); i++) {
        const char *const sep = !i                                                     ? ""
                                : psnrhvs_backend_string((enum PsnrHvsBackend)(i + 1)) ? ", "
                                                                                       : " or ";
        strncat(names, sep, size - strlen(names) - 1);
        strncat(names, psnrhvs_backend_string((enum PsnrHvsBackend)i), size - strlen(names) - 1);
    }
}

/* The optional arguments into s and *backend. @return 0 or -1 with the reason in msg */
static int read_arguments(const VSMap *const in, const VSAPI *const vsapi, PsnrHvsSettings *const s,
                          const char **const backend, char *const msg, const size_t size) {
    int err = 0;
    *backend = vsapi->mapGetData(in, "backend", 0, &err);
    if (err) *backend = "auto";
    const int b = psnrhvs_backend_from_string(*backend);
    if (b < 0) {
        char names[128];
        backend_names(names, sizeof(names));
        snprintf(msg, size, "Metric: unknown backend '%s' (expected %s)", *backend, names);
        return -1;
    }
    s->backend = (enum PsnrHvsBackend)b;
    const int64_t device = vsapi->mapGetInt(in, "device", 0, &err);
    if (!err) {
        if (device < 0 || device > INT32_MAX) {
            snprintf(msg, size, "Metric: device must be 0 or more");
            return -1;
        }
        s->device = (int)device;
    }
    const int64_t chroma = vsapi->mapGetInt(in, "chroma", 0, &err);
    if (!err) s->enable_chroma = chroma != 0;
    const char *const mask = vsapi->mapGetData(in, "mask_product", 0, &err);
    if (!err) {
        if (!strcmp(mask, "float"))
            s->mask_product = PSNRHVS_MASK_PRODUCT_FLOAT;
        else if (!strcmp(mask, "exact"))
            s->mask_product = PSNRHVS_MASK_PRODUCT_EXACT;
        else {
            snprintf(msg, size, "Metric: unknown mask_product '%s' (expected float or exact)",
                     mask);
            return -1;
        }
    }
    return 0;
}

/* The context and its worker. @return 0 or -1 with the reason in msg */
static int open_scorer(Filter *const d, PsnrHvsSettings *const s, VSCore *const core,
                       const char *const backend, const char *const rname, char *const msg,
                       const size_t size) {
    d->luma_only = s->layout == PSNRHVS_PIXEL_LAYOUT_I400 || !s->enable_chroma;
    s->memory = PSNRHVS_MEMORY_HOST_RETAINED;
    s->logger.cookie = d;
    s->logger.callback = log_message;
    d->core = core;
    const int res = psnrhvs_open(&d->ctx, s);
    if (res < 0) {
        char why[512];
        take_log(d, why, sizeof(why));
        /* The library names its own setting; here it is chroma=0. */
        const int chroma_hint = res == PSNRHVS_ERR(ERANGE) && strstr(why, "enable_chroma");
        snprintf(msg, size, "Metric: cannot open the %s scorer for %dx%d %s: %s%s", backend,
                 s->width, s->height, rname, why[0] ? why : strerror(-res),
                 chroma_hint ? " (chroma=0 here)" : "");
        return -1;
    }
    if (pthread_create(&d->worker, NULL, worker_main, d)) {
        snprintf(msg, size, "Metric: cannot start its worker thread");
        return -1;
    }
    d->worker_started = 1;
    return 0;
}

static void VS_CC metric_create(const VSMap *in, VSMap *out, void *user_data, VSCore *core,
                                const VSAPI *vsapi) {
    (void)user_data;
    char msg[768];
    Filter *const d = calloc(1, sizeof(*d));
    if (!d) {
        vsapi->mapSetError(out, "Metric: out of memory");
        return;
    }
    pthread_mutex_init(&d->lock, NULL);
    pthread_mutex_init(&d->log_lock, NULL);
    pthread_cond_init(&d->work, NULL);
    pthread_cond_init(&d->done, NULL);
    d->vsapi = vsapi;
    d->ref = vsapi->mapGetNode(in, "reference", 0, NULL);
    d->dist = vsapi->mapGetNode(in, "distorted", 0, NULL);
    const VSVideoInfo *const rvi = vsapi->getVideoInfo(d->ref);
    const VSVideoInfo *const dvi = vsapi->getVideoInfo(d->dist);

    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    char rname[32] = "?", dname[32] = "?";
    if (rvi->format.colorFamily != cfUndefined) vsapi->getVideoFormatName(&rvi->format, rname);
    if (dvi->format.colorFamily != cfUndefined) vsapi->getVideoFormatName(&dvi->format, dname);
    check_clips(rvi, dvi, vsapi, &s, rname, dname, msg, sizeof(msg));
    const char *backend;
    if (msg[0] || read_arguments(in, vsapi, &s, &backend, msg, sizeof(msg)) < 0 ||
        open_scorer(d, &s, core, backend, rname, msg, sizeof(msg)) < 0) {
        vsapi->mapSetError(out, msg);
        filter_destroy(d, vsapi);
        return;
    }
    const VSFilterDependency deps[] = {{d->ref, rpStrictSpatial}, {d->dist, rpStrictSpatial}};
    vsapi->createVideoFilter(out, "Metric", dvi, metric_get_frame, metric_free, fmParallel, deps, 2,
                             d, core);
}

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin(PLUGIN_ID, "psnrhvs", "PSNR-HVS with the bits of libvmaf's psnr_hvs",
                         VS_MAKE_VERSION(PSNRHVS_VERSION_MAJOR, PSNRHVS_VERSION_MINOR),
                         VAPOURSYNTH_API_VERSION, 0, plugin);
    vspapi->registerFunction("Metric",
                             "reference:vnode;distorted:vnode;backend:data:opt;device:int:opt;"
                             "chroma:int:opt;mask_product:data:opt;",
                             "clip:vnode;", metric_create, NULL, plugin);
}
