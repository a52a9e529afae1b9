# The HIP backend: the shared GPU host (src/cuda_hip/gpu_backend.c, built with
# PSNRHVS_GPU_HIP=1) and kernels (src/cuda_hip/kernels.cu, built by hipcc into one
# code object for every target and embedded). Nothing links ROCm: the host
# opens libamdhip64 at run time (src/cuda_hip/gpu_runtime_hip.c), so the library
# and the CLI start anywhere and --backend hip says why it cannot run.
if(PSNRHVS_HIP STREQUAL "OFF")
  return()
endif()
psnrhvs_cross_off(HIP) # cmake/Backends.cmake
if(_psh_cross_off)
  return()
endif()

find_program(PSNRHVS_HIPCC hipcc DOC "hipcc (Debian: package hipcc)")
find_path(PSNRHVS_HIP_INCLUDE_DIR hip/hip_runtime_api.h
          DOC "HIP runtime headers (Debian: package libamdhip64-dev)")
if(NOT PSNRHVS_HIPCC OR NOT PSNRHVS_HIP_INCLUDE_DIR)
  if(PSNRHVS_HIP STREQUAL "ON")
    message(FATAL_ERROR "PSNRHVS_HIP=ON but hipcc or the HIP headers were not found")
  endif()
  message(STATUS "HIP backend: off (no hipcc and HIP headers found)")
  return()
endif()

# Targets of the code object. Debian 12's device libraries (ROCm 5.2) cover
# these three among others; gfx1100 is not among them.
set(PSNRHVS_HIP_TARGETS "gfx1030;gfx1036;gfx90a"
    CACHE STRING "AMD GPU targets of the HIP kernels (hipcc --offload-arch)")
set(arch_flags "")
foreach(t ${PSNRHVS_HIP_TARGETS})
  list(APPEND arch_flags --offload-arch=${t})
endforeach()
# The numerics flags of cmake/Numerics.cmake, and the integer square root and
# division of src/core/int_math.h: nothing ran on AMD hardware here, so the
# results must not rest on the device libraries' f32 sqrt and division.
set(PSNRHVS_HIP_KERNEL_FLAGS ${PSNRHVS_HIP_NUMERICS_FLAGS} -DPSH_EXACT_HELPERS=1 -O3 -std=c++17
    CACHE INTERNAL "hipcc flags of src/cuda_hip/kernels.cu")

set(src ${PROJECT_SOURCE_DIR}/src/cuda_hip/kernels.cu)
set(code_object ${CMAKE_CURRENT_BINARY_DIR}/kernels.hipfb)
set(embedded ${CMAKE_CURRENT_BINARY_DIR}/hip_code_object.c)
file(GLOB core_headers ${PROJECT_SOURCE_DIR}/src/core/*.h)
add_custom_command(
  OUTPUT ${code_object}
  COMMAND ${PSNRHVS_HIPCC} -x hip --genco ${arch_flags} ${PSNRHVS_HIP_KERNEL_FLAGS}
          -I${PROJECT_SOURCE_DIR}/src -o ${code_object} ${src}
  DEPENDS ${src} ${PROJECT_SOURCE_DIR}/src/cuda_hip/kernels.h ${PROJECT_SOURCE_DIR}/src/cuda_hip/gpu_device.h
          ${core_headers}
  COMMENT "Building the HIP kernels for ${PSNRHVS_HIP_TARGETS}"
  VERBATIM)
add_custom_command(
  OUTPUT ${embedded}
  COMMAND ${CMAKE_COMMAND} -DIN=${code_object} -DOUT=${embedded} -DNAME=psh_hip_code_object
          -P ${PROJECT_SOURCE_DIR}/cmake/EmbedBinary.cmake
  DEPENDS ${code_object} ${PROJECT_SOURCE_DIR}/cmake/EmbedBinary.cmake
  COMMENT "Embedding the HIP code object"
  VERBATIM)
add_custom_target(psh_hip_code_object DEPENDS ${code_object})

add_library(psh_hip OBJECT ${PROJECT_SOURCE_DIR}/src/cuda_hip/gpu_backend.c
                               ${PROJECT_SOURCE_DIR}/src/cuda_hip/gpu_runtime_hip.c ${embedded})
psnrhvs_numerics(psh_hip)
target_include_directories(psh_hip PRIVATE ${PSNRHVS_HIP_INCLUDE_DIR})
target_compile_definitions(psh_hip PRIVATE PSNRHVS_GPU_HIP=1 __HIP_PLATFORM_AMD__=1)
psnrhvs_add_objects(psh_hip)
psnrhvs_have(HIP)
psnrhvs_link_libraries(${CMAKE_DL_LIBS})
message(STATUS "HIP backend: on (${PSNRHVS_HIPCC}, ${PSNRHVS_HIP_TARGETS}, runtime opened at run time)")
