/*
 * psnrhvs: what a compressed packet says about starting a decoder there, for
 * the chunked decoder (input/chunks.c): is it a keyframe a fresh decoder
 * decodes as the sequential decode does, and is it a leading picture of the
 * keyframe before it. Reads NAL unit and OBU headers (and an H.264 recovery
 * point SEI), nothing deeper.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_INPUT_KEYFRAMES_H
#define PSNRHVS_TOOLS_INPUT_KEYFRAMES_H

#include <stddef.h>
#include <stdint.h>

/** Codecs the chunked decoder splits (others are decoded in one session). */
enum KeyCodec { KEY_OTHER, KEY_H264, KEY_HEVC, KEY_VP9, KEY_AV1, KEY_FFV1 };

#define KEY_MAX_PARAM_SETS 32

typedef struct KeyScan {
    enum KeyCodec codec;
    int length_size; ///< NAL length bytes (avcC/hvcC extradata), 0: Annex B start codes
    /* Parameter sets: those of the extradata, and every other one seen in
     * band. A fresh decoder knows only the extradata's and the keyframe's
     * own: a keyframe is a boundary only if every one seen so far is among
     * them. */
    const uint8_t *ps[KEY_MAX_PARAM_SETS];
    size_t ps_size[KEY_MAX_PARAM_SETS];
    int num_extradata, num_ps;
    int overflow;   ///< more distinct parameter sets than kept: no more boundaries
    int x264_build; ///< the build an x264 SEI named last, -1 if none
} KeyScan;

typedef enum KeyKind {
    KEY_NONE,   ///< not a place to start
    KEY_CLOSED, ///< nothing after it refers to what came before (IDR, VP9/AV1/FFV1 keyframes)
    KEY_OPEN,   ///< H.264 recovery point or HEVC IRAP: leading pictures may follow it
} KeyKind;

typedef struct KeyInfo {
    KeyKind kind;
    int leading; ///< HEVC RASL or RADL picture (a leading picture of the IRAP before it)
} KeyInfo;

/** enum AVCodecID -> KeyCodec. */
enum KeyCodec keyscan_codec(int codec_id);

/** @return 0, or -1 out of memory. */
int keyscan_init(KeyScan *k, enum KeyCodec codec, const uint8_t *extradata, size_t size);
void keyscan_free(KeyScan *k);

/**
 * One packet, in decode order (every packet of the stream goes through here,
 * so that in-band parameter sets and x264's SEI are seen). key: the
 * container's keyframe flag.
 */
void keyscan_packet(KeyScan *k, const uint8_t *data, size_t size, int key, KeyInfo *out);

#endif /* PSNRHVS_TOOLS_INPUT_KEYFRAMES_H */
