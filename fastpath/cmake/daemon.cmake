# SPDX-License-Identifier: GPL-2.0-only
# fastpathd: configuration, workers, control-frame channel, the daemon and its binary.
add_library(fp_config STATIC src/config.cc)
target_include_directories(fp_config PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(fp_config PUBLIC fp_common fp_xsk)

fp_add_test(config_parse_test
  SOURCES tests/config_parse_test.cc
  LIBS fp_config
  TIMEOUT 60)

# The worker's punt limiter (header-only), with a deterministic clock.
fp_add_test(worker_token_bucket_test
  SOURCES tests/worker_token_bucket_test.cc
  LIBS fp_common
  LABELS unit
  TIMEOUT 30)

# The kernel NAPI threads of the daemon's ports (netdev netlink, thread-name fallback),
# used by fp_daemon's --rt-priority auto.
add_library(fp_napi_threads STATIC src/napi_netlink.cc src/napi_threads.cc)
target_link_libraries(fp_napi_threads PUBLIC fp_common)
fp_add_test(napi_threads_test
  SOURCES tests/napi_threads_test.cc
  LIBS fp_napi_threads fp_test_netns $<TARGET_NAME_IF_EXISTS:fp_daemon>
  LABELS "privileged;netns"
  TIMEOUT 60)
target_include_directories(napi_threads_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)

# The daemon class and binary need the table (fp_table), the classifier loader (fp_loader)
# and the workers (fp_worker). The ctrl-bridge server is optional: ctrl-bridge/ is
# configured after fastpath/, so it is detected at generate time.
if(TARGET fp_worker AND TARGET fp_loader)
  add_library(fp_daemon STATIC src/daemon.cc src/daemon_ports.cc)
  target_include_directories(fp_daemon PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(fp_daemon PUBLIC fp_config fp_worker fp_loader fp_napi_threads
                        $<TARGET_NAME_IF_EXISTS:fp_ctrl_server>)
  target_compile_definitions(napi_threads_test PRIVATE FP_HAVE_DAEMON)
  target_compile_definitions(fp_daemon PRIVATE
                             $<$<TARGET_EXISTS:fp_ctrl_server>:FP_HAVE_CTRL_SERVER>)

  add_executable(fastpathd src/fastpathd_main.cc)
  target_link_libraries(fastpathd PRIVATE fp_daemon)
  install(TARGETS fastpathd RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR})
endif()

if(TARGET fastpathd)
  fp_add_test(forwarding_veth_test
    SOURCES tests/forwarding_veth_test.cc
    LIBS fp_daemon fp_test_netns
    LABELS "privileged;netns"
    TIMEOUT 180)
  target_compile_definitions(forwarding_veth_test PRIVATE
                             FASTPATHD_PATH="$<TARGET_FILE:fastpathd>")
  add_dependencies(forwarding_veth_test fastpathd)

  fp_add_test(forwarding_punt_limit_veth_test
    SOURCES tests/forwarding_punt_limit_veth_test.cc
    LIBS fp_daemon fp_test_netns
    LABELS "privileged;netns"
    TIMEOUT 120)
endif()

if(TARGET fp_worker AND TARGET fp_loader)
  fp_add_test(worker_veth_test
    SOURCES tests/worker_veth_test.cc
    LIBS fp_worker fp_loader fp_test_netns
    LABELS "privileged;netns"
    TIMEOUT 60)
endif()
