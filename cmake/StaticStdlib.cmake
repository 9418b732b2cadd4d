# CADENCE_STATIC_STDLIB=ON (the default outside sanitizer builds): libcadence.so carries the Swift
# runtime, Dispatch and FoundationEssentials inside it (-static-stdlib, set on the target in
# Sources/CCadence) and needs only system libraries at run time: libc, libm, libstdc++, libgcc_s
# and libuv. Its RUNPATH is
# $ORIGIN alone, in the build tree and once installed, so a copy moved anywhere (a Python wheel,
# an application bundle) loads without a Swift toolchain and finds a libuv placed beside it.
# The engine imports FoundationEssentials, never Foundation, so ICU stays out: about 7 MB stripped.
if(NOT CADENCE_STATIC_STDLIB)
  return()
endif()

# The build tree gets the install RPATH too: CMake would otherwise pad a build RPATH with ':'
# for rewriting at install time, and an empty RUNPATH entry means the current directory.
set_target_properties(CCadence PROPERTIES
  INSTALL_RPATH "\$ORIGIN"
  BUILD_WITH_INSTALL_RPATH ON)

# Checks the built library's dynamic section: only system libraries needed, no toolchain path,
# the SONAME of the ABI (Tests/C checks the installed copy too: consumer.installed_library).
if(BUILD_TESTING AND CADENCE_SANITIZER STREQUAL "" AND CMAKE_READELF)
  add_test(NAME c.self_contained COMMAND "${CMAKE_COMMAND}"
    -DREADELF=${CMAKE_READELF} -DLIBRARY=$<TARGET_FILE:CCadence>
    -DSONAME=libcadence.so.${PROJECT_VERSION_MAJOR}
    -P "${PROJECT_SOURCE_DIR}/cmake/CheckSelfContained.cmake")
  set_tests_properties(c.self_contained PROPERTIES LABELS c)
endif()
