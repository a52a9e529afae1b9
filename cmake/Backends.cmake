# Optional device backends. AUTO builds a backend where its compiler or SDK is found.
set(PSNRHVS_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")
set(PSNRHVS_OPENCL AUTO CACHE STRING "Build the OpenCL backend: AUTO, ON or OFF")
set(PSNRHVS_HIP AUTO CACHE STRING "Build the HIP backend: AUTO, ON or OFF")
set(PSNRHVS_VULKAN AUTO CACHE STRING "Build the Vulkan backend: AUTO, ON or OFF")
foreach(b CUDA OPENCL HIP VULKAN)
  set_property(CACHE PSNRHVS_${b} PROPERTY STRINGS AUTO ON OFF)
endforeach()

# CUDA is enabled here, in the top directory scope: enabled in src/cuda_hip only,
# the targets of src/ that take the kernels' objects see no
# CMAKE_CUDA_ARCHITECTURES, and the Makefile generator refuses them ("empty").
# A HIP backend must do the same with enable_language(HIP).
set(PSNRHVS_WITH_CUDA OFF)
# A cross build (cmake/toolchains/) is for another machine: nvcc, hipcc and
# acpp here build for this one, and their runtimes are not in the target's
# sysroot. AUTO leaves those backends out and says so; ON still tries.
macro(psnrhvs_cross_off backend)
  if(CMAKE_CROSSCOMPILING AND PSNRHVS_${backend} STREQUAL "AUTO")
    message(STATUS "${backend} backend: off (a cross build for ${CMAKE_SYSTEM_PROCESSOR}: its "
                   "compiler here builds for this machine; -DPSNRHVS_${backend}=ON to try)")
    set(_psh_cross_off TRUE)
  else()
    set(_psh_cross_off FALSE)
  endif()
endmacro()
psnrhvs_cross_off(CUDA)
if(_psh_cross_off)
elseif(NOT PSNRHVS_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # The default: sm_90 machine code plus compute_90 PTX, which newer GPUs
    # compile at load time. CUDAARCHS in the environment works as in CMake.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
      set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING
          "CUDA architectures of the kernels, CMake syntax: 90 = sm_90 code + compute_90 PTX; NN-real, NN-virtual, native, all")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(PSNRHVS_WITH_CUDA ON)
  elseif(PSNRHVS_CUDA STREQUAL "ON")
    message(FATAL_ERROR "PSNRHVS_CUDA=ON but no CUDA compiler was found")
  else()
    message(STATUS "CUDA backend: off (no nvcc found)")
  endif()
endif()
