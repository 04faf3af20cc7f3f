# SPDX-License-Identifier: GPL-2.0-only
# The server fastpathd embeds (fastpathd links it with `if(TARGET fp_ctrl_server)`).
add_library(fp_ctrl_server STATIC src/server.cc)
target_include_directories(fp_ctrl_server PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(fp_ctrl_server PUBLIC fp_common PRIVATE fp_ctrl_common fp_log)
set_target_properties(fp_ctrl_server PROPERTIES POSITION_INDEPENDENT_CODE ON)
