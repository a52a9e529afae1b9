# The installed libpsnrhvs.a is complete: every psnrhvs_* or psh_* function one
# of its objects calls is defined by another (none left in a separate library).
#   cmake -DNM=<nm> -DARCHIVE=<libpsnrhvs.a> -P archive.cmake
cmake_minimum_required(VERSION 3.20)
execute_process(COMMAND ${NM} ${ARCHIVE} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} ${ARCHIVE} failed (${rc}): ${err}")
endif()
string(REGEX MATCHALL "\n *U (psnrhvs|psh)_[A-Za-z0-9_]+" used "\n${out}")
string(REGEX MATCHALL "\n[0-9a-fA-F]+ [TDRBW] (psnrhvs|psh)_[A-Za-z0-9_]+" defined "\n${out}")
list(TRANSFORM used REPLACE ".* " "")
list(TRANSFORM defined REPLACE ".* " "")
list(REMOVE_DUPLICATES used)
list(REMOVE_ITEM used ${defined})
if(used)
  message(FATAL_ERROR "${ARCHIVE} uses but does not define: ${used}")
endif()
list(LENGTH defined n)
message(STATUS "${ARCHIVE}: complete (${n} psnrhvs/psh symbols defined)")
