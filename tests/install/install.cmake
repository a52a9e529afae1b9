# `cmake --install` of this build into a fresh prefix, then the layout a
# distribution expects: every file, the SONAME, psnrhvs.pc's prefix, the CLI.
#   cmake -DBUILD=<build tree> -DPREFIX=<prefix> "-DFILES=<paths under it>"
#         -DLIBDIR=<lib dir> -DSONAME=<libpsnrhvs.so.N> -DCLI=<bin/psnrhvs or empty>
#         -DVERSION=<x.y.z> -DREADELF=<readelf> -P install.cmake
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

if(CLI)
  execute_process(COMMAND ${PREFIX}/${CLI} --version RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^psnrhvs ${VERSION}\n")
    message(FATAL_ERROR "${PREFIX}/${CLI} --version: ${rc} ${out}")
  endif()
endif()
list(LENGTH FILES n)
message(STATUS "${n} files installed in ${PREFIX}")
