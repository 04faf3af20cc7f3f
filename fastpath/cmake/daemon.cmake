# SPDX-License-Identifier: GPL-2.0-only
# fastpathd: configuration, workers, control-frame channel, the daemon and its binary.
add_library(fp_config STATIC src/config.cc)
target_include_directories(fp_config PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(fp_config PUBLIC fp_common fp_xsk)

fp_add_test(config_parse_test
  SOURCES tests/config_parse_test.cc
  LIBS fp_config
  TIMEOUT 60)
