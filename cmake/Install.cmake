# Installs libcadence, its headers, a pkg-config file and a CMake package, so C programs can use
# `pkg-config --cflags --libs cadence` or `find_package(Cadence)` + `Cadence::cadence`, and the
# license (Apache-2.0) as <prefix>/share/doc/cadence/LICENSE.
include(CMakePackageConfigHelpers)

# The SPDX identifier of Cadence's license, for the pkg-config file and the CMake package.
set(CADENCE_LICENSE "Apache-2.0")

set(CADENCE_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/Cadence")

install(TARGETS CCadence EXPORT CadenceTargets LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(FILES include/cadence.h DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(FILES include/cadence/version.h include/cadence/uv.h DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/cadence")
install(FILES LICENSE DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/cadence")

# pkg-config: paths relative to the .pc file's own folder, so the install can be moved or made
# with `cmake --install --prefix` into any prefix.
file(RELATIVE_PATH CADENCE_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" CADENCE_PC_TO_PREFIX "${CADENCE_PC_TO_PREFIX}")
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(CADENCE_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(CADENCE_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
configure_file(cmake/cadence.pc.in "${PROJECT_BINARY_DIR}/cadence.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/cadence.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# CMake package: find_package(Cadence) gives the imported target Cadence::cadence.
install(EXPORT CadenceTargets NAMESPACE Cadence:: DESTINATION "${CADENCE_CMAKE_DIR}")
configure_package_config_file(cmake/CadenceConfig.cmake.in
  "${PROJECT_BINARY_DIR}/CadenceConfig.cmake" INSTALL_DESTINATION "${CADENCE_CMAKE_DIR}")
# Same major version = same ABI (docs/c-api.md, "ABI policy").
write_basic_package_version_file("${PROJECT_BINARY_DIR}/CadenceConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/CadenceConfig.cmake" "${PROJECT_BINARY_DIR}/CadenceConfigVersion.cmake"
  DESTINATION "${CADENCE_CMAKE_DIR}")
