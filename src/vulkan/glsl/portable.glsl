/*
 * The GLSL side of src/core/portable.h: the psh_* types and helpers, so that
 * the ports of int_math.h, block.h and exact_sum.h beside this file read as
 * the C they mirror, function for function and line for line.
 *
 * Why a port and not the C headers themselves: GLSL has no pointers (the
 * DCT's strided rows, out-parameters), no C casts, no typedef, no implicit
 * conversion between int and bool, and no hex float literals, so the C subset
 * does not compile as GLSL without rewriting every line of src/core around
 * macros. The tables are not ported at all: the host uploads psh_csf and
 * psh_mask from src/core/tables.h into a uniform buffer (psh_tab below).
 *
 * Numerics (docs/vulkan.md): every f32 addition, subtraction and
 * multiplication is NoContraction (each float value lives in a `precise`
 * variable; tests/vulkan/check_spirv.cmake fails on an undecorated one), the
 * kernels run with RoundingModeRTE and SignedZeroInfNanPreserve for 32-bit
 * floats, and division and square root are always the integer helpers of
 * int_math.glsl: Vulkan allows 2.5 ulp for a division and an inexact root.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_VULKAN_PORTABLE_GLSL
#define PSNRHVS_VULKAN_PORTABLE_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_spirv_intrinsics : require

/* Float controls (SPIR-V 1.4+ core, VK_KHR_shader_float_controls): round to
 * nearest even for f32 arithmetic and conversions, and no liberties with
 * signed zeros, infinities and NaNs. The host refuses a device without
 * shaderRoundingModeRTEFloat32 or shaderSignedZeroInfNanPreserveFloat32.
 * Capability RoundingModeRTE = 4467, execution mode RoundingModeRTE = 4462;
 * SignedZeroInfNanPreserve: 4466 and 4461; the operand is the bit width. */
spirv_execution_mode(capabilities = [4467], 4462, 32);
spirv_execution_mode(capabilities = [4466], 4461, 32);

#define psh_i32 int
#define psh_u32 uint
#define psh_i64 int64_t
#define psh_u64 uint64_t
#define psh_float_as_u32(f) floatBitsToUint(f)
#define psh_u32_as_float(u) uintBitsToFloat(u)
#define PSH_UNROLL          [[unroll]]

/* IEEE sqrt of what psh_sqrt_rn_int leaves to the device's root in C
 * (NaN, +inf, negatives; no valid frame produces them): NaN for a negative,
 * else the operand itself. The SPIR-V then holds no device root at all. */
float psh_sqrt_rn(const float x) {
    return x < 0.0 ? uintBitsToFloat(0x7fc00000u) : x;
}

/* Always: Vulkan promises neither a correctly rounded f32 division nor root. */
#define PSH_EXACT_HELPERS 1

/* The f32 tables of src/core/tables.h, [plane][k] as vec4s (std140 arrays
 * have a 16-byte stride): uploaded by the host at open. */
layout(std140, set = 0, binding = 7) uniform PshTables {
    vec4 csf[48];
    vec4 mask[48];
}
psh_tab;
#define psh_csf_at(plane, k)  psh_tab.csf[(plane) * 16 + ((k) >> 2)][(k) & 3]
#define psh_mask_at(plane, k) psh_tab.mask[(plane) * 16 + ((k) >> 2)][(k) & 3]

#endif
