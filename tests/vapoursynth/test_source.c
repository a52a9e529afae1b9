/*
 * A VapourSynth source for the plugin's tests and bench only (never
 * installed): psnrhvstest.Raw(data path, int width, int height, int format)
 * reads raw planar YUV or gray as FFmpeg writes it (chroma planes rounded
 * up, samples above 8 bits 16-bit little endian) and hands out VapourSynth
 * frames holding libvmaf's scored part (chroma rounded down, which is
 * VapourSynth's own plane size). std.BlankClip refuses 4:2:0 sizes that are
 * not even; this makes the golden pairs of odd sizes, and feeds the bench
 * frames without Python in the way.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _GNU_SOURCE /* pread */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <VapourSynth4.h>

typedef struct Source {
    int fd;
    VSVideoInfo vi;
    int stored_w[3], stored_h[3];
    size_t plane_bytes[3], frame_bytes;
} Source;

static const VSFrame *VS_CC raw_get_frame(int n, int reason, void *instance, void **frame_data,
                                          VSFrameContext *fc, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    Source *const d = instance;
    if (reason != arInitial) return NULL;
    const int bps = d->vi.format.bytesPerSample;
    VSFrame *const f = vsapi->newVideoFrame(&d->vi.format, d->vi.width, d->vi.height, NULL, core);
    uint8_t *const buf = malloc(d->plane_bytes[0]);
    off_t off = (off_t)n * (off_t)d->frame_bytes;
    for (int p = 0; buf && p < d->vi.format.numPlanes; p++) {
        if (pread(d->fd, buf, d->plane_bytes[p], off) != (ssize_t)d->plane_bytes[p]) {
            vsapi->setFilterError("Raw: short read", fc);
            free(buf);
            vsapi->freeFrame(f);
            return NULL;
        }
        off += (off_t)d->plane_bytes[p];
        uint8_t *dst = vsapi->getWritePtr(f, p);
        const ptrdiff_t stride = vsapi->getStride(f, p);
        const int w = vsapi->getFrameWidth(f, p), h = vsapi->getFrameHeight(f, p);
        for (int y = 0; y < h; y++)
            memcpy(dst + y * stride, buf + (size_t)y * d->stored_w[p] * bps, (size_t)w * bps);
    }
    free(buf);
    return f;
}

static void VS_CC raw_free(void *instance, VSCore *core, const VSAPI *vsapi) {
    (void)core, (void)vsapi;
    Source *const d = instance;
    close(d->fd);
    free(d);
}

static void VS_CC raw_create(const VSMap *in, VSMap *out, void *user_data, VSCore *core,
                             const VSAPI *vsapi) {
    (void)user_data;
    Source *const d = calloc(1, sizeof(*d));
    const char *const path = vsapi->mapGetData(in, "path", 0, NULL);
    const int w = (int)vsapi->mapGetInt(in, "width", 0, NULL);
    const int h = (int)vsapi->mapGetInt(in, "height", 0, NULL);
    const uint32_t id = (uint32_t)vsapi->mapGetInt(in, "format", 0, NULL);
    struct stat st;
    if (!d || !vsapi->getVideoFormatByID(&d->vi.format, id, core) || w <= 0 || h <= 0) {
        vsapi->mapSetError(out, "Raw: bad format or size");
        free(d);
        return;
    }
    if ((d->fd = open(path, O_RDONLY)) < 0 || fstat(d->fd, &st)) {
        vsapi->mapSetError(out, "Raw: cannot open the file");
        if (d->fd >= 0) close(d->fd);
        free(d);
        return;
    }
    const VSVideoFormat *const f = &d->vi.format;
    for (int p = 0; p < f->numPlanes; p++) {
        const int sw = p ? f->subSamplingW : 0, sh = p ? f->subSamplingH : 0;
        d->stored_w[p] = (w + (1 << sw) - 1) >> sw;
        d->stored_h[p] = (h + (1 << sh) - 1) >> sh;
        d->plane_bytes[p] = (size_t)d->stored_w[p] * d->stored_h[p] * f->bytesPerSample;
        d->frame_bytes += d->plane_bytes[p];
    }
    d->vi.width = w;
    d->vi.height = h;
    d->vi.fpsNum = 25;
    d->vi.fpsDen = 1;
    d->vi.numFrames = (int)((size_t)st.st_size / d->frame_bytes);
    if (d->vi.numFrames < 1) {
        vsapi->mapSetError(out, "Raw: no whole frame in the file");
        close(d->fd);
        free(d);
        return;
    }
    vsapi->createVideoFilter(out, "Raw", &d->vi, raw_get_frame, raw_free, fmParallel, NULL, 0, d,
                             core);
}

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin("com.psnrhvs.testsource", "psnrhvstest", "psnrhvs test source",
                         VS_MAKE_VERSION(1, 0), VAPOURSYNTH_API_VERSION, 0, plugin);
    vspapi->registerFunction("Raw", "path:data;width:int;height:int;format:int;", "clip:vnode;",
                             raw_create, NULL, plugin);
}
