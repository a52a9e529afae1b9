# The CUDA backend, a module (backend-cuda.so, src/module.h): the shared GPU
# host (src/cuda_hip/gpu_backend.c) and kernels (src/cuda_hip/kernels.cu), the kernels
# compiled by nvcc with the numerics flags of cmake/Numerics.cmake. The
# runtime is linked into the module statically: it needs only the driver's
# libcuda.so.1, which it opens at run time, and reports "no CUDA device" on
# machines without one. cmake/Backends.cmake finds nvcc and enables CUDA in
# the top directory.
if(NOT PSNRHVS_WITH_CUDA)
  return()
endif()

# CMAKE_CUDA_ARCHITECTURES as nvcc flags, given to the kernels and to the
# resource check of tests/cuda alike (one translation, so both compile the same).
set(gencode "")
foreach(arch ${CMAKE_CUDA_ARCHITECTURES})
  if(arch MATCHES "^([0-9]+[a-z]?)(-real|-virtual)?$")
    set(code "[sm_${CMAKE_MATCH_1},compute_${CMAKE_MATCH_1}]")
    if(CMAKE_MATCH_2 STREQUAL "-real")
      set(code "sm_${CMAKE_MATCH_1}")
    elseif(CMAKE_MATCH_2 STREQUAL "-virtual")
      set(code "compute_${CMAKE_MATCH_1}")
    endif()
    list(APPEND gencode "-gencode=arch=compute_${CMAKE_MATCH_1},code=${code}")
  elseif(arch MATCHES "^(native|all|all-major)$")
    list(APPEND gencode "-arch=${arch}")
  elseif(NOT arch MATCHES "^(OFF|FALSE|NO|0)$")
    message(FATAL_ERROR "CMAKE_CUDA_ARCHITECTURES: cannot use '${arch}'")
  endif()
endforeach()
# Before CMAKE_CUDA_ARCHITECTURES, a raw -gencode string set the architectures.
if(DEFINED PSNRHVS_CUDA_GENCODE)
  if(NOT PSNRHVS_CUDA_GENCODE STREQUAL "-gencode=arch=compute_90,code=[sm_90,compute_90]")
    message(WARNING "PSNRHVS_CUDA_GENCODE is ignored: set CMAKE_CUDA_ARCHITECTURES instead")
  endif()
  unset(PSNRHVS_CUDA_GENCODE CACHE)
endif()
# The HIP build's device code paths (coefficients staged in shared memory,
# integer square root and division) in a CUDA build: for checking them on
# NVIDIA GPUs, since none of AMD's runs here (bench/gpu.sh).
option(PSNRHVS_CUDA_HIP_PATHS "Build the CUDA kernels with the HIP backend's code paths" OFF)
set(hip_paths_defs "")
if(PSNRHVS_CUDA_HIP_PATHS)
  set(hip_paths_defs -DPSH_GPU_STAGE_COEFFS=1 -DPSH_EXACT_HELPERS=1)
endif()
# Shared with tests/cuda (the -Xptxas -v resource check compiles the same way).
set(PSNRHVS_CUDA_KERNEL_FLAGS ${PSNRHVS_CUDA_NUMERICS_FLAGS} ${gencode} ${hip_paths_defs}
    CACHE INTERNAL "nvcc flags of src/cuda_hip/kernels.cu")

add_library(psh_cuda_kernels OBJECT kernels.cu)
# The architectures are in PSNRHVS_CUDA_KERNEL_FLAGS, not added again by CMake.
set_target_properties(psh_cuda_kernels PROPERTIES CUDA_ARCHITECTURES OFF
                                                      CUDA_STANDARD 17
                                                      CUDA_STANDARD_REQUIRED ON
                                                      POSITION_INDEPENDENT_CODE ON)
# The host side of kernels.cu must not need libstdc++: the library links as C.
target_compile_options(psh_cuda_kernels PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:${PSNRHVS_CUDA_KERNEL_FLAGS}
  -Xcompiler=-fno-exceptions,-fno-threadsafe-statics,-fno-rtti,-fvisibility=hidden>)
target_include_directories(psh_cuda_kernels PRIVATE ${PROJECT_SOURCE_DIR}/include
                                                        ${PROJECT_SOURCE_DIR}/src)

# The host, an object library of its own: bench/cuda drives its stages too.
add_library(psnrhvs_cuda_host OBJECT gpu_backend.c host_window.c)
psnrhvs_numerics(psnrhvs_cuda_host)
target_include_directories(psnrhvs_cuda_host PRIVATE ${PROJECT_SOURCE_DIR}/include
                                                     ${PROJECT_SOURCE_DIR}/src)
set_target_properties(psnrhvs_cuda_host PROPERTIES C_VISIBILITY_PRESET hidden)
target_compile_definitions(psnrhvs_cuda_host PRIVATE HAVE_CUDA=1 HAVE_OPENCL=0 HAVE_HIP=0)
if(PSNRHVS_CUDA_HIP_PATHS)
  target_compile_definitions(psnrhvs_cuda_host PRIVATE PSH_GPU_STAGE_COEFFS=1)
endif()
target_link_libraries(psnrhvs_cuda_host PRIVATE CUDA::cudart_static)

add_library(psnrhvs_cuda_module MODULE $<TARGET_OBJECTS:psnrhvs_cuda_host>
                                       $<TARGET_OBJECTS:psh_cuda_kernels>)
target_link_libraries(psnrhvs_cuda_module PRIVATE CUDA::cudart_static)
psnrhvs_add_module(cuda psnrhvs_cuda_module psh_backend_cuda)

psnrhvs_have(CUDA)
message(STATUS "CUDA backend: on (${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
