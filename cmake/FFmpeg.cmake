# FFmpeg's libraries for compressed input in the CLI (tools/input/ffmpeg.c):
# libavformat, libavcodec, libavutil, libswscale. AUTO uses them where found.
# Found with pkg-config; where there is none (the GPU machine), under
# PSNRHVS_FFMPEG_ROOT (include/ and lib/, as bench/ffmpeg_carry.sh lays out).
# Defines PSNRHVS_HAVE_FFMPEG and the target psnrhvs_ffmpeg.
set(PSNRHVS_FFMPEG AUTO CACHE STRING "Decode compressed input with FFmpeg: AUTO, ON or OFF")
set(PSNRHVS_FFMPEG_ROOT "" CACHE PATH "FFmpeg's include/ and lib/ where pkg-config is not used")
set(PSNRHVS_HAVE_FFMPEG OFF)
set(_ffmpeg_libs avformat avcodec avutil swscale)

if(NOT PSNRHVS_FFMPEG STREQUAL "OFF")
  if(PSNRHVS_FFMPEG_ROOT)
    set(_found ON)
    find_path(PSNRHVS_FFMPEG_INCLUDE libavformat/avformat.h
      PATHS ${PSNRHVS_FFMPEG_ROOT}/include NO_DEFAULT_PATH)
    if(NOT PSNRHVS_FFMPEG_INCLUDE)
      set(_found OFF)
    endif()
    set(_paths)
    foreach(l ${_ffmpeg_libs})
      find_library(PSNRHVS_FFMPEG_LIB_${l} ${l} PATHS ${PSNRHVS_FFMPEG_ROOT}/lib NO_DEFAULT_PATH)
      if(PSNRHVS_FFMPEG_LIB_${l})
        list(APPEND _paths ${PSNRHVS_FFMPEG_LIB_${l}})
      else()
        set(_found OFF)
      endif()
    endforeach()
    if(_found)
      add_library(psnrhvs_ffmpeg INTERFACE)
      target_include_directories(psnrhvs_ffmpeg INTERFACE ${PSNRHVS_FFMPEG_INCLUDE})
      # The libraries they need (carried beside them) resolve at link time too.
      target_link_libraries(psnrhvs_ffmpeg INTERFACE ${_paths}
        "-Wl,-rpath-link,${PSNRHVS_FFMPEG_ROOT}/lib")
      set(PSNRHVS_HAVE_FFMPEG ON)
    endif()
  else()
    find_package(PkgConfig QUIET)
    if(PKG_CONFIG_FOUND)
      pkg_check_modules(PSNRHVS_FFMPEG_PC QUIET IMPORTED_TARGET
        libavformat libavcodec libavutil libswscale)
      if(PSNRHVS_FFMPEG_PC_FOUND)
        add_library(psnrhvs_ffmpeg INTERFACE)
        target_link_libraries(psnrhvs_ffmpeg INTERFACE PkgConfig::PSNRHVS_FFMPEG_PC)
        set(PSNRHVS_HAVE_FFMPEG ON)
      endif()
    endif()
  endif()
  if(PSNRHVS_HAVE_FFMPEG)
    message(STATUS "FFmpeg: compressed input enabled")
  elseif(PSNRHVS_FFMPEG STREQUAL "ON")
    message(FATAL_ERROR "PSNRHVS_FFMPEG=ON but libavformat, libavcodec, libavutil and libswscale "
      "were not found (Debian: libavformat-dev libavcodec-dev libavutil-dev libswscale-dev; "
      "or set PSNRHVS_FFMPEG_ROOT)")
  else()
    message(STATUS "FFmpeg: not found, compressed input disabled (a compressed file gets a message)")
  endif()
endif()
