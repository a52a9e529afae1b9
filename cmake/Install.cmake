# What `cmake --install` puts where (GNUInstallDirs), as a distribution packs it:
#   include/         psnrhvs.h, psnrhvs/*.h (its parts), psnrhvs_version.h
#   lib/             libpsnrhvs.so.X.Y.Z (SONAME libpsnrhvs.so.X), libpsnrhvs.a (complete)
#   lib/psnrhvs/     the backend modules (backend-cuda.so, backend-sycl.so and
#                    AdaptiveCpp's runtime beside it), where built
#   lib/pkgconfig/   psnrhvs.pc
#   lib/cmake/psnrhvs/  find_package(psnrhvs): psnrhvs::psnrhvs, psnrhvs::psnrhvs_static
#   bin/             psnrhvs (its rule is in tools/CMakeLists.txt)
#   share/man/man1/  psnrhvs.1
#   share/doc/psnrhvs/  LICENSE, NOTICE
include(CMakePackageConfigHelpers)
set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/psnrhvs)

# The shared and the static library are exported apart: the static one needs
# its link dependencies found (Threads), the shared one nothing.
set_target_properties(libpsnrhvs_shared PROPERTIES EXPORT_NAME psnrhvs)
set_target_properties(libpsnrhvs PROPERTIES EXPORT_NAME psnrhvs_static)
install(TARGETS libpsnrhvs_shared EXPORT psnrhvs_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS libpsnrhvs EXPORT psnrhvs_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/psnrhvs.h
              ${PSNRHVS_GENERATED_INCLUDE_DIR}/psnrhvs_version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/psnrhvs DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
# The SYCL module's AdaptiveCpp runtime beside it in <libdir>/psnrhvs (its
# backends in hipSYCL/, where libacpp-rt looks).
if(PSNRHVS_SYCL_ENABLED)
  install(FILES ${PSNRHVS_MODULE_DIR}/libacpp-rt.so ${PSNRHVS_MODULE_DIR}/libacpp-common.so
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/psnrhvs)
  install(DIRECTORY ${PSNRHVS_MODULE_DIR}/hipSYCL DESTINATION ${CMAKE_INSTALL_LIBDIR}/psnrhvs
          USE_SOURCE_PERMISSIONS)
endif()
# The CLI finds the core where it is installed, relative to itself.
if(TARGET psnrhvs_cli)
  file(RELATIVE_PATH bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(psnrhvs_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${bin_to_lib}")
endif()
foreach(kind shared static)
  install(EXPORT psnrhvs_${kind} NAMESPACE psnrhvs:: FILE psnrhvs-${kind}-targets.cmake
          DESTINATION ${cmake_dir})
endforeach()

# The static library's link dependencies (src/CMakeLists.txt: the core's,
# libc's only, the backends with other needs being modules) as pkg-config
# flags and as the packages of the CMake config.
set(pc_libs "")
set(PSNRHVS_STATIC_DEPENDENCIES "")
foreach(lib ${PSNRHVS_LIBRARY_DEPENDENCIES})
  if(lib STREQUAL "Threads::Threads")
    list(APPEND pc_libs -lpthread)
    string(APPEND PSNRHVS_STATIC_DEPENDENCIES
           "set(THREADS_PREFER_PTHREAD_FLAG ON)\n_psnrhvs_static_needs(Threads)\n")
  elseif(lib MATCHES "^[A-Za-z0-9_+-]+$")
    list(APPEND pc_libs -l${lib})
  else()
    message(FATAL_ERROR "cmake/Install.cmake: the core links ${lib}: only system libraries")
  endif()
endforeach()
list(JOIN pc_libs " " PSNRHVS_PC_LIBS_PRIVATE)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/psnrhvsConfig.cmake.in
  ${PROJECT_BINARY_DIR}/psnrhvsConfig.cmake INSTALL_DESTINATION ${cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/psnrhvsConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/psnrhvsConfig.cmake
              ${PROJECT_BINARY_DIR}/psnrhvsConfigVersion.cmake
        DESTINATION ${cmake_dir})

# psnrhvs.pc: written at install time, so that prefix= is where it really
# goes (cmake --install --prefix); everything else is filled in now.
foreach(d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    set(PSNRHVS_PC_${d} "${CMAKE_INSTALL_${d}}")
  else()
    set(PSNRHVS_PC_${d} "\${prefix}/${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
set(PSNRHVS_PC_PREFIX "@PSNRHVS_PC_PREFIX@")
configure_file(${PROJECT_SOURCE_DIR}/cmake/psnrhvs.pc.in ${PROJECT_BINARY_DIR}/psnrhvs.pc.in @ONLY)
install(CODE "
  set(PSNRHVS_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/psnrhvs.pc.in\" \"${PROJECT_BINARY_DIR}/psnrhvs.pc\" @ONLY)")
install(FILES ${PROJECT_BINARY_DIR}/psnrhvs.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

if(TARGET psnrhvs_cli)
  install(FILES ${PROJECT_SOURCE_DIR}/docs/psnrhvs.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/NOTICE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
