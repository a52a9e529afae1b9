# Fails if the disassembly of FILES holds a fused multiply-add: the numerics
# rules (cmake/Numerics.cmake, -ffp-contract=off) allow none, and GCC and
# clang fuse a*b+c by default for AArch64, and for x86 with FMA enabled
# (-mavx512f implies it). Run on the library's CPU objects.
# cmake -DOBJDUMP=... -DFILES=a.o;b.o -P no_fused.cmake
# AArch64: fmla/fmls (vector), fmadd/fmsub/fnmadd/fnmsub (scalar), bfmla, fmlal;
# x86: vfmadd*/vfmsub*/vfnmadd*/vfnmsub* (FMA3), vfmaddps-style FMA4.
cmake_policy(VERSION 3.20)
set(pattern "[ \t](fmla|fmls|fmlal2?|fmlsl2?|bfmla[bt]?|fn?madd|fn?msub|vfn?m(add|sub)[0-9a-z]*)[ \t]")
set(found 0)
foreach(f ${FILES})
  execute_process(COMMAND ${OBJDUMP} -d --no-show-raw-insn ${f} OUTPUT_VARIABLE dis
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${OBJDUMP} -d ${f} failed (${rc})")
  endif()
  string(REGEX MATCHALL "[^\n]*${pattern}[^\n]*" hits "${dis}")
  list(LENGTH hits n)
  if(n GREATER 0)
    list(SUBLIST hits 0 5 first)
    list(JOIN first "\n  " first)
    message(SEND_ERROR "${f}: ${n} fused multiply-add instructions, e.g.\n  ${first}")
    math(EXPR found "${found} + ${n}")
  endif()
  string(REGEX MATCHALL "\n[ \t]*[0-9a-f]+:" insns "${dis}")
  list(LENGTH insns count)
  message(STATUS "${f}: ${count} instructions, ${n} fused")
endforeach()
if(found GREATER 0)
  message(FATAL_ERROR "${found} fused multiply-add instructions in all")
endif()
