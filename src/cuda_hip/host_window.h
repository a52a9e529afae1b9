/*
 * Host memory the GPU reads where it is (psnrhvs_host_register(), the cuda
 * backend): each registered range is page-locked a window of chunks at a
 * time, just ahead of the frames sent from it, by threads of its own, and
 * unlocked behind them, so the upload needs no copy on the host and the
 * memory locked stays bounded whatever the range's size.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CUDA_HIP_HOST_WINDOW_H
#define PSNRHVS_SRC_CUDA_HIP_HOST_WINDOW_H

#include <stddef.h>
#include <stdint.h>

/* The locked chunks one frame uploads from. */
#define PSH_HW_MAX_HOLD 48
typedef struct PshHostHold {
    uint64_t id[PSH_HW_MAX_HOLD];
    int n;
} PshHostHold;

/* A range pictures will be sent from, registered with the device's
 * runtime as it is reached; 0, or -1 if it overlaps one registered (of
 * any context) or there are too many. */
int psh_hw_register(const void *data, size_t size, int device);
/* The range's end: when this returns, none of it is locked. The caller's
 * uploads from it are complete (its streams synchronized). */
void psh_hw_unregister(const void *data);
/* [p, p + n) inside locked chunks of a registered range: they stay locked
 * (hold records them) until released, and 1; else 0, and the registering
 * threads move on to where p is. */
int psh_hw_hold(PshHostHold *hold, const void *p, size_t n);
void psh_hw_release(PshHostHold *hold);
/* The end of the locked piece p is in (p held), or 0: one upload may not
 * span two registrations, so the caller splits at it. */
uintptr_t psh_hw_piece_end(const void *p);

#endif /* PSNRHVS_SRC_CUDA_HIP_HOST_WINDOW_H */
