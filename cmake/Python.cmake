# The Python wheel (scikit-build-core, which sets SKBUILD and installs into the wheel): only
# libcadence.so, into the package directory cadence/, where cadence._lib looks first. No headers,
# pkg-config or CMake files.
if(NOT CADENCE_STATIC_STDLIB)
  message(WARNING "Building the Python wheel without CADENCE_STATIC_STDLIB: the installed package "
    "will need this Swift toolchain at run time")
endif()

# One file named libcadence.so (a wheel cannot hold the libcadence.so -> .so.0 -> .so.0.2.0
# symlinks; it would store three copies). ctypes loads it by path, so its SONAME matters to nobody.
set_property(TARGET CCadence PROPERTY VERSION)
set_property(TARGET CCadence PROPERTY SOVERSION)
install(TARGETS CCadence LIBRARY DESTINATION cadence COMPONENT python)
