# Swift flags shared by every Swift target, and where the toolchain keeps the Swift runtime.

# Same settings as Package.swift: one package (the sources use `package` access), Swift 6 mode.
add_compile_options(
  "$<$<COMPILE_LANGUAGE:Swift>:SHELL:-package-name cadence>"
  "$<$<COMPILE_LANGUAGE:Swift>:SHELL:-swift-version 6>")
# Whole-module optimization outside Debug builds, as `swift build -c release` does: without it the
# generic timer heap is not specialized and every operation pays for run-time generics.
add_compile_options("$<$<AND:$<COMPILE_LANGUAGE:Swift>,$<NOT:$<CONFIG:Debug>>>:-wmo>")
# A parent project that sets no build type (Cadence alone defaults to Release) still gets the
# engine optimized, -O as in Release, in Cadence's directories only.
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  add_compile_options("$<$<COMPILE_LANGUAGE:Swift>:-O>")
endif()
if(CADENCE_WARNINGS_AS_ERRORS)
  add_compile_options("$<$<COMPILE_LANGUAGE:Swift>:-warnings-as-errors>")
endif()

# The directory holding libswiftCore.so for this swiftc, asked from the compiler itself so that it
# is right for any toolchain location. libcadence.so gets it as RPATH (unless the runtime is linked
# statically), so ctypes and C programs can load the library without LD_LIBRARY_PATH.
execute_process(
  COMMAND "${CMAKE_Swift_COMPILER}" -print-target-info
  OUTPUT_VARIABLE _cadence_target_info
  RESULT_VARIABLE _cadence_result)
if(NOT _cadence_result EQUAL 0)
  message(FATAL_ERROR "${CMAKE_Swift_COMPILER} -print-target-info failed")
endif()
string(JSON CADENCE_SWIFT_RUNTIME_DIR GET "${_cadence_target_info}" paths runtimeLibraryPaths 0)
message(STATUS "Swift runtime: ${CADENCE_SWIFT_RUNTIME_DIR}")

# Fails the configure step when a Swift file in the target's folder is missing from its source list
# (Package.swift picks up every file by itself; this build would otherwise miss it silently).
function(cadence_check_listed_sources target)
  get_target_property(listed ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  list(TRANSFORM listed PREPEND "${dir}/")
  file(GLOB_RECURSE present CONFIGURE_DEPENDS "${dir}/*.swift")
  foreach(file IN LISTS present)
    if(NOT file IN_LIST listed)
      file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${file}")
      message(FATAL_ERROR "${rel} is not listed in ${dir}/CMakeLists.txt; add it there.")
    endif()
  endforeach()
endfunction()
