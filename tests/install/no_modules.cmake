# The installed tree without <libdir>/psnrhvs (a CPU-only package, a
# container without the GPU modules): the CLI scores on the CPU, --backend
# cuda and sycl fail with one line naming the missing module, and a C
# program built against it scores a golden fixture with its bits.
#   cmake -DPREFIX=<installed> -DCOPY=<scratch prefix> -DLIBDIR=<lib dir> -DCLI=<bin/psnrhvs>
#         "-DMODULES=cuda|sycl" -DWORK=<dir> -DJSON=<golden> -DDATA=<tests/data> -DCC=<cc>
#         -DPKG_CONFIG=<pkg-config> -DREADELF=<readelf> -DCONSUMER=<consumer.cmake>
#         -P no_modules.cmake
cmake_minimum_required(VERSION 3.20)
string(REPLACE "|" ";" MODULES "${MODULES}")
file(REMOVE_RECURSE ${COPY} ${WORK})
file(MAKE_DIRECTORY ${WORK})
# A copy, so the tests of the whole prefix run beside this one; psnrhvs.pc's
# prefix names the copy.
file(COPY ${PREFIX}/ DESTINATION ${COPY})
file(REMOVE_RECURSE ${COPY}/${LIBDIR}/psnrhvs)
file(READ ${COPY}/${LIBDIR}/pkgconfig/psnrhvs.pc pc)
string(REPLACE "prefix=${PREFIX}" "prefix=${COPY}" pc "${pc}")
file(WRITE ${COPY}/${LIBDIR}/pkgconfig/psnrhvs.pc "${pc}")

if(CLI)
  set(pair -r ${DATA}/yuv420p_176x144_ref.y4m -d ${DATA}/yuv420p_176x144_dist.y4m)
  foreach(b cpu auto)
    execute_process(COMMAND ${COPY}/${CLI} ${pair} --backend ${b} -q --json -o ${WORK}/${b}.json
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/${b}.json)
      message(FATAL_ERROR "--backend ${b} without the modules: exit ${rc}\n${err}")
    endif()
  endforeach()
  foreach(m ${MODULES})
    execute_process(COMMAND ${COPY}/${CLI} ${pair} --backend ${m} -q RESULT_VARIABLE rc
                    OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(REGEX MATCHALL "\n" lines "${err}")
    list(LENGTH lines n)
    if(NOT rc EQUAL 1 OR NOT n EQUAL 1 OR NOT err MATCHES "${m} backend's module is not installed"
       OR NOT out STREQUAL "")
      message(FATAL_ERROR "--backend ${m} without its module: exit ${rc}, ${n} lines: ${err}")
    endif()
    message(STATUS "--backend ${m}: ${err}")
  endforeach()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -DHOW=pkgconfig -DLINK=shared -DPREFIX=${COPY}
                        -DLIBDIR=${LIBDIR} -DWORK=${WORK}/consumer -DJSON=${JSON} -DDATA=${DATA}
                        -DCC=${CC} -DPKG_CONFIG=${PKG_CONFIG} -DREADELF=${READELF} -P ${CONSUMER}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a C program without the modules:\n${out}")
endif()
message(STATUS "${out}")
