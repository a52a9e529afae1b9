/*
 * The VapourSynth plugin's throughput, without Python in the way (the GPU
 * machine's python3 is 3.12, which R65's module does not load): the core
 * (libvapoursynth.so, dlopen'ed) reads two raw files through the test source
 * (tests/vapoursynth/test_source.c), psnrhvs.Metric scores them, and frames
 * are requested as vspipe requests them, a window of R at once in frame
 * order (default: the core's thread count, vspipe's default).
 *
 *   vs_bench make DIR W H FRAMES DEPTH      write DIR/ref.yuv, DIR/dist.yuv (4:2:0)
 *   vs_bench run LIBVS PLUGIN SOURCE REF DIST W H DEPTH [options]
 *       --threads N     the core's threads (0: its default, the cores)
 *       --requests R    frames requested at once
 *       --backend B     psnrhvs.Metric's backend (default: auto)
 *       --values FILE   write each frame's _PSNRHVS as %.17g, one a line
 *       --source-only   time the two sources alone (what the metric adds to)
 *
 * Prints one line: frames, seconds, fps. bench/vapoursynth/vs_bench.sh runs it
 * beside the CLI on the same files and compares the values.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <VapourSynth4.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int make(const char *dir, int w, int h, int frames, int depth) {
    char path[2][4096];
    snprintf(path[0], sizeof(path[0]), "%s/ref.yuv", dir);
    snprintf(path[1], sizeof(path[1]), "%s/dist.yuv", dir);
    FILE *f[2] = {fopen(path[0], "wb"), fopen(path[1], "wb")};
    if (!f[0] || !f[1]) return fprintf(stderr, "vs_bench: cannot write in %s\n", dir), 1;
    const int bps = depth > 8 ? 2 : 1, max = (1 << depth) - 1;
    const size_t luma = (size_t)w * h, chroma = (size_t)((w + 1) / 2) * ((h + 1) / 2);
    uint8_t *const buf[2] = {malloc((luma + 2 * chroma) * bps), malloc((luma + 2 * chroma) * bps)};
    uint32_t rng = 25;
    for (int n = 0; n < frames; n++) {
        for (size_t i = 0; i < luma + 2 * chroma; i++) {
            /* a moving gradient with texture, and noise on the distorted side */
            const size_t x = i < luma ? i % w : (i - luma) % chroma % ((w + 1) / 2);
            const size_t y = i < luma ? i / w : (i - luma) % chroma / ((w + 1) / 2);
            int v = (int)((x * 3 + y * 2 + (size_t)n * 5) % 220) + ((x ^ y) & 8) + 16;
            v = v * max / 255;
            rng = rng * 1664525u + 1013904223u;
            int d = v + (int)(rng >> 29) - 4;
            d = d < 0 ? 0 : d > max ? max : d;
            for (int s = 0; s < 2; s++) {
                const int val = s ? d : v;
                if (bps == 2)
                    buf[s][2 * i] = (uint8_t)val, buf[s][2 * i + 1] = (uint8_t)(val >> 8);
                else
                    buf[s][i] = (uint8_t)val;
            }
        }
        for (int s = 0; s < 2; s++) fwrite(buf[s], bps, luma + 2 * chroma, f[s]);
    }
    int bad = 0;
    for (int s = 0; s < 2; s++) bad |= fclose(f[s]), free(buf[s]);
    return bad ? 1 : 0;
}

typedef struct Run {
    const VSAPI *vsapi;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done, failed, in_flight;
    double *values;
} Run;

static void VS_CC frame_done(void *user, const VSFrame *f, int n, VSNode *node, const char *err) {
    (void)node;
    Run *const r = user;
    double v = 0;
    if (f) {
        int e = 0;
        v = r->vsapi->mapGetFloat(r->vsapi->getFramePropertiesRO(f), "_PSNRHVS", 0, &e);
        r->vsapi->freeFrame(f);
    }
    pthread_mutex_lock(&r->lock);
    if (!f) {
        if (!r->failed) fprintf(stderr, "vs_bench: frame %d: %s\n", n, err ? err : "?");
        r->failed = 1;
    }
    if (r->values) r->values[n] = v;
    r->done++;
    r->in_flight--;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->lock);
}

static VSNode *invoke(const VSAPI *vsapi, VSCore *core, const char *id, const char *fn,
                      VSMap *args) {
    VSPlugin *const p = vsapi->getPluginByID(id, core);
    if (!p) {
        fprintf(stderr, "vs_bench: no plugin %s\n", id);
        exit(1);
    }
    VSMap *const ret = vsapi->invoke(p, fn, args);
    vsapi->freeMap(args);
    if (vsapi->mapGetError(ret)) {
        fprintf(stderr, "vs_bench: %s: %s\n", fn, vsapi->mapGetError(ret));
        exit(1);
    }
    VSNode *const node = vsapi->mapGetNode(ret, "clip", 0, NULL);
    vsapi->freeMap(ret);
    return node;
}

static void load(const VSAPI *vsapi, VSCore *core, const char *path) {
    VSMap *const args = vsapi->createMap();
    vsapi->mapSetData(args, "path", path, -1, dtUtf8, maReplace);
    VSMap *const ret =
        vsapi->invoke(vsapi->getPluginByID("com.vapoursynth.std", core), "LoadPlugin", args);
    vsapi->freeMap(args);
    if (vsapi->mapGetError(ret)) {
        fprintf(stderr, "vs_bench: LoadPlugin %s: %s\n", path, vsapi->mapGetError(ret));
        exit(1);
    }
    vsapi->freeMap(ret);
}

