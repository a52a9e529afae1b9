/* SPDX-License-Identifier: BSD-2-Clause */
#define SCX_VARIANT native
#include "scx_ref.inc"
