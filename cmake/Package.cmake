# cpack: the C install (cmake/Install.cmake) as a Debian package under /usr, for `make dist`
# (scripts/dist.sh). The binary tarball is made by that script from a staged install, with a
# README and the license at its top.
set(CPACK_PACKAGE_NAME cadence)
set(CPACK_PACKAGE_VENDOR "Cadence")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Foundation- and Combine-style timers on a libuv event loop (C library)")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Cadence maintainers")
# A shlibs file and the ldconfig trigger, as a Debian library package has.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# The Swift runtime is inside libcadence (CADENCE_STATIC_STDLIB): only the C and C++ runtimes
# and libuv, at least the version it was built against (major.minor, as Debian numbers it).
string(REGEX MATCH "^[0-9]+\\.[0-9]+" _cadence_libuv "${LIBUV_VERSION}")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libstdc++6, libgcc-s1, libuv1 (>= ${_cadence_libuv})")
include(CPack)
