# Checks that a libcadence built with CADENCE_STATIC_STDLIB=ON needs only system libraries (no
# libswift*.so, libdispatch or libFoundation*) and has no RPATH/RUNPATH but $ORIGIN (nothing
# pointing into a Swift toolchain), and that its SONAME is SONAME.
# Usage: cmake -DREADELF=readelf -DLIBRARY=libcadence.so -DSONAME=libcadence.so.0
#          -P CheckSelfContained.cmake
cmake_minimum_required(VERSION 3.25)
set(_system_libraries libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1 ld-linux-x86-64.so.2
  ld-linux-aarch64.so.1 libpthread.so.0 libdl.so.2 librt.so.1 libuv.so.1)

execute_process(COMMAND "${READELF}" -d "${LIBRARY}"
  OUTPUT_VARIABLE dynamic COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[([^]]+)\\]" needed_lines "${dynamic}")
set(problems "")
foreach(line IN LISTS needed_lines)
  string(REGEX REPLACE ".*\\[([^]]+)\\]$" "\\1" name "${line}")
  if(NOT name IN_LIST _system_libraries)
    list(APPEND problems "needs ${name}")
  endif()
endforeach()
string(REGEX MATCHALL "\\((RPATH|RUNPATH)\\)[^\n]*\\[([^]]*)\\]" path_lines "${dynamic}")
foreach(line IN LISTS path_lines)
  string(REGEX REPLACE ".*\\[([^]]*)\\]$" "\\1" path "${line}")
  if(NOT path STREQUAL "$ORIGIN")
    list(APPEND problems "search path ${path}")
  endif()
endforeach()
if(NOT dynamic MATCHES "\\(SONAME\\)[^\n]*\\[([^]]*)\\]")
  list(APPEND problems "no SONAME (want ${SONAME})")
elseif(NOT CMAKE_MATCH_1 STREQUAL SONAME)
  list(APPEND problems "SONAME ${CMAKE_MATCH_1} (want ${SONAME})")
endif()
if(problems)
  message(FATAL_ERROR "${LIBRARY}: ${problems}\n${dynamic}")
endif()
message(STATUS "${LIBRARY} needs only system libraries, RUNPATH \$ORIGIN, SONAME ${SONAME}")
