/*
 * psnrhvs: PSNR-HVS video quality scores with the bits of libvmaf's psnr_hvs.
 * The public API, by concern: the scorer (psnrhvs/score.h), backends and
 * devices (psnrhvs/devices.h), files and formats (psnrhvs/file.h), pooling
 * and score files (psnrhvs/output.h), and what they share
 * (psnrhvs/common.h). Include this header; the parts stand alone too.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_H
#define PSNRHVS_H

#include <stdio.h>

#include "psnrhvs/common.h"
#include "psnrhvs/devices.h"
#include "psnrhvs/file.h"
#include "psnrhvs/output.h"
#include "psnrhvs/score.h"

#endif /* PSNRHVS_H */
