# The numerics flags of cmake/Sycl.cmake, checked on what acpp really runs
# and on the code it makes (no GPU needed):
#  1. acpp's command line, with ACPP_* variables set against us in the
#     environment (they must not reach acpp): -ffp-contract=off there, and
#     neither -ffp-contract=fast nor -ffast-math.
#  2. the omp target with FMA instructions available (-march=x86-64-v3): no
#     fused multiply-add in the generated code.
#  3. the cuda target (when built): the PTX has IEEE square roots and
#     divisions (sqrt.rn.f32, div.rn.f32), no fma.rn.f32, no approximate
#     instruction, no flush to zero.
# cmake -DACPP=... -DNOENV=... -DTARGETS=a|b -DFLAGS=a|b -DCUDA_FLAGS=a|b
#       -DINCLUDES=a|b -DSRC=... -DOUT=... -P check_sycl_flags.cmake
foreach(v TARGETS FLAGS CUDA_FLAGS INCLUDES)
  string(REPLACE "|" ";" ${v} "${${v}}")
endforeach()
set(inc "")
foreach(i IN LISTS INCLUDES)
  list(APPEND inc "-I${i}")
endforeach()
file(MAKE_DIRECTORY "${OUT}")
set(common -O3 -DNDEBUG ${FLAGS} -std=c++17 ${inc})
set(bad 0)

# 1. acpp's own command line, environment hostile.
list(JOIN TARGETS ";" targets)
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env ACPP_TARGETS=omp.accelerated "ACPP_OMP_CXX_FLAGS=-ffast-math"
          "HIPSYCL_CUDA_CXX_FLAGS=-ffast-math" ${NOENV} ${ACPP} "--acpp-targets=${targets}"
          --acpp-dryrun ${common} -c ${SRC} -o ${OUT}/dry.o
  RESULT_VARIABLE rc OUTPUT_VARIABLE cmd ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "acpp --acpp-dryrun failed (${rc}):\n${cmd}${err}")
endif()
message(STATUS "acpp runs: ${cmd}")
if(NOT cmd MATCHES " -ffp-contract=off")
  message(SEND_ERROR "-ffp-contract=off is not on acpp's compiler command line")
  set(bad 1)
endif()
if(cmd MATCHES "-ffp-contract=fast|-ffast-math|omp\\.accelerated|USE_ACCELERATED_CPU")
  message(SEND_ERROR "acpp's command line has fast contraction, fast math or the environment's target")
  set(bad 1)
endif()
# Why the flag is there: without it the driver adds -ffp-contract=fast at -O3.
execute_process(COMMAND ${NOENV} ${ACPP} --acpp-targets=omp --acpp-dryrun -O3 -std=c++17 ${inc}
                        -c ${SRC} -o ${OUT}/dry2.o
                OUTPUT_VARIABLE cmd2 ERROR_VARIABLE err2)
if(cmd2 MATCHES "-ffp-contract=fast")
  message(STATUS "(without -ffp-contract=off acpp adds -ffp-contract=fast at -O3, as expected)")
endif()

# 2. omp target, FMA available: no fused multiply-add emitted.
execute_process(COMMAND ${NOENV} ${ACPP} --acpp-targets=omp ${common} -march=x86-64-v3 -S
                        -o ${OUT}/omp.s ${SRC}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "acpp -S (omp) failed (${rc}):\n${out}${err}")
endif()
file(READ ${OUT}/omp.s asm)
string(REGEX MATCHALL "vf(n)?m(add|sub)[0-9a-z]*" fmas "${asm}")
list(LENGTH fmas n_fma)
string(REGEX MATCHALL "\tv?sqrtss" sqrts "${asm}")
list(LENGTH sqrts n_sqrt)
message(STATUS "omp, -march=x86-64-v3: ${n_fma} fused multiply-adds, ${n_sqrt} sqrtss")
if(n_fma GREATER 0)
  message(SEND_ERROR "the omp target contracted a*b+c into FMA instructions")
  set(bad 1)
endif()
if(asm MATCHES "call[ \t]+sqrtf")
  message(SEND_ERROR "the omp target calls libm's sqrtf (errno): -fno-math-errno missing")
  set(bad 1)
endif()

# 3. cuda target: the PTX.
foreach(t IN LISTS TARGETS)
  if(NOT t MATCHES "^cuda:")
    continue()
  endif()
  execute_process(COMMAND ${NOENV} ${ACPP} "--acpp-targets=${t}" ${common} ${CUDA_FLAGS}
                          --cuda-device-only -S -o ${OUT}/cuda.ptx ${SRC}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "acpp -S (${t}) failed (${rc}):\n${out}${err}")
  endif()
  file(READ ${OUT}/cuda.ptx ptx)
  set(summary "")
  foreach(ins "sqrt.rn.f32" "div.rn.f32" "fma.rn.f32" "sqrt.approx" "div.approx" "div.full"
              "rsqrt" "ex2.approx" ".ftz")
    string(REPLACE "." "\\." re "${ins}")
    string(REGEX MATCHALL "${re}" hits "${ptx}")
    list(LENGTH hits n)
    string(APPEND summary " ${ins}=${n}")
    if(n GREATER 0 AND NOT ins MATCHES "^(sqrt|div)\\.rn\\.f32$")
      message(SEND_ERROR "${t}: the PTX has ${ins} (${n} times)")
      set(bad 1)
    endif()
    if(n EQUAL 0 AND ins MATCHES "^(sqrt|div)\\.rn\\.f32$")
      message(SEND_ERROR "${t}: the PTX has no ${ins}")
      set(bad 1)
    endif()
  endforeach()
  message(STATUS "${t} PTX:${summary}")
endforeach()

if(bad)
  message(FATAL_ERROR "the SYCL numerics flags do not hold")
endif()
message(STATUS "SYCL numerics flags hold")
