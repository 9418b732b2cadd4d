# CADENCE_SANITIZER=address|thread builds everything, Swift and C, under that sanitizer (with the
# toolchain's clang as the C compiler and lld as the linker: see `make sanitize`). Only the tests
# that make sense under it are registered (Tests/C/CMakeLists.txt); valgrind is not used then.
set(CADENCE_SANITIZER "" CACHE STRING "Build under a sanitizer: address or thread (empty: none)")
set_property(CACHE CADENCE_SANITIZER PROPERTY STRINGS "" address thread)

if(CADENCE_SANITIZER STREQUAL "")
  return()
elseif(NOT CADENCE_SANITIZER MATCHES "^(address|thread)$")
  message(FATAL_ERROR "CADENCE_SANITIZER must be address or thread, not '${CADENCE_SANITIZER}'")
endif()
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "CADENCE_SANITIZER needs the Swift toolchain's clang: -DCMAKE_C_COMPILER=<toolchain>/clang")
endif()

add_compile_options(
  "$<$<COMPILE_LANGUAGE:Swift>:-sanitize=${CADENCE_SANITIZER}>"
  "$<$<COMPILE_LANGUAGE:C>:-fsanitize=${CADENCE_SANITIZER};-fno-omit-frame-pointer>")
add_link_options("$<$<LINK_LANGUAGE:C>:-fuse-ld=lld;-fsanitize=${CADENCE_SANITIZER}>")
if(CADENCE_SANITIZER STREQUAL "thread")
  # The toolchain's ThreadSanitizer runtime intercepts libdispatch, so C programs link it too.
  add_link_options("$<$<LINK_LANGUAGE:C>:SHELL:-L${CADENCE_SWIFT_RUNTIME_DIR} -Wl,-rpath,${CADENCE_SWIFT_RUNTIME_DIR} -ldispatch -lBlocksRuntime>")
endif()
