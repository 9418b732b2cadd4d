# The Python wheel (scikit-build-core, which sets SKBUILD and installs into the wheel): only
# libcadence.so, into the package directory cadence/, where cadence._lib looks first. No headers,
# pkg-config or CMake files.
if(NOT CADENCE_STATIC_STDLIB)
  message(WARNING "Building the Python wheel without CADENCE_STATIC_STDLIB: the installed package "
    "will need this Swift toolchain at run time")
endif()

# One file named libcadence.so (a wheel cannot hold the libcadence.so -> .so.0 -> .so.0.4.0
# symlinks; it would store three copies), with the SONAME of the C install, libcadence.so.N for
# major version N: one library, one name for the ABI it offers, however it was installed.
set_target_properties(CCadence PROPERTIES VERSION "" SOVERSION "" NO_SONAME ON)
target_link_options(CCadence PRIVATE
  "SHELL:-Xlinker -soname -Xlinker libcadence.so.${PROJECT_VERSION_MAJOR}")
install(TARGETS CCadence LIBRARY DESTINATION cadence COMPONENT python)
