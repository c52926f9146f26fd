# `cmake --install BUILD --prefix PREFIX` puts under PREFIX:
#   bin/berth                          the command-line tool
#   lib/libberth_runtime.a             the runtime (no heap, no stdio): link it to run .berth files
#   lib/libberth.so                    compiler + runtime (berth/compiler.h, berth/runtime.h)
#   include/berth/*.h                  the public headers (but testing.h and outfile.h: the tests',
#                                      fuzzers' and tool's)
#   lib/pkgconfig/berth.pc             pkg-config: compiler + runtime (shared)
#   lib/pkgconfig/berth-runtime.pc     pkg-config: the runtime alone (static, -lm)
#   lib/cmake/berth/                   find_package(berth): berth::runtime, berth::berth, berth::cli,
#                                      berth_add_runtime() and berth_link_small()
#   share/berth/runtime/               the runtime's sources, for berth_add_runtime's cut-down builds
install(TARGETS berth berth_runtime berth_shared EXPORT berthTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# berth/testing.h and berth/outfile.h are left out: their functions are in libberth_testing.a,
# which is not installed
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/berth DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  PATTERN testing.h EXCLUDE PATTERN outfile.h EXCLUDE)
set_target_properties(berth PROPERTIES EXPORT_NAME cli)
set_target_properties(berth_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(berth_shared PROPERTIES EXPORT_NAME berth)
install(EXPORT berthTargets NAMESPACE berth:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/berth)

# The runtime's sources and headers (what berth_runtime_sources() globs, and the headers they
# include), so that an installed berth can build small runtimes.
set(_berth_rt ${CMAKE_INSTALL_DATADIR}/berth/runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include DESTINATION ${_berth_rt} PATTERN testing.h EXCLUDE
  PATTERN outfile.h EXCLUDE)
foreach(dir ${BERTH_RUNTIME_FOLDERS})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/${dir} DESTINATION ${_berth_rt}/src FILES_MATCHING PATTERN "*.[ch]")
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/cmake/berth_runtime.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/berth)

include(CMakePackageConfigHelpers)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/berthConfig.cmake.in
  ${PROJECT_BINARY_DIR}/berthConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/berth
  PATH_VARS _berth_rt)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/berthConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/berthConfig.cmake ${PROJECT_BINARY_DIR}/berthConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/berth)

file(RELATIVE_PATH BERTH_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
foreach(pc berth berth-runtime)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
