# Configures and builds this source tree with one generator into a fresh
# folder (issue 9: the default generator and Ninja, with or without nvcc).
#   cmake -DGENERATOR=<name> -DSOURCE=<dir> -DBINARY=<dir> "-DOPTIONS=<a;b>"
#         [-DCUDA_ARCHITECTURES=<a|b>] -DJOBS=<n> -DSHARED=<file name>
#         -DCLI=<path in the build or empty> -P build.cmake
cmake_minimum_required(VERSION 3.20)
function(check rc what out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
endfunction()

file(REMOVE_RECURSE ${BINARY})
# The architectures, a list of their own, through CMake's own variable for them.
string(REPLACE "|" ";" archs "${CUDA_ARCHITECTURES}")
set(ENV{CUDAARCHS} "${archs}")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY} -G ${GENERATOR} ${OPTIONS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
check("${rc}" "configuring with ${GENERATOR} ${OPTIONS} (CUDAARCHS=${archs})" "${out}")
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY} --parallel ${JOBS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
check("${rc}" "building with ${GENERATOR}" "${out}")
foreach(f src/libpsnrhvs.a src/${SHARED} ${CLI})
  if(NOT EXISTS ${BINARY}/${f})
    message(FATAL_ERROR "the ${GENERATOR} build made no ${f}")
  endif()
endforeach()
message(STATUS "${GENERATOR}: built in ${BINARY}")
