# The SYCL backend's toolchain: AdaptiveCpp 24.06 (built by
# cmake/acpp/build-acpp.sh into ${XDG_CACHE_HOME:-~/.cache}/psnrhvs/) and the
# numerics flags of every SYCL translation unit, fixed by the build.
#
# Use: one line in the top-level CMakeLists.txt, after include(Numerics):
#   include(Sycl)
# then, for a target with SYCL (C++) sources and for what links it:
#   psnrhvs_sycl(<target>)        # its .cpp files go through acpp, fixed flags
#   psnrhvs_sycl_link(<target>)   # an executable or shared library linking
#                                 # SYCL objects: linked by acpp (OpenMP, Boost
#                                 # fibers, cudart as the targets need)
#
# Cache options
#   PSNRHVS_SYCL=AUTO|ON|OFF   AUTO builds the SYCL parts where AdaptiveCpp is
#                              found; ON fails without it; OFF leaves them out.
#   ACPP_ROOT=<prefix>         an AdaptiveCpp install to use (or AdaptiveCpp_DIR=
#                              <prefix>/lib/cmake/AdaptiveCpp). Otherwise the
#                              cache of build-acpp.sh: the cuda variant when it
#                              is there and its CUDA toolkit too, else the cpu one.
#   PSNRHVS_SYCL_TARGETS       acpp targets; empty (default): omp, plus
#                              cuda:sm_90 when AdaptiveCpp has its CUDA backend.
# Results
#   PSNRHVS_SYCL_ENABLED        TRUE or FALSE
#   PSNRHVS_SYCL_TARGETS_USED   the targets, e.g. "omp;cuda:sm_90"
#   PSNRHVS_SYCL_HAS_CUDA       TRUE when cuda:* is among them
#   PSNRHVS_SYCL_NUMERICS_FLAGS the flags every SYCL translation unit gets
#   PSNRHVS_ACPP_PREFIX         the AdaptiveCpp install used
#
# Nothing here reads the environment for flags or targets: acpp runs through
# cmake/acpp/acpp-noenv (no ACPP_*/HIPSYCL_*/OPENSYCL_* variables) with
# --acpp-targets given, and the targets are never taken from $ACPP_TARGETS.
# SPDX-License-Identifier: BSD-2-Clause
include_guard(GLOBAL)

set(PSNRHVS_SYCL AUTO CACHE STRING "Build the SYCL backend (AdaptiveCpp): AUTO, ON or OFF")
set_property(CACHE PSNRHVS_SYCL PROPERTY STRINGS AUTO ON OFF)
set(ACPP_ROOT "" CACHE PATH "AdaptiveCpp install prefix (default: the build-acpp.sh cache)")
set(PSNRHVS_SYCL_TARGETS "" CACHE STRING
    "acpp targets for the SYCL backend (default: omp, plus cuda:sm_90 with a CUDA-enabled AdaptiveCpp)")

set(PSNRHVS_ACPP_VERSION 24.06.0)
set(PSNRHVS_SYCL_ENABLED FALSE)
set(PSNRHVS_SYCL_HAS_CUDA FALSE)
set(PSNRHVS_SYCL_TARGETS_USED "")
set(PSNRHVS_ACPP_PREFIX "")
set(_psh_acpp_dir "${CMAKE_CURRENT_LIST_DIR}/acpp")

# Numerics (spec section 7), as for C (cmake/Numerics.cmake): no contraction,
# which must be given explicitly because the acpp driver adds
# -ffp-contract=fast at -O2 and above when no -ffp-contract is on its command
# line (and clang contracts CUDA device code by default); no fast math; no
# errno, so that __builtin_sqrtf is the IEEE instruction (sqrtss, sqrt.rn.f32).
set(PSNRHVS_SYCL_NUMERICS_FLAGS -ffp-contract=off -fno-fast-math -fno-math-errno)
# Extra flags with the CUDA target: no denormal flush and no approximate
# functions (clang's defaults, spelled out); inline everything a kernel calls
# in the device pass (AdaptiveCpp's own kernel wrapper lambda stays a call
# otherwise, and the per-block kernel then gets a stack frame and spills);
# clang 16 knows CUDA up to 12.1 and warns about 13 on every file.
set(PSNRHVS_SYCL_CUDA_FLAGS -fno-gpu-flush-denormals-to-zero -fno-cuda-approx-transcendentals
    -fgpu-inline-threshold=100000 -Wno-unknown-cuda-version)

if(PSNRHVS_SYCL STREQUAL "OFF")
  message(STATUS "SYCL backend: off (PSNRHVS_SYCL=OFF)")
  return()
