# Builds tests/install/consumer against the installed package and runs it on a
# golden fixture: the raw plane scores must have the golden bits.
#   cmake -DHOW=pkgconfig|cmake -DLINK=shared|static -DPREFIX=<install prefix>
#         -DLIBDIR=<lib dir under it> -DWORK=<scratch dir> -DJSON=<golden json>
#         -DDATA=<tests/data> -DCC=<C compiler> -DPKG_CONFIG=<pkg-config>
#         -DGENERATOR=<CMake generator> -DREADELF=<readelf> -P consumer.cmake
cmake_minimum_required(VERSION 3.20)
set(consumer ${CMAKE_CURRENT_LIST_DIR}/consumer)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " cmd)
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

if(HOW STREQUAL "pkgconfig")
  if(NOT PKG_CONFIG)
    message(FATAL_ERROR "pkg-config not found (Debian: apt-get install pkg-config)")
  endif()
  # Only the installed psnrhvs.pc, none of the system's.
  set(ENV{PKG_CONFIG_LIBDIR} ${PREFIX}/${LIBDIR}/pkgconfig)
  set(ENV{PKG_CONFIG_PATH} "")
  set(pc_static "")
  if(LINK MATCHES "^static")
    set(pc_static --static)
  endif()
  run(${PKG_CONFIG} --cflags --libs ${pc_static} psnrhvs)
  message(STATUS "pkg-config --cflags --libs ${pc_static} psnrhvs: ${out}")
  separate_arguments(flags UNIX_COMMAND "${out}")
  if(LINK STREQUAL "static")
    # The archive, not the shared library beside it (as where only libpsnrhvs.a
    # is installed); system libraries stay shared.
    list(TRANSFORM flags REPLACE "^-lpsnrhvs$" "-l:libpsnrhvs.a")
  elseif(LINK STREQUAL "static-exe")
    # docs/install.md's all-static program: cc -static ... --static --libs.
    list(APPEND flags -static)
  else()
    list(APPEND flags -Wl,-rpath,${PREFIX}/${LIBDIR})
  endif()
  set(exe ${WORK}/consumer)
  run(${CC} -std=c11 -ffp-contract=off ${consumer}/main.c -o ${exe} ${flags})
else()
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK} -G ${GENERATOR} -DCMAKE_C_COMPILER=${CC}
      -DCMAKE_PREFIX_PATH=${PREFIX} -DPSNRHVS_LINK=${LINK})
  # The installed package, not another one found elsewhere.
  file(STRINGS ${WORK}/CMakeCache.txt found REGEX "^psnrhvs_DIR:")
  if(NOT found STREQUAL "psnrhvs_DIR:PATH=${PREFIX}/${LIBDIR}/cmake/psnrhvs")
    message(FATAL_ERROR "find_package(psnrhvs) found ${found}, not the package in ${PREFIX}")
  endif()
  run(${CMAKE_COMMAND} --build ${WORK})
  set(exe ${WORK}/consumer)
endif()

# Shared: it needs libpsnrhvs.so.1; static: it must not.
run(${READELF} -d ${exe})
string(FIND "${out}" "[libpsnrhvs.so." needs)
if(LINK STREQUAL "shared" AND needs EQUAL -1)
  message(FATAL_ERROR "${exe} does not need libpsnrhvs.so:\n${out}")
elseif(LINK MATCHES "^static" AND NOT needs EQUAL -1)
  message(FATAL_ERROR "${exe} needs libpsnrhvs.so although linked with libpsnrhvs.a:\n${out}")
endif()

# The fixture's geometry and raw plane scores from its golden file.
file(READ ${JSON} json)
set(args "")
foreach(key reference distorted width height pixel_format bitdepth frames)
  string(JSON value GET "${json}" ${key})
  set(${key} ${value})
  if(key MATCHES "^(reference|distorted)$")
    set(value ${DATA}/${value})
  endif()
  list(APPEND args ${value})
endforeach()
set(planes raw_y raw_cb raw_cr)
if(pixel_format STREQUAL "400")
  set(planes raw_y)
endif()
math(EXPR last "${frames} - 1")
foreach(f RANGE ${last})
  foreach(p ${planes})
    string(JSON raw GET "${json}" per_frame ${f} ${p})
    list(APPEND args ${raw})
  endforeach()
endforeach()
run(${exe} ${args})
message(STATUS "${out}")
if(NOT out MATCHES "same bits")
  message(FATAL_ERROR "the consumer printed no verdict")
endif()
