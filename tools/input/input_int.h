/*
 * psnrhvs: what input.c and mapped.c (the mapped reading path) share;
 * private to them.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_INPUT_INT_H
#define PSNRHVS_TOOLS_INPUT_INPUT_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "input/convert.h"
#include "input/input.h"

struct Input {
    PsnrHvsFile *file;  ///< a raw or Y4M input (the library reads it), else NULL
    const Decoder *dmx; ///< a decoded one (FFmpeg), else NULL
    void *priv;
    InputStream s;
    int has_format;
    InputFormat fmt; ///< as handed out
    PlaneGeometry geo;
    InputFormat nfmt; ///< as read, before any conversion
    PlaneGeometry ngeo;
    Converter *conv;    ///< NULL when nfmt is fmt
    InputFrame scratch; ///< the frame as read, when converting
    InputOptions opt;
    unsigned frames_read;
    const char *role; ///< "reference", "distorted" or NULL
    /* A raw or Y4M regular file is mapped: frames are handed out where they
     * lie in the page cache (read() would copy each one), located by their
     * FRAME header and the fixed payload size, never by scanning samples. */
    const uint8_t *map;
    size_t map_size; ///< the file's size when mapped; frames appended later are not read
    size_t map_pos;  ///< where the next frame (its FRAME header for Y4M) starts
    size_t page;
    int guard;                 ///< its slot in the SIGBUS guard, -1 when none
    int defer_range;           ///< in-place 16-bit frames: the range is checked on request
    _Atomic size_t done_below; ///< mapped: bytes the scorer no longer reads (input_done_below)
    size_t dropped;            ///< of which the reader thread has unmapped the pages
    int on_device;             ///< frames handed out on the GPU (input_keep_on_device)
};

/** Map a raw or Y4M regular file; on any failure in stays on the read() path. */
void input_try_map(Input *in, const char *path);

/** input_read() of a mapped file. */
int input_mapped_read(Input *in, InputFrame *frame);

/** Unmap in's file and free its guard slot (in->map is set). */
void input_unmap(Input *in);

/** Copy the library's message into in's stream. @return -1. */
int input_file_error(Input *in, const PsnrHvsFileStatus *st);

/** Check frame buf's 16-bit samples against the bit depth. @return 0 or -1 (s.err set). */
int input_check_sample_range(Input *in, const uint8_t *buf);

/** A buffer for frame in in's format, frame->pic laid out on it. @return 0 or -1 (no memory). */
int input_frame_buffer(const Input *in, InputFrame *frame);

#endif /* PSNRHVS_TOOLS_INPUT_INPUT_INT_H */
