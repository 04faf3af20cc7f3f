# SPDX-License-Identifier: GPL-2.0-only
# Forwarding table: LPM (IPv4 DIR-24-8, IPv6 multibit trie), epochs (QSBR), FIB
# (next hops, neighbours, ports) and the per-packet forwarding decision.
add_library(fp_table STATIC
  src/lpm4_dir24_8.cc
  src/lpm4_dxr.cc
  src/lpm6_trie.cc
  src/lpm_memory.cc
  src/epoch.cc
  src/fib_manager.cc
  src/forward.cc)
target_include_directories(fp_table PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/bpf)
target_link_libraries(fp_table PUBLIC fp_common fp_log Threads::Threads)
set_target_properties(fp_table PROPERTIES POSITION_INDEPENDENT_CODE ON)

fp_add_test(fp_lpm_test SOURCES tests/lpm_test.cc LIBS fp_table LABELS unit TIMEOUT 120)
fp_add_test(fp_epoch_test SOURCES tests/epoch_test.cc LIBS fp_table LABELS unit TIMEOUT 60)
fp_add_test(fp_fib_test SOURCES tests/fib_test.cc LIBS fp_table LABELS unit TIMEOUT 120)
fp_add_test(fp_forward_test SOURCES tests/forward_test.cc tests/checksum_test.cc
  LIBS fp_table LABELS unit TIMEOUT 60)

# Benchmarks (not ctest): run by hand, see the report in docs.
add_executable(fp_lpm_bench bench/lpm_bench.cc)
target_link_libraries(fp_lpm_bench PRIVATE fp_table benchmark::benchmark)
add_executable(fp_forward_bench bench/forward_bench.cc)
target_link_libraries(fp_forward_bench PRIVATE fp_table benchmark::benchmark)
