# A cross build with the shipped toolchain file (cmake/toolchains/) configures
# on a machine with nvcc, hipcc and AdaptiveCpp without turning anything off
# by hand: CUDA, HIP and SYCL are left out, each with a line saying why.
#   cmake -DSOURCE=<source tree> -DWORK=<scratch> -DNVCC_DIR=<dir of nvcc or ""> -P cross.cmake
cmake_minimum_required(VERSION 3.20)
find_program(cross_gcc aarch64-linux-gnu-gcc)
if(NOT cross_gcc)
  message("SKIP: aarch64-linux-gnu-gcc not found (Debian's gcc-aarch64-linux-gnu)")
  return()
endif()
file(REMOVE_RECURSE ${WORK})
# nvcc on PATH, as on a CUDA machine where a user cross-builds.
if(NVCC_DIR)
  set(ENV{PATH} "${NVCC_DIR}:$ENV{PATH}")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}
          -DCMAKE_TOOLCHAIN_FILE=${SOURCE}/cmake/toolchains/aarch64-linux-gnu.cmake
          -DBUILD_TESTING=OFF
  RESULT_VARIABLE res OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT res EQUAL 0)
  message(FATAL_ERROR "the cross build does not configure (${res}):\n${out}\n${err}")
endif()
foreach(b CUDA HIP SYCL)
  if(NOT out MATCHES "${b} backend: off \\(a cross build for aarch64")
    message(FATAL_ERROR "the cross build does not say that ${b} is left out:\n${out}")
  endif()
endforeach()
file(STRINGS ${WORK}/CMakeCache.txt cache REGEX "^CMAKE_CUDA_COMPILER:")
if(cache)
  message(FATAL_ERROR "the cross build looked for a CUDA compiler: ${cache}")
endif()
file(REMOVE_RECURSE ${WORK})
message(STATUS "cross build configured, CUDA, HIP and SYCL left out")
