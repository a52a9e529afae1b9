# Builds c_link.c with the C compiler and links it against the static library
# (with the core's own dependencies, libc's: the SYCL backend is a module)
# and against the shared one, then runs both: the static one told where the
# modules are, the shared one finding them beside itself.
# cmake -DCC=... -DSRC=... -DINCLUDE=... -DGENERATED=... -DSTATIC=... -DSHARED=...
#       -DMODULES=<dir> -DOUT=... -P c_link.cmake
file(MAKE_DIRECTORY "${OUT}")
get_filename_component(shared_dir "${SHARED}" DIRECTORY)
set(static_cmd ${CC} -std=c11 -I${INCLUDE} -I${GENERATED} -o ${OUT}/c_link_static ${SRC} ${STATIC}
    -lpthread -lm -ldl)
set(shared_cmd ${CC} -std=c11 -I${INCLUDE} -I${GENERATED} -o ${OUT}/c_link_shared ${SRC} ${SHARED}
    -Wl,-rpath,${shared_dir})
set(static_args ${MODULES})
set(shared_args "")
foreach(kind static shared)
  execute_process(COMMAND ${${kind}_cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " line "${${kind}_cmd}")
    message(FATAL_ERROR "linking a C program against the ${kind} library failed:\n${line}\n${out}${err}")
  endif()
  execute_process(COMMAND ${OUT}/c_link_${kind} ${${kind}_args} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "c_link_${kind} failed (${rc}):\n${out}${err}")
  endif()
  message(STATUS "${kind}: ${out}")
endforeach()
