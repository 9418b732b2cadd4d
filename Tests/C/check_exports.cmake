# Checks that libcadence exports exactly the functions that its headers (cadence.h and those in
# cadence/) declare with CADENCE_EXPORT (curl's habit: the headers and the shared library must agree).
# Usage: cmake -DNM=nm -DLIBRARY=libcadence.so -DINCLUDE_DIR=include -P check_exports.cmake
file(GLOB_RECURSE headers "${INCLUDE_DIR}/*.h")
set(header "")
foreach(path IN LISTS headers)
  file(READ "${path}" text)
  string(APPEND header "${text}")
endforeach()
string(REGEX MATCHALL "CADENCE_EXPORT[^;(]*[ *](cadence_[a-z_]+)\\(" declarations "${header}")
set(declared "")
foreach(declaration IN LISTS declarations)
  string(REGEX REPLACE ".*[ *](cadence_[a-z_]+)\\($" "\\1" name "${declaration}")
  list(APPEND declared "${name}")
endforeach()

execute_process(COMMAND "${NM}" -D --defined-only --extern-only "${LIBRARY}"
  OUTPUT_VARIABLE symbols COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCHALL "[^\n]+" lines "${symbols}")
set(exported "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^.* " "" name "${line}")
  list(APPEND exported "${name}")
endforeach()

list(SORT declared)
list(SORT exported)
list(LENGTH declared count)
if(count EQUAL 0 OR NOT declared STREQUAL exported)
  message(FATAL_ERROR "exports differ from the headers\n  declared: ${declared}\n  exported: ${exported}")
endif()
message(STATUS "libcadence exports the ${count} functions of its headers and nothing else")
