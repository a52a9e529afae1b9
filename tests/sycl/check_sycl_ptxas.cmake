# The SYCL kernels of SRC compiled for the CUDA target exactly as the build
# compiles them (acpp, cmake/Sycl.cmake's flags), with ptxas -v: every
# function must report a 0-byte stack frame and no spills, i.e. no private
# (local) memory. The SYCL counterpart of tests/cuda/check_ptxas.cmake; it
# needs the CUDA toolkit, no GPU.
# cmake -DACPP=... -DNOENV=... -DTARGETS=a|b -DFLAGS=a|b -DCUDA_FLAGS=a|b
#       -DINCLUDES=a|b -DSRC=... -DOUT=... [-DMIN_KERNELS=N] -P check_sycl_ptxas.cmake
foreach(v TARGETS FLAGS CUDA_FLAGS INCLUDES)
  string(REPLACE "|" ";" ${v} "${${v}}")
endforeach()
set(inc "")
foreach(i IN LISTS INCLUDES)
  list(APPEND inc "-I${i}")
endforeach()
if(NOT MIN_KERNELS)
  set(MIN_KERNELS 3)
endif()
file(MAKE_DIRECTORY "${OUT}")
set(checked 0)
foreach(t IN LISTS TARGETS)
  if(NOT t MATCHES "^cuda:")
    continue()
  endif()
  execute_process(
    COMMAND ${NOENV} ${ACPP} "--acpp-targets=${t}" -O3 -DNDEBUG ${FLAGS} ${CUDA_FLAGS} -std=c++17
            ${inc} --cuda-device-only -c -Xcuda-ptxas -v -o ${OUT}/kernels.cubin ${SRC}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(log "${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "acpp (${t}) failed (${rc}):\n${log}")
  endif()
  string(REGEX MATCHALL "Compiling entry function '[^']+' for 'sm_[0-9a-z]+'" entries "${log}")
  string(REGEX MATCHALL "[0-9]+ bytes stack frame, [0-9]+ bytes spill stores, [0-9]+ bytes spill loads"
         props "${log}")
  list(LENGTH entries n_entries)
  list(LENGTH props n_props)
  # The file's kernels (plus AdaptiveCpp's name-template stubs).
  if(n_entries LESS MIN_KERNELS OR n_props LESS n_entries)
    message(FATAL_ERROR "${t}: expected at least ${MIN_KERNELS} kernels with resource lines, found "
                        "${n_entries} kernels and ${n_props} resource lines:\n${log}")
  endif()
  set(bad 0)
  foreach(line ${props})
    if(NOT line MATCHES "^0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads$")
      set(bad 1)
    endif()
  endforeach()
  string(REGEX MATCHALL "Function properties for [^\n]+\n[^\n]+\n[^\n]+" blocks "${log}")
  foreach(b ${blocks})
    string(REPLACE "\n" " |" b "${b}")
    message(STATUS "${b}")
  endforeach()
  if(bad)
    message(FATAL_ERROR "${t}: a SYCL kernel uses local memory (stack frame or spills):\n${log}")
  endif()
  message(STATUS "${t}: ${n_entries} kernel entries, no stack frame, no spills")
  math(EXPR checked "${checked} + 1")
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no cuda:* target among ${TARGETS}")
endif()
