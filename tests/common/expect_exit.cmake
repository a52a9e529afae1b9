# Runs CMD (a ;-list) and fails unless it exits with EXPECT: for checking that
# a test program reports skip (77) where it has nothing to check.
# cmake -DEXPECT=77 "-DCMD=prog;arg;..." -P expect_exit.cmake
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc)
if(NOT rc STREQUAL EXPECT)
  message(FATAL_ERROR "${CMD}: exit status ${rc}, want ${EXPECT}")
endif()
message(STATUS "exit status ${rc}, as expected")
