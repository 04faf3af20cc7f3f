# SPDX-License-Identifier: GPL-2.0-only
# libFuzzer target fp_ctrl_fuzz: decode + validate + apply against real FibManagers (nodes).
# The project builds with g++, libFuzzer needs clang: the fuzzer is compiled by one
# clang++ command (sanitizer-instrumented copies of the sources it covers), so it needs
# no second build tree. ctest runs a bounded campaign (label fuzz): 1M executions.
# -DFP_FUZZ=OFF leaves it out on purpose; otherwise a missing clang++ or libFuzzer runtime
# fails the configure (scripts/install-deps.sh installs both).
option(FP_FUZZ "Build the ctrl-bridge libFuzzer target with clang++" ON)
if(NOT FP_FUZZ)
  message(STATUS "ctrl-bridge: FP_FUZZ=OFF, fp_ctrl_fuzz not built")
  return()
endif()
find_program(FP_CLANGXX NAMES clang++-14 clang++)
if(NOT FP_CLANGXX)
  message(FATAL_ERROR "ctrl-bridge: clang++ not found, needed for fp_ctrl_fuzz "
    "(run scripts/install-deps.sh, or configure with -DFP_FUZZ=OFF)")
endif()
# The libFuzzer runtime comes from libclang-rt-*-dev: probe once before relying on it.
if(NOT DEFINED FP_CLANG_HAS_LIBFUZZER)
  set(_probe ${CMAKE_CURRENT_BINARY_DIR}/fuzz-probe)
  file(WRITE ${_probe}.cc "#include <cstddef>\n#include <cstdint>\nextern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n")
  execute_process(COMMAND ${FP_CLANGXX} -fsanitize=fuzzer,address ${_probe}.cc -o ${_probe}
                  RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
  if(_rc EQUAL 0)
    set(FP_CLANG_HAS_LIBFUZZER ON CACHE INTERNAL "")
  else()
    set(FP_CLANG_HAS_LIBFUZZER OFF CACHE INTERNAL "")
  endif()
endif()
if(NOT FP_CLANG_HAS_LIBFUZZER)
  message(FATAL_ERROR "ctrl-bridge: ${FP_CLANGXX} cannot link -fsanitize=fuzzer "
    "(install libclang-rt-14-dev, or configure with -DFP_FUZZ=OFF)")
endif()

# Sources: the harness, ctrl-bridge's decode/validate/dispatch (fp_ctrl_common), the test
# backends (fp_ctrl_test_support) and the table (fp_table, fp_common), plus the schema.
# Every source is taken from its library's target, so a file added to one of them is
# compiled here too.
set(_fuzz_srcs ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/control_fuzz.cc)
foreach(lib fp_ctrl_common fp_ctrl_test_support fp_attach_policy fp_table fp_common)
  get_target_property(_dir ${lib} SOURCE_DIR)
  get_target_property(_srcs ${lib} SOURCES)
  foreach(s ${_srcs})
    if(IS_ABSOLUTE ${s})
      list(APPEND _fuzz_srcs ${s})
    else()
      list(APPEND _fuzz_srcs ${_dir}/${s})
    endif()
  endforeach()
endforeach()
get_target_property(_proto_dir fp_proto BINARY_DIR)
list(APPEND _fuzz_srcs ${_proto_dir}/gen/fastpath/v1/fastpath.pb.cc)

set(_fuzz_bin ${CMAKE_CURRENT_BINARY_DIR}/fuzz/fp_ctrl_fuzz)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz)
add_custom_command(
  OUTPUT ${_fuzz_bin}
  COMMAND ${FP_CLANGXX} -std=c++20 -O1 -g -fno-omit-frame-pointer
          -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
          -I${CMAKE_CURRENT_SOURCE_DIR}/include -I${CMAKE_CURRENT_SOURCE_DIR}/src
          -I${CMAKE_CURRENT_SOURCE_DIR}/tests/support
          "-I$<JOIN:$<TARGET_PROPERTY:fp_table,INTERFACE_INCLUDE_DIRECTORIES>,;-I>"
          "-I$<JOIN:$<TARGET_PROPERTY:fp_attach_policy,INTERFACE_INCLUDE_DIRECTORIES>,;-I>"
          "-I$<JOIN:$<TARGET_PROPERTY:fp_common,INTERFACE_INCLUDE_DIRECTORIES>,;-I>"
          "-I$<JOIN:$<TARGET_PROPERTY:fp_classifier_abi,INTERFACE_INCLUDE_DIRECTORIES>,;-I>"
          "-I$<JOIN:$<TARGET_PROPERTY:fp_table_testing,INTERFACE_INCLUDE_DIRECTORIES>,;-I>"
          -I${_proto_dir}/gen
          ${_fuzz_srcs} -o ${_fuzz_bin}
          -lprotobuf -lpthread
  DEPENDS ${_fuzz_srcs} fp_proto
  COMMENT "clang++ -fsanitize=fuzzer,address,undefined -> fp_ctrl_fuzz"
  COMMAND_EXPAND_LISTS
  VERBATIM)
add_custom_target(fp_ctrl_fuzz ALL DEPENDS ${_fuzz_bin})

# Bounded campaign: new inputs go to a scratch directory, the seeds stay untouched.
add_test(NAME fp_ctrl_fuzz_1m
  COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
          ${CMAKE_COMMAND} -DFUZZER=${_fuzz_bin} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/fuzz-work
          -DCORPUS=${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus -DRUNS=1000000
          -P ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run_bounded.cmake)
# ~70 s on two idle cores (~140 CPU-s); the timeout leaves room for a loaded machine.
set_tests_properties(fp_ctrl_fuzz_1m PROPERTIES LABELS fuzz TIMEOUT 600)
include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz/operator_fuzz.cmake)
