# The installed SYCL module is not tied to the build machine: no CUDA runtime
# among its NEEDED (cudart_dl.c opens it when a CUDA device runs), a RUNPATH of
# $ORIGIN-relative folders only; and it scores on its OpenMP device, the
# CPU's bits, where no CUDA runtime can load.
#   cmake -DPREFIX=<installed> -DLIBDIR=<lib dir> -DCLI=<bin/psnrhvs or ""> -DCC=<cc>
#         -DREADELF=<readelf> -DDATA=<tests/data> -DWORK=<dir> -P sycl_module.cmake
cmake_minimum_required(VERSION 3.20)
set(module ${PREFIX}/${LIBDIR}/psnrhvs/backend-sycl.so)
if(NOT EXISTS ${module})
  message(FATAL_ERROR "no ${module}")
endif()
execute_process(COMMAND ${READELF} -d ${module} RESULT_VARIABLE rc OUTPUT_VARIABLE dyn)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf -d ${module}: exit ${rc}")
endif()
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[([^]\n]*)\\]" needed "${dyn}")
list(LENGTH needed n)
if(n LESS 3)
  message(FATAL_ERROR "readelf -d found ${n} NEEDED entries:\n${dyn}")
endif()
if(dyn MATCHES "NEEDED[^\n]*libcudart")
  message(FATAL_ERROR "backend-sycl.so needs the CUDA runtime at load time:\n${dyn}")
endif()
string(REGEX MATCH "\\((RUNPATH|RPATH)\\)[^\n]*\\[([^]\n]*)\\]" rp "${dyn}")
set(runpath "${CMAKE_MATCH_2}")
string(REPLACE ":" ";" entries "${runpath}")
foreach(e ${entries})
  if(NOT e MATCHES "^\\$ORIGIN(/|$)")
    message(FATAL_ERROR "backend-sycl.so's RUNPATH holds ${e}, not $ORIGIN-relative: ${runpath}")
  endif()
endforeach()
message(STATUS "backend-sycl.so: RUNPATH ${runpath}; ${n} NEEDED, none the CUDA runtime")

if(NOT CLI)
  return()
endif()
# A machine without the CUDA runtime, as the dynamic loader sees it: an empty
# libcudart.so.13 first on LD_LIBRARY_PATH (searched before any RUNPATH).
# AdaptiveCpp's CUDA plugin then fails to load and is skipped; a module that
# needed the runtime would fail too (undefined symbol __cudaRegisterFatBinary).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/nocuda)
file(WRITE ${WORK}/nocuda/empty.c "int psnrhvs_not_the_cuda_runtime;\n")
execute_process(COMMAND ${CC} -shared -fPIC -o ${WORK}/nocuda/libcudart.so.13
                        -Wl,-soname,libcudart.so.13 ${WORK}/nocuda/empty.c
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cannot build the empty libcudart.so.13: ${err}")
endif()
set(pair -r ${DATA}/yuv420p_176x144_ref.y4m -d ${DATA}/yuv420p_176x144_dist.y4m)
foreach(b cpu sycl)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${WORK}/nocuda
                          ${PREFIX}/${CLI} ${pair} --backend ${b} -q --json --precision max
                          -o ${WORK}/${b}.json
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/${b}.json)
    message(FATAL_ERROR "--backend ${b} without the CUDA runtime: exit ${rc}: ${err}")
  endif()
endforeach()
# The same scores as the CPU's (fps aside).
foreach(b cpu sycl)
  file(STRINGS ${WORK}/${b}.json ${b}_lines REGEX "psnr_hvs")
endforeach()
if(NOT cpu_lines STREQUAL sycl_lines OR NOT cpu_lines)
  message(FATAL_ERROR "--backend sycl scored differently from the CPU")
endif()
file(REMOVE_RECURSE ${WORK})
message(STATUS "--backend sycl scored on its OpenMP device without the CUDA runtime")
