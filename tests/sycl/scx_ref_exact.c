/* SPDX-License-Identifier: BSD-2-Clause */
#define PSH_EXACT_HELPERS 1
#define SCX_VARIANT       exact
#include "scx_ref.inc"
