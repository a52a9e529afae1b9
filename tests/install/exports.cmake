# The installed shared library exports exactly the functions that the
# installed header declares with PSNRHVS_API: nothing missing, nothing else
# (no internal psnrhvs_* function, no symbol of the static CUDA runtime).
#   cmake -DNM=<nm> -DLIBRARY=<libpsnrhvs.so> -DHEADER=<psnrhvs.h> -P exports.cmake
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/PublicApi.cmake)
psnrhvs_public_functions(api ${HEADER})

execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIBRARY} failed (${rc}): ${err}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
set(exported "")
foreach(line ${lines})
  # "address type name"; an undefined-address line has no address.
  string(REGEX REPLACE "^([0-9a-fA-F]+ )?[A-Za-z] " "" name "${line}")
  list(APPEND exported ${name})
endforeach()
list(SORT exported)

set(missing ${api})
list(REMOVE_ITEM missing ${exported})
set(extra ${exported})
list(REMOVE_ITEM extra ${api})
if(missing OR extra)
  message(FATAL_ERROR "${LIBRARY}: dynamic symbols differ from ${HEADER}\n"
                      "  declared, not exported: ${missing}\n"
                      "  exported, not declared: ${extra}")
endif()
list(LENGTH api n)
message(STATUS "${n} functions exported, those of ${HEADER}")
