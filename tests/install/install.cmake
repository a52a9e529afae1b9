# `cmake --install` of this build into a fresh prefix, then the layout a
# distribution expects: every file, the SONAME, psnrhvs.pc's prefix, the CLI.
#   cmake -DBUILD=<build tree> -DPREFIX=<prefix> "-DFILES=<paths under it>"
#         -DLIBDIR=<lib dir> -DSONAME=<libpsnrhvs.so.N> -DCLI=<bin/psnrhvs or empty>
#         -DVERSION=<x.y.z> -DREADELF=<readelf> "-DMODULES=<cuda;sycl or empty>" -P install.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${PREFIX})
unset(ENV{DESTDIR}) # into PREFIX and nowhere else
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}")
endif()
foreach(f ${FILES})
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "not installed: ${PREFIX}/${f}")
  endif()
endforeach()

execute_process(COMMAND ${READELF} -d ${PREFIX}/${LIBDIR}/libpsnrhvs.so OUTPUT_VARIABLE out)
if(NOT out MATCHES "Library soname: \\[${SONAME}\\]")
  message(FATAL_ERROR "libpsnrhvs.so has not the SONAME ${SONAME}:\n${out}")
endif()

file(STRINGS ${PREFIX}/${LIBDIR}/pkgconfig/psnrhvs.pc prefix REGEX "^prefix=")
if(NOT prefix STREQUAL "prefix=${PREFIX}")
  message(FATAL_ERROR "psnrhvs.pc says ${prefix}, installed in ${PREFIX}")
endif()

# The core needs libc's libraries only, the CLI those, the core and FFmpeg's:
# the backends with other needs are modules in <libdir>/psnrhvs.
set(libc_libs "libc\\.so|libm\\.so|libpthread\\.so|libdl\\.so|libgcc_s\\.so|ld-linux")
function(check_needed file allowed)
  execute_process(COMMAND ${READELF} -d ${file} OUTPUT_VARIABLE out)
  string(REGEX MATCHALL "Shared library: \\[[^]]*\\]" needed "${out}")
  foreach(n ${needed})
    string(REGEX REPLACE "Shared library: \\[(.*)\\]" "\\1" n "${n}")
    if(NOT n MATCHES "^(${allowed})")
      message(FATAL_ERROR "${file} needs ${n}: only ${allowed} are allowed")
    endif()
    list(APPEND names ${n})
  endforeach()
  message(STATUS "${file} needs: ${names}")
endfunction()
check_needed(${PREFIX}/${LIBDIR}/libpsnrhvs.so "${libc_libs}")
if(CLI)
  check_needed(${PREFIX}/${CLI} "${libc_libs}|libpsnrhvs\\.so|libav(format|codec|util)\\.so|libswscale\\.so")
endif()
foreach(m ${MODULES})
  if(NOT EXISTS ${PREFIX}/${LIBDIR}/psnrhvs/backend-${m}.so)
    message(FATAL_ERROR "the ${m} module is not installed in ${PREFIX}/${LIBDIR}/psnrhvs")
  endif()
endforeach()

if(CLI)
  execute_process(COMMAND ${PREFIX}/${CLI} --version RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^psnrhvs ${VERSION}\n")
    message(FATAL_ERROR "${PREFIX}/${CLI} --version: ${rc} ${out}")
  endif()
endif()
list(LENGTH FILES n)
message(STATUS "${n} files installed in ${PREFIX}")
