# What `cmake --install` puts where (GNUInstallDirs), as a distribution packs it:
#   include/         psnrhvs.h, psnrhvs_version.h
#   lib/             libpsnrhvs.so.X.Y.Z (SONAME libpsnrhvs.so.X), libpsnrhvs.a (complete)
#   lib/pkgconfig/   psnrhvs.pc
#   lib/cmake/psnrhvs/  find_package(psnrhvs): psnrhvs::psnrhvs, psnrhvs::psnrhvs_static
#   bin/             psnrhvs (its rule is in tools/CMakeLists.txt)
#   share/man/man1/  psnrhvs.1
#   share/doc/psnrhvs/  LICENSE, NOTICE
include(CMakePackageConfigHelpers)
set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/psnrhvs)

# The shared and the static library are exported apart: the static one needs
# its link dependencies found (the CUDA toolkit, say), the shared one nothing.
set_target_properties(libpsnrhvs_shared PROPERTIES EXPORT_NAME psnrhvs)
set_target_properties(libpsnrhvs PROPERTIES EXPORT_NAME psnrhvs_static)
install(TARGETS libpsnrhvs_shared EXPORT psnrhvs_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS libpsnrhvs EXPORT psnrhvs_static ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/psnrhvs.h
              ${PSNRHVS_GENERATED_INCLUDE_DIR}/psnrhvs_version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# A build with the SYCL backend links AdaptiveCpp's runtime: it goes to
# <libdir>/psnrhvs (its backends in hipSYCL/ beside it, where libacpp-rt
# looks), found through the RPATH of the library and the CLI, which also
# names the folders of the other runtime libraries outside the system's
# (LLVM's libomp, libcudart).
if(PSNRHVS_SYCL_ENABLED)
  set(acpp_rt ${CMAKE_BINARY_DIR}/acpp-runtime/lib)
  install(FILES ${acpp_rt}/libacpp-rt.so ${acpp_rt}/libacpp-common.so
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/psnrhvs)
  install(DIRECTORY ${acpp_rt}/hipSYCL DESTINATION ${CMAKE_INSTALL_LIBDIR}/psnrhvs
          USE_SOURCE_PERMISSIONS)
  file(RELATIVE_PATH bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(libpsnrhvs_shared PROPERTIES INSTALL_RPATH "$ORIGIN/psnrhvs"
                                                     INSTALL_RPATH_USE_LINK_PATH ON)
  if(TARGET psnrhvs_cli)
    set_target_properties(psnrhvs_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${bin_to_lib}/psnrhvs"
                                                 INSTALL_RPATH_USE_LINK_PATH ON)
  endif()
endif()
foreach(kind shared static)
  install(EXPORT psnrhvs_${kind} NAMESPACE psnrhvs:: FILE psnrhvs-${kind}-targets.cmake
          DESTINATION ${cmake_dir})
endforeach()

# The static library's link dependencies (src/CMakeLists.txt) as pkg-config
# flags (-l for system libraries, a full path for the static CUDA runtime) and
# as the packages that define their imported targets.
set(pending ${PSNRHVS_LIBRARY_DEPENDENCIES})
set(pc_libs "")
set(packages "")
while(pending)
  list(POP_FRONT pending lib)
  if(lib MATCHES "^\\$<LINK_ONLY:(.*)>$")
    set(lib ${CMAKE_MATCH_1})
  endif()
  if(lib MATCHES "\\$<")
    message(FATAL_ERROR "cmake/Install.cmake: cannot map the link item ${lib}")
  endif()
  if(lib MATCHES "^([A-Za-z0-9_]+)::")
    list(APPEND packages ${CMAKE_MATCH_1})
  endif()
  set(file "")
  if(lib MATCHES "^psnrhvs_acpp_(rt|common)$")
    # AdaptiveCpp's runtime, where it is installed (above).
    list(APPEND pc_libs "-L\${libdir}/psnrhvs" "-Wl,-rpath,\${libdir}/psnrhvs" -lacpp-${CMAKE_MATCH_1})
    list(APPEND packages SYCL)
  elseif(lib STREQUAL "Threads::Threads")
    list(APPEND pc_libs -lpthread)
  elseif(TARGET ${lib})
    get_target_property(type ${lib} TYPE)
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(file ${lib} LOCATION)
    endif()
    get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
    if(deps)
      list(PREPEND pending ${deps})
    endif()
  elseif(IS_ABSOLUTE "${lib}")
    set(file ${lib})
  elseif(lib MATCHES "^-")
    list(APPEND pc_libs ${lib})
  else()
    list(APPEND pc_libs -l${lib})
  endif()
  if(file)
    get_filename_component(dir "${file}" DIRECTORY)
    if(file MATCHES "/lib([^/]+)\\.(so|a)$" AND dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
      list(APPEND pc_libs -l${CMAKE_MATCH_1})
    else()
      list(APPEND pc_libs ${file})
    endif()
  endif()
endwhile()
# Each library once, at its last place: after everything that needs it.
list(REVERSE pc_libs)
list(REMOVE_DUPLICATES pc_libs)
list(REVERSE pc_libs)
list(JOIN pc_libs " " PSNRHVS_PC_LIBS_PRIVATE)
list(REMOVE_DUPLICATES packages)

# psnrhvsConfig.cmake: the static target comes with its dependencies found.
set(PSNRHVS_STATIC_DEPENDENCIES "")
foreach(p ${packages})
  if(p STREQUAL "Threads")
    string(APPEND PSNRHVS_STATIC_DEPENDENCIES "set(THREADS_PREFER_PTHREAD_FLAG ON)\n")
    set(args Threads)
  elseif(p STREQUAL "SYCL")
    # AdaptiveCpp's runtime, installed in <libdir>/psnrhvs: the imported
    # targets the static library's link interface names.
    string(APPEND PSNRHVS_STATIC_DEPENDENCIES
      "foreach(_l rt common)\n"
      "  if(NOT TARGET psnrhvs_acpp_\${_l})\n"
      "    add_library(psnrhvs_acpp_\${_l} SHARED IMPORTED)\n"
      "    set_target_properties(psnrhvs_acpp_\${_l} PROPERTIES IMPORTED_LOCATION\n"
      "      \"\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_LIBDIR}/psnrhvs/libacpp-\${_l}.so\"\n"
      "      IMPORTED_SONAME libacpp-\${_l}.so)\n"
      "  endif()\n"
      "endforeach()\n")
    continue()
  elseif(p STREQUAL "CUDA")
    # The kernels were registered by this toolkit's runtime version or later.
    set(args CUDAToolkit ${CUDAToolkit_VERSION_MAJOR}.${CUDAToolkit_VERSION_MINOR})
  else()
    set(args ${p})
  endif()
  list(JOIN args " " args)
  string(APPEND PSNRHVS_STATIC_DEPENDENCIES "_psnrhvs_static_needs(${args})\n")
endforeach()
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
