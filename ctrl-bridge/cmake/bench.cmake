# SPDX-License-Identifier: GPL-2.0-only
# Benchmarks (not ctest): fp_ctrl_bench, route updates through client + server + table.
if(NOT TARGET fp_ctrl_test_support)
  return()
endif()
add_executable(fp_ctrl_bench bench/ctrl_bench.cc)
target_link_libraries(fp_ctrl_bench PRIVATE fp_ctrl_client fp_ctrl_test_support benchmark::benchmark)
