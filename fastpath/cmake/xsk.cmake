# SPDX-License-Identifier: GPL-2.0-only
# AF_XDP layer: UMEM shared by the sockets of a worker, one socket per (port, queue).
add_library(fp_xsk STATIC src/umem.cc src/xsk_port.cc)
target_include_directories(fp_xsk PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(fp_xsk PUBLIC fp_common fp_log PkgConfig::LIBXDP PkgConfig::LIBBPF)

fp_add_test(xsk_frame_pool_test
  SOURCES tests/xsk_frame_pool_test.cc
  LIBS fp_xsk
  TIMEOUT 60)

# Forwarding workers and the control-frame channel (need the table: fp_table).
if(TARGET fp_table)
  add_library(fp_worker STATIC src/worker.cc src/control_channel.cc)
  target_include_directories(fp_worker PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(fp_worker PUBLIC fp_xsk fp_table Threads::Threads)
endif()

if(TARGET fp_worker)
  fp_add_test(control_channel_test
    SOURCES tests/control_channel_test.cc
    LIBS fp_worker
    LABELS unit
    TIMEOUT 30)
endif()
