/*
 * decode_bench: how fast the input library hands out the frames of
 * compressed files, without scoring: every file read to its end on a thread
 * of its own, at once, as the pair reader reads a reference and its encodes.
 *   decode_bench [--hwaccel] [--device] [--timing] FILE...
 * --hwaccel decodes on NVDEC; --device keeps its frames on the GPU (what the
 * CUDA backend scores in place) instead of copying them to host memory;
 * --timing is the CLI's (docs/cli.md).
 * One line a file and one for all: frames, open (to the first frame), the
 * rest, fps of the rest ("steady") and of the whole.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "input/input.h"

typedef struct Job {
    const char *path;
    InputOptions opt;
    int device;
    unsigned frames;
    double t_open, t_first, t_end; ///< seconds from the start
    int failed;
    pthread_t th;
} Job;

static double t0;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9 - t0;
}

static void *run(void *const arg) {
    Job *const j = arg;
    Input *in = NULL;
    InputFormat fmt;
    InputFrame frame = {0};
    j->failed = 1;
    if (input_open(&in, j->path, &j->opt) < 0) return NULL;
    j->t_open = now();
    if (!input_has_format(in, &fmt) || input_set_format(in, &fmt) < 0 ||
        input_frame_alloc(in, &frame) < 0)
        goto end;
    DeviceFrames df;
    if (j->device && input_device_frames(in, &df)) input_keep_on_device(in);
    int res;
    while ((res = input_read(in, &frame)) > 0)
        if (!j->frames++) j->t_first = now();
    j->t_end = now();
    if (res < 0) {
        fprintf(stderr, "decode_bench: %s\n", input_error(in));
        goto end;
    }
    j->failed = 0;
end:
    input_frame_free(&frame);
    input_close(&in);
    return NULL;
}

int main(int argc, char **argv) {
    InputOptions opt = {0};
    int device = 0, first = 1;
    for (; first < argc && argv[first][0] == '-' && argv[first][1] == '-'; first++) {
        if (!strcmp(argv[first], "--hwaccel"))
            opt.hwaccel = INPUT_HWACCEL_CUDA;
        else if (!strcmp(argv[first], "--device"))
            device = 1;
        else if (!strcmp(argv[first], "--timing"))
            opt.timing = 1;
        else
            break;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: decode_bench [--hwaccel] [--device] [--timing] FILE...\n");
        return 2;
    }
    const int n = argc - first;
    Job *const jobs = calloc((size_t)n, sizeof(*jobs));
    if (!jobs) return 1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    t0 = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    for (int i = 0; i < n; i++) {
        jobs[i] = (Job){.path = argv[first + i], .opt = opt, .device = device};
        if (pthread_create(&jobs[i].th, NULL, run, &jobs[i])) return 1;
    }
    int failed = 0;
    double end = 0, first_frame = 0;
    unsigned frames = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(jobs[i].th, NULL);
        const Job *const j = &jobs[i];
        failed |= j->failed;
        const double rest = j->t_end - j->t_first;
        printf("%s: %u frames, first frame %.1f ms, then %.1f ms: %.1f fps steady, %.1f fps "
               "whole\n",
               j->path, j->frames, j->t_first * 1e3, rest * 1e3,
               rest > 0 ? (j->frames - 1) / rest : 0.0, j->t_end > 0 ? j->frames / j->t_end : 0.0);
        if (j->t_end > end) end = j->t_end;
        if (j->t_first > first_frame) first_frame = j->t_first;
        if (!i || j->frames < frames) frames = j->frames;
    }
    printf("all: %u frames each, %.1f ms, first frames by %.1f ms: %.1f fps steady, %.1f fps "
           "whole\n",
           frames, end * 1e3, first_frame * 1e3,
           end > first_frame ? (frames - 1) / (end - first_frame) : 0.0,
           end > 0 ? frames / end : 0.0);
    free(jobs);
    return failed;
}
