# Floating-point rules every translation unit obeys (numerics spec section 7):
# no FMA contraction, no fast-math, IEEE division and square root, no FTZ.
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_C_EXTENSIONS OFF)

set(PSNRHVS_C_NUMERICS_FLAGS -ffp-contract=off -fno-fast-math -fno-math-errno)
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  # Only GCC knows it; with SSE arithmetic it is the default anyway.
  list(APPEND PSNRHVS_C_NUMERICS_FLAGS -fexcess-precision=standard)
endif()
set(PSNRHVS_C_WARNINGS -Wall -Wextra -Wundef -Werror=vla -Wno-unused-parameter)

# Applied to a target: psnrhvs_numerics(<target>)
function(psnrhvs_numerics target)
  target_compile_options(${target} PRIVATE ${PSNRHVS_C_NUMERICS_FLAGS} ${PSNRHVS_C_WARNINGS})
  target_compile_definitions(${target} PRIVATE _POSIX_C_SOURCE=200809L)
endfunction()

# nvcc: no fused multiply-add, IEEE division and square root, no denormal flush.
set(PSNRHVS_CUDA_NUMERICS_FLAGS --fmad=false -prec-div=true -prec-sqrt=true -ftz=false)
# HIP (clang): no contraction, correctly rounded f32 division and square root.
set(PSNRHVS_HIP_NUMERICS_FLAGS -ffp-contract=off -fhip-fp32-correctly-rounded-divide-sqrt)
# OpenCL C build options (given to clBuildProgram, see src/opencl/).
set(PSNRHVS_OPENCL_BUILD_OPTIONS "-cl-fp32-correctly-rounded-divide-sqrt")
