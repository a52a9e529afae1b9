# The embedded SPIR-V of the Vulkan kernels, checked as a reviewer would:
#   - spirv-val (Vulkan 1.2 rules) accepts every module;
#   - every f32 addition, subtraction and multiplication (OpFAdd, OpFSub,
#     OpFMul) is decorated NoContraction, so no driver may fuse them into an
#     FMA (GLSL's `precise`; one float value left outside a precise variable
#     would show here);
#   - there is no float division, remainder or modulo (OpFDiv, OpFRem, OpFMod)
#     and no GLSL.std.450 root, FMA or transcendental: Vulkan allows 2.5 ulp
#     for a division and an inexact root, so the kernels use the integer
#     helpers of int_math.glsl;
#   - each module declares RoundingModeRTE 32 and SignedZeroInfNanPreserve 32.
# usage: cmake -DSPIRV_VAL=... -DSPIRV_DIS=... -DFILES=a.spv|b.spv -DOUT=dir -P check_spirv.cmake
# SPDX-License-Identifier: BSD-2-Clause
string(REPLACE "|" ";" files "${FILES}")
file(MAKE_DIRECTORY ${OUT})
set(failures 0)
foreach(spv ${files})
  get_filename_component(name ${spv} NAME_WE)
  execute_process(COMMAND ${SPIRV_VAL} --target-env vulkan1.2 ${spv} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${name}: spirv-val failed:\n${out}")
    math(EXPR failures "${failures} + 1")
  endif()
  execute_process(COMMAND ${SPIRV_DIS} --raw-id --no-color ${spv} -o ${OUT}/${name}.spvasm
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: spirv-dis failed: ${err}")
  endif()
  file(STRINGS ${OUT}/${name}.spvasm lines)
  set(decorated "")
  set(ops "")
  set(banned "")
  set(modes "")
  foreach(l IN LISTS lines)
    if(l MATCHES "OpDecorate %([0-9]+) NoContraction")
      list(APPEND decorated ${CMAKE_MATCH_1})
    elseif(l MATCHES "%([0-9]+) = (OpFAdd|OpFSub|OpFMul) ")
      list(APPEND ops "${CMAKE_MATCH_1}:${CMAKE_MATCH_2}")
    elseif(l MATCHES "= (OpFDiv|OpFRem|OpFMod|OpFma) " OR
           l MATCHES "= OpExtInst [^ ]+ %[0-9]+ (Sqrt|InverseSqrt|Fma|Exp|Exp2|Log|Log2|Pow|Ldexp|Frexp|FMix|Sin|Cos|Tan) ")
      list(APPEND banned "${l}")
    elseif(l MATCHES "OpExecutionMode %[0-9]+ (RoundingModeRTE|SignedZeroInfNanPreserve|DenormPreserve|DenormFlushToZero) 32")
      list(APPEND modes ${CMAKE_MATCH_1})
    endif()
  endforeach()
  set(undecorated 0)
  foreach(op IN LISTS ops)
    string(REPLACE ":" ";" parts "${op}")
    list(GET parts 0 id)
    list(GET parts 1 what)
    list(FIND decorated ${id} at)
    if(at LESS 0)
      message(SEND_ERROR "${name}: %${id} = ${what} is not NoContraction")
      math(EXPR undecorated "${undecorated} + 1")
    endif()
  endforeach()
  foreach(l IN LISTS banned)
    message(SEND_ERROR "${name}: an inexact float operation: ${l}")
  endforeach()
  foreach(m RoundingModeRTE SignedZeroInfNanPreserve)
    list(FIND modes ${m} at)
    if(at LESS 0)
      message(SEND_ERROR "${name}: no OpExecutionMode ${m} 32")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
  list(LENGTH ops nops)
  list(LENGTH banned nbanned)
  math(EXPR failures "${failures} + ${undecorated} + ${nbanned}")
  message(STATUS "${name}: spirv-val ok, ${nops} OpFAdd/OpFSub/OpFMul (${undecorated} without "
                 "NoContraction), ${nbanned} inexact operations, execution modes: ${modes}")
endforeach()
list(LENGTH files n)
if(n EQUAL 0)
  message(FATAL_ERROR "no SPIR-V module to check")
endif()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} problems in ${n} modules")
endif()
message(STATUS "${n} modules: valid, every f32 add/sub/mul NoContraction, no float division or root")