endif()
# As psnrhvs_cross_off() of cmake/Backends.cmake (tests/sycl includes this
# file alone): acpp here builds for this machine.
if(CMAKE_CROSSCOMPILING AND PSNRHVS_SYCL STREQUAL "AUTO")
  message(STATUS "SYCL backend: off (a cross build for ${CMAKE_SYSTEM_PROCESSOR}: its "
                 "compiler here builds for this machine; -DPSNRHVS_SYCL=ON to try)")
  return()
endif()

# --- find AdaptiveCpp -------------------------------------------------------
if(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(_psh_cache "$ENV{XDG_CACHE_HOME}/psnrhvs")
else()
  set(_psh_cache "$ENV{HOME}/.cache/psnrhvs")
endif()
set(_psh_hints "")
if(ACPP_ROOT)
  list(APPEND _psh_hints "${ACPP_ROOT}")
elseif(NOT AdaptiveCpp_DIR)
  # The cuda variant only where the CUDA toolkit it was built against is there.
  set(_psh_cuda_prefix "${_psh_cache}/acpp-${PSNRHVS_ACPP_VERSION}-cuda")
  if(EXISTS "${_psh_cuda_prefix}/psnrhvs-acpp.stamp"
     AND EXISTS "${_psh_cuda_prefix}/etc/AdaptiveCpp/acpp-cuda.json")
    file(READ "${_psh_cuda_prefix}/etc/AdaptiveCpp/acpp-cuda.json" _psh_json)
    string(JSON _psh_cuda_path ERROR_VARIABLE _psh_err GET "${_psh_json}" default-cuda-path)
    if(NOT _psh_err AND EXISTS "${_psh_cuda_path}/bin/ptxas")
      list(APPEND _psh_hints "${_psh_cuda_prefix}")
    endif()
  endif()
  if(EXISTS "${_psh_cache}/acpp-${PSNRHVS_ACPP_VERSION}-cpu/psnrhvs-acpp.stamp")
    list(APPEND _psh_hints "${_psh_cache}/acpp-${PSNRHVS_ACPP_VERSION}-cpu")
  endif()
endif()

# AdaptiveCpp's config reads $ACPP_TARGETS when its cache entry is empty: hide
# it (only from this CMake process), the targets are chosen below.
set(_psh_env_targets "$ENV{ACPP_TARGETS}")
set(ENV{ACPP_TARGETS} "")
if(_psh_hints)
  find_package(AdaptiveCpp 24.06 CONFIG QUIET PATHS ${_psh_hints} NO_DEFAULT_PATH)
else()
  find_package(AdaptiveCpp 24.06 CONFIG QUIET)
endif()
set(ENV{ACPP_TARGETS} "${_psh_env_targets}")

if(NOT AdaptiveCpp_FOUND)
  set(_psh_how "build it with cmake/acpp/build-acpp.sh (offline, about 3 minutes on 2 cores; \
--cuda for the cuda:sm_90 target) or give -DACPP_ROOT=<prefix>")
  if(PSNRHVS_SYCL STREQUAL "ON")
    message(FATAL_ERROR "PSNRHVS_SYCL=ON but AdaptiveCpp ${PSNRHVS_ACPP_VERSION} was not found: ${_psh_how}")
  endif()
  message(STATUS "SYCL backend: off (no AdaptiveCpp; ${_psh_how})")
  return()
endif()

get_filename_component(PSNRHVS_ACPP_PREFIX "${ACPP_COMPILER}/../.." ABSOLUTE)
set(_psh_core_json "${PSNRHVS_ACPP_PREFIX}/etc/AdaptiveCpp/acpp-core.json")
if(NOT EXISTS "${_psh_core_json}")
  message(FATAL_ERROR "AdaptiveCpp at ${PSNRHVS_ACPP_PREFIX} has no etc/AdaptiveCpp/acpp-core.json")
endif()
file(READ "${_psh_core_json}" _psh_json)
string(JSON _psh_clang GET "${_psh_json}" default-clang)

# --- targets ------------------------------------------------------------------
set(_psh_has_cuda_rt FALSE)
if(EXISTS "${PSNRHVS_ACPP_PREFIX}/lib/hipSYCL/librt-backend-cuda.so")
  set(_psh_has_cuda_rt TRUE)
endif()
if(PSNRHVS_SYCL_TARGETS)
  set(PSNRHVS_SYCL_TARGETS_USED "${PSNRHVS_SYCL_TARGETS}")
else()
  set(PSNRHVS_SYCL_TARGETS_USED "omp")
  if(_psh_has_cuda_rt AND NOT PSNRHVS_CUDA STREQUAL "OFF")
    list(APPEND PSNRHVS_SYCL_TARGETS_USED "cuda:sm_90")
  endif()
endif()
if(PSNRHVS_SYCL_TARGETS_USED MATCHES "cuda")
  if(NOT _psh_has_cuda_rt)
    message(FATAL_ERROR "SYCL target ${PSNRHVS_SYCL_TARGETS_USED} needs an AdaptiveCpp built with "
                        "its CUDA backend (cmake/acpp/build-acpp.sh --cuda)")
  endif()
  set(PSNRHVS_SYCL_HAS_CUDA TRUE)
endif()

# --- C++ for the SYCL sources, compiled by acpp ---------------------------------
# The launcher swaps CMAKE_CXX_COMPILER for acpp, which runs clang; make CMake's
# C++ compiler that same clang so its generated flags suit it.
if(NOT CMAKE_CXX_COMPILER AND EXISTS "${_psh_clang}")
  set(CMAKE_CXX_COMPILER "${_psh_clang}")
endif()
enable_language(CXX)

# acpp's own arguments: the targets, always on the command line.
set(_psh_acpp_args "'--acpp-targets=${PSNRHVS_SYCL_TARGETS_USED}'")
set(PSNRHVS_SYCL_LAUNCH_RULE
    "${ACPP_COMPILER_LAUNCHER} --launcher-cxx-compiler=${CMAKE_CXX_COMPILER} \
--launcher-syclcc=${_psh_acpp_dir}/acpp-noenv*${ACPP_COMPILER} ${_psh_acpp_args}")
# Rebuild every SYCL object when the rule changes (as AdaptiveCpp's own
# add_sycl_to_target does).
set(_psh_rule_file "${CMAKE_BINARY_DIR}/CMakeFiles/psnrhvs-sycl-launch.rule")
file(CONFIGURE OUTPUT "${_psh_rule_file}"
     CONTENT "${PSNRHVS_SYCL_LAUNCH_RULE}\n${PSNRHVS_SYCL_NUMERICS_FLAGS}\n" @ONLY)

set(PSNRHVS_SYCL_ENABLED TRUE)
message(STATUS "SYCL backend: AdaptiveCpp ${AdaptiveCpp_VERSION} at ${PSNRHVS_ACPP_PREFIX}, "
               "targets ${PSNRHVS_SYCL_TARGETS_USED}")

# The C++ sources of <target> are compiled by acpp for PSNRHVS_SYCL_TARGETS_USED
# with PSNRHVS_SYCL_NUMERICS_FLAGS (last on the command line, so that they win
# over CMAKE_CXX_FLAGS); the target links AdaptiveCpp's runtime.
function(psnrhvs_sycl target)
  if(NOT PSNRHVS_SYCL_ENABLED)
    message(FATAL_ERROR "psnrhvs_sycl(${target}) without an enabled SYCL backend")
  endif()
  set(flags ${PSNRHVS_SYCL_NUMERICS_FLAGS})
  if(PSNRHVS_SYCL_HAS_CUDA)
    list(APPEND flags ${PSNRHVS_SYCL_CUDA_FLAGS})
  endif()
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${flags}>")
  set_target_properties(${target} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
                                             CXX_EXTENSIONS OFF)
  get_target_property(existing ${target} RULE_LAUNCH_COMPILE)
  if(NOT existing)
    set(existing "")
  endif()
  set_target_properties(${target} PROPERTIES RULE_LAUNCH_COMPILE
                                             "${existing} ${PSNRHVS_SYCL_LAUNCH_RULE}")
  get_target_property(sources ${target} SOURCES)
  foreach(s IN LISTS sources)
    if(s MATCHES "\\.(cpp|cxx|cc)$")
      set_property(SOURCE ${s} TARGET_DIRECTORY ${target} APPEND PROPERTY OBJECT_DEPENDS
                   "${_psh_rule_file};${ACPP_COMPILER_LAUNCHER}")
    endif()
  endforeach()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE" OR type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
    psnrhvs_sycl_link(${target})
  else()
    target_link_libraries(${target} PUBLIC AdaptiveCpp::acpp-rt)
  endif()
endfunction()

# <target> (an executable or shared library, possibly all C) links objects
# compiled by psnrhvs_sycl: link it with acpp, which adds what the targets need
# (OpenMP and Boost.Fiber for omp, cudart for cuda).
function(psnrhvs_sycl_link target)
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
  get_target_property(existing ${target} RULE_LAUNCH_LINK)
  if(NOT existing)
    set(existing "")
  endif()
  set_target_properties(${target} PROPERTIES RULE_LAUNCH_LINK "${existing} ${PSNRHVS_SYCL_LAUNCH_RULE}")
  target_link_libraries(${target} PRIVATE AdaptiveCpp::acpp-rt)
endfunction()
