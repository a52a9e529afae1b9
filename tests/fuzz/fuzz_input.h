/*
 * The checks of the targets that fuzz one input of the CLI's input library
 * (Y4M, FFmpeg): the format it reports, then up to FUZZ_MAX_FRAMES frames.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_FUZZ_FUZZ_INPUT_H
#define PSNRHVS_TESTS_FUZZ_FUZZ_INPUT_H

#include "fuzz_target.h"
#include "input/input.h"

/**
 * Checks the format of an opened input and reads its frames into r; closes
 * it. what names the input in messages ("Y4M header", "decoded stream").
 */
void fuzz_read_input(Input *in, const char *what, FuzzOutcome *r);

#endif /* PSNRHVS_TESTS_FUZZ_FUZZ_INPUT_H */
