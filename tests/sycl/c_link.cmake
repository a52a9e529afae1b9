# Builds c_link.c with the C compiler and links it against the static library
# (with the SYCL backend's dependencies, PSNRHVS_SYCL_LINK_LIBS: what a C
# project or a pkg-config Libs.private must list) and against the shared one
# (which records them itself), then runs both.
# cmake -DCC=... -DSRC=... -DINCLUDE=... -DGENERATED=... -DSTATIC=... -DSHARED=... -DLIBS=a|b
#       -DOUT=... -P c_link.cmake
string(REPLACE "|" ";" LIBS "${LIBS}")
file(MAKE_DIRECTORY "${OUT}")
set(rpaths "")
foreach(l IN LISTS LIBS)
  if(IS_ABSOLUTE "${l}")
    get_filename_component(d "${l}" DIRECTORY)
    list(APPEND rpaths "-Wl,-rpath,${d}")
  endif()
endforeach()
get_filename_component(shared_dir "${SHARED}" DIRECTORY)
set(static_cmd ${CC} -std=c11 -I${INCLUDE} -I${GENERATED} -o ${OUT}/c_link_static ${SRC} ${STATIC})
foreach(l IN LISTS LIBS)
  if(IS_ABSOLUTE "${l}")
    list(APPEND static_cmd "${l}")
  else()
    list(APPEND static_cmd "-l${l}")
  endif()
endforeach()
list(APPEND static_cmd -lpthread -lm -ldl ${rpaths})
set(shared_cmd ${CC} -std=c11 -I${INCLUDE} -I${GENERATED} -o ${OUT}/c_link_shared ${SRC} ${SHARED}
    -Wl,-rpath,${shared_dir})
foreach(kind static shared)
  execute_process(COMMAND ${${kind}_cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " line "${${kind}_cmd}")
    message(FATAL_ERROR "linking a C program against the ${kind} library failed:\n${line}\n${out}${err}")
  endif()
  execute_process(COMMAND ${OUT}/c_link_${kind} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "c_link_${kind} failed (${rc}):\n${out}${err}")
  endif()
  message(STATUS "${kind}: ${out}")
endforeach()