static VSNode *raw(const VSAPI *vsapi, VSCore *core, const char *path, int w, int h, int id) {
    VSMap *const args = vsapi->createMap();
    vsapi->mapSetData(args, "path", path, -1, dtUtf8, maReplace);
    vsapi->mapSetInt(args, "width", w, maReplace);
    vsapi->mapSetInt(args, "height", h, maReplace);
    vsapi->mapSetInt(args, "format", id, maReplace);
    return invoke(vsapi, core, "com.psnrhvs.testsource", "Raw", args);
}

/* Request every frame of each node, `requests` at once in frame order. */
static double pull(Run *const r, VSNode *const *nodes, int num_nodes, int frames, int requests) {
    const double t0 = now();
    int next = 0;
    pthread_mutex_lock(&r->lock);
    while (r->done < frames * num_nodes) {
        while (next < frames * num_nodes && r->in_flight < requests) {
            r->in_flight++;
            pthread_mutex_unlock(&r->lock);
            r->vsapi->getFrameAsync(next % frames, nodes[next / frames], frame_done, r);
            pthread_mutex_lock(&r->lock);
            next++;
        }
        pthread_cond_wait(&r->cond, &r->lock);
    }
    pthread_mutex_unlock(&r->lock);
    return now() - t0;
}

int main(int argc, char **argv) {
    if (argc == 7 && !strcmp(argv[1], "make"))
        return make(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
    if (argc < 10 || strcmp(argv[1], "run")) {
        fprintf(stderr, "usage: vs_bench make DIR W H FRAMES DEPTH\n"
                        "       vs_bench run LIBVS PLUGIN SOURCE REF DIST W H DEPTH [--threads N] "
                        "[--requests R] [--backend B] [--values FILE] [--source-only]\n");
        return 2;
    }
    const char *const libvs = argv[2], *const plugin = argv[3], *const source = argv[4];
    const char *const ref_path = argv[5], *const dist_path = argv[6];
    const int w = atoi(argv[7]), h = atoi(argv[8]), depth = atoi(argv[9]);
    int threads = 0, requests = 0, source_only = 0;
    const char *backend = NULL, *values = NULL;
    for (int i = 10; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--requests") && i + 1 < argc)
            requests = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            backend = argv[++i];
        else if (!strcmp(argv[i], "--values") && i + 1 < argc)
            values = argv[++i];
        else if (!strcmp(argv[i], "--source-only"))
            source_only = 1;
        else
            return fprintf(stderr, "vs_bench: unknown option %s\n", argv[i]), 2;
    }
    void *const so = dlopen(libvs, RTLD_NOW | RTLD_GLOBAL);
    const VSAPI *(*get_api)(int) =
        so ? (const VSAPI *(*)(int))dlsym(so, "getVapourSynthAPI") : NULL;
    const VSAPI *const vsapi = get_api ? get_api(VAPOURSYNTH_API_VERSION) : NULL;
    if (!vsapi) return fprintf(stderr, "vs_bench: cannot load %s: %s\n", libvs, dlerror()), 1;
    VSCore *const core = vsapi->createCore(ccfDisableAutoLoading);
    threads = vsapi->setThreadCount(threads, core);
    if (!requests) requests = threads;
    load(vsapi, core, source);
    if (!source_only) load(vsapi, core, plugin);
    const int id = (int)vsapi->queryVideoFormatID(cfYUV, stInteger, depth, 1, 1, core);
    VSNode *const ref = raw(vsapi, core, ref_path, w, h, id);
    VSNode *const dist = raw(vsapi, core, dist_path, w, h, id);
    const int frames = vsapi->getVideoInfo(ref)->numFrames;
    Run r = {.vsapi = vsapi};
    pthread_mutex_init(&r.lock, NULL);
    pthread_cond_init(&r.cond, NULL);
    double secs;
    if (source_only) {
        VSNode *const nodes[2] = {ref, dist};
        secs = pull(&r, nodes, 2, frames, requests);
    } else {
        VSMap *const args = vsapi->createMap();
        vsapi->mapSetNode(args, "reference", ref, maReplace);
        vsapi->mapSetNode(args, "distorted", dist, maReplace);
        if (backend) vsapi->mapSetData(args, "backend", backend, -1, dtUtf8, maReplace);
        VSNode *const m = invoke(vsapi, core, "com.psnrhvs.psnrhvs", "Metric", args);
        r.values = calloc((size_t)frames, sizeof(double));
        secs = pull(&r, &m, 1, frames, requests);
        vsapi->freeNode(m);
    }
    printf("vs_bench: %s%s: %d frames %dx%d %d-bit, %d threads, %d requests: %.3f s, %.1f fps\n",
           source_only ? "sources only" : "psnrhvs.Metric backend=",
           source_only ? "" : (backend ? backend : "auto"), frames, w, h, depth, threads, requests,
           secs, frames / secs);
    if (values && r.values) {
        FILE *const f = fopen(values, "w");
        for (int n = 0; f && n < frames; n++) fprintf(f, "%.17g\n", r.values[n]);
        if (f) fclose(f);
    }
    free(r.values);
    vsapi->freeNode(ref);
    vsapi->freeNode(dist);
    vsapi->freeCore(core);
    return r.failed;
}
