# SPDX-License-Identifier: GPL-2.0-only
# AF_XDP layer: UMEM shared by the sockets of a worker, one socket per (port, queue).
add_library(fp_xsk STATIC src/umem.cc src/xsk_port.cc)
target_include_directories(fp_xsk PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(fp_xsk PUBLIC fp_common fp_log PkgConfig::LIBXDP PkgConfig::LIBBPF)

fp_add_test(xsk_frame_pool_test
  SOURCES tests/xsk_frame_pool_test.cc
  LIBS fp_xsk
  TIMEOUT 60)
