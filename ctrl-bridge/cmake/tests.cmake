# SPDX-License-Identifier: GPL-2.0-only
# Test support: a ControlBackend over the real FibManager (B's fp_table), and a harness
# that runs the server on a Unix socket in a temporary directory.
if(NOT TARGET fp_table)
  message(STATUS "ctrl-bridge: fp_table not available; server tests, bench and fuzzer skipped")
  return()
endif()

add_library(fp_ctrl_test_support STATIC tests/support/table_backend.cc)
target_include_directories(fp_ctrl_test_support PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/tests/support
  ${CMAKE_CURRENT_SOURCE_DIR}/tests)
target_link_libraries(fp_ctrl_test_support PUBLIC fp_table fp_ctrl_server fp_common Threads::Threads)

fp_add_test(fp_ctrl_codec_test SOURCES tests/codec_test.cc LIBS fp_ctrl_common LABELS unit TIMEOUT 60)
fp_add_test(fp_ctrl_translate_test SOURCES tests/translate_test.cc
  LIBS fp_ctrl_common fp_ctrl_test_support LABELS unit TIMEOUT 60)
fp_add_test(fp_ctrl_server_test SOURCES tests/server_test.cc
  LIBS fp_ctrl_client fp_ctrl_common fp_ctrl_test_support LABELS unit TIMEOUT 120)
if(TARGET fpctl)
  fp_add_test(fp_fpctl_test SOURCES tests/fpctl_test.cc
    LIBS fp_ctrl_client fp_ctrl_test_support LABELS unit TIMEOUT 120)
  target_compile_definitions(fp_fpctl_test PRIVATE FPCTL_PATH="$<TARGET_FILE:fpctl>")
  add_dependencies(fp_fpctl_test fpctl)
endif()

# Integration with the real daemon on veth (root, namespaces).
if(TARGET fastpathd AND TARGET fpctl AND TARGET fp_test_netns)
  fp_add_test(fp_fpctl_veth_test SOURCES tests/fpctl_veth_test.cc
    LIBS fp_ctrl_client fp_test_netns LABELS "privileged;netns" TIMEOUT 180)
  target_include_directories(fp_fpctl_veth_test PRIVATE ${CMAKE_SOURCE_DIR}/fastpath/tests)
  target_compile_definitions(fp_fpctl_veth_test PRIVATE FPCTL_PATH="$<TARGET_FILE:fpctl>"
                             FASTPATHD_PATH="$<TARGET_FILE:fastpathd>")
  add_dependencies(fp_fpctl_veth_test fpctl fastpathd)
endif()
