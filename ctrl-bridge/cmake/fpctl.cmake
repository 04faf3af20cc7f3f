# SPDX-License-Identifier: GPL-2.0-only
add_executable(fpctl src/fpctl/main.cc src/fpctl/json.cc src/fpctl/route_spec.cc)
target_include_directories(fpctl PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/fpctl)
target_link_libraries(fpctl PRIVATE fp_ctrl_client fp_common fp_log)
install(TARGETS fpctl RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR})
