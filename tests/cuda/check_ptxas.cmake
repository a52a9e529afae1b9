# Compiles src/cuda_hip/kernels.cu with the backend's own flags plus -Xptxas -v and
# fails unless every function reports a 0-byte stack frame and no spills: the
# per-block arrays must stay in registers (no local memory).
# cmake -DNVCC=... -DSRC=... -DINCLUDE=... -DFLAGS="a;b" -DOUT=... -P check_ptxas.cmake
execute_process(
  COMMAND ${NVCC} -c ${FLAGS} -Xcompiler=-fno-exceptions,-fno-threadsafe-statics -std=c++17
          -I${INCLUDE} -Xptxas -v -o ${OUT} ${SRC}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(log "${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed (${rc}):\n${log}")
endif()
string(REGEX MATCHALL "Compiling entry function '[^']+' for 'sm_[0-9a-z]+'" entries "${log}")
string(REGEX MATCHALL "[0-9]+ bytes stack frame, [0-9]+ bytes spill stores, [0-9]+ bytes spill loads"
       props "${log}")
list(LENGTH entries n_entries)
list(LENGTH props n_props)
if(n_entries LESS 5 OR n_props LESS n_entries)
  message(FATAL_ERROR "expected at least 5 kernels with resource lines, found ${n_entries} "
                      "kernels and ${n_props} resource lines:\n${log}")
endif()
set(bad 0)
foreach(line ${props})
  if(NOT line MATCHES "^0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads$")
    set(bad 1)
  endif()
endforeach()
# Print every kernel's registers and frame for the log.
string(REGEX MATCHALL "Function properties for [^\n]+\n[^\n]+\n[^\n]+" blocks "${log}")
foreach(b ${blocks})
  string(REPLACE "\n" " |" b "${b}")
  message(STATUS "${b}")
endforeach()
if(bad)
  message(FATAL_ERROR "a kernel uses local memory (stack frame or spills):\n${log}")
endif()
message(STATUS "${n_entries} kernels, no stack frame, no spills")
