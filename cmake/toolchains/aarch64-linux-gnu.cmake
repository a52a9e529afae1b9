# Cross build for 64-bit ARM Linux with Debian's cross toolchain
# (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross), its tests run under QEMU's
# user-mode emulator (qemu-user) with the cross C library as its sysroot:
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#   ctest --test-dir build-arm64      (every test command goes through qemu-aarch64)
# tests/run_arm64.sh builds and runs that tree for ./build.sh test.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(PSNRHVS_CROSS_TRIPLE aarch64-linux-gnu)
set(PSNRHVS_CROSS_SYSROOT /usr/${PSNRHVS_CROSS_TRIPLE} CACHE PATH
    "the target's C library and headers (Debian's libc6-dev-arm64-cross)")

find_program(CMAKE_C_COMPILER NAMES ${PSNRHVS_CROSS_TRIPLE}-gcc REQUIRED)
find_program(CMAKE_CXX_COMPILER NAMES ${PSNRHVS_CROSS_TRIPLE}-g++)
find_program(PSNRHVS_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(PSNRHVS_QEMU_AARCH64)
  # -L: where the emulated program's dynamic loader and libraries live.
  set(CMAKE_CROSSCOMPILING_EMULATOR ${PSNRHVS_QEMU_AARCH64} -L ${PSNRHVS_CROSS_SYSROOT})
endif()

# Libraries and headers of the target only; programs (python3, ffmpeg) of the host.
set(CMAKE_FIND_ROOT_PATH ${PSNRHVS_CROSS_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config must not hand the host's FFmpeg or OpenCL to the target.
set(ENV{PKG_CONFIG_LIBDIR} ${PSNRHVS_CROSS_SYSROOT}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
