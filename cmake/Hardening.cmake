# Sanitizer and fuzzing builds (docs/testing.md). Both are meant for build directories
# of their own: `make test` configures build-asan with TOUCHSTONE_SANITIZE=address,undefined
# and build-fuzz with clang-14 and TOUCHSTONE_FUZZ=ON; the default build has neither.
set(TOUCHSTONE_SANITIZE "" CACHE STRING
    "Sanitizers for every target, as -fsanitize= takes them (address,undefined); empty for none")
option(TOUCHSTONE_FUZZ "Build the libFuzzer harnesses of tests/fuzz (clang only; implies address,undefined)" OFF)

if(TOUCHSTONE_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "TOUCHSTONE_FUZZ needs clang's libFuzzer: configure a build directory of its own with "
                        "-DCMAKE_C_COMPILER=clang-14 (make fuzz does)")
  endif()
  if(NOT TOUCHSTONE_SANITIZE)
    set(TOUCHSTONE_SANITIZE address,undefined)
  endif()
  # Coverage feedback from every library the harnesses reach; the harnesses themselves link
  # -fsanitize=fuzzer (tests/fuzz/CMakeLists.txt). Without the stack's depth as a feature: ASLR
  # shifts the stack by 16 bytes at a time, functions that align their frames to 32 make its
  # depth differ by as much, and the same commit explored differently (tests/fuzz/run_fuzz.sh).
  add_compile_options(-fsanitize=fuzzer-no-link -fno-sanitize-coverage=stack-depth)
endif()

if(TOUCHSTONE_SANITIZE)
  # Stacks through every frame, and the first error ends the process: a sanitizer report
  # is a test failure, never a warning scrolled past.
  add_compile_options(-fsanitize=${TOUCHSTONE_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${TOUCHSTONE_SANITIZE})
endif()

# A test tool that runs no code of ours (h5_get: the HDF5 C API alone) is built without the
# sanitizers: they would find nothing there, and an ASan process with its leak check at exit
# takes ~3,000 more page faults than a plain one (0.14 s of CPU against 0.06 for one h5_get read
# on this VM), for every value a shell test reads back.
function(ts_without_sanitizers target)
  if(TOUCHSTONE_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=all)
    target_link_options(${target} PRIVATE -fno-sanitize=all)
  endif()
endfunction()
