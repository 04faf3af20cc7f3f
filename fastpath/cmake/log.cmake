add_library(fp_log STATIC src/log.cc)
target_include_directories(fp_log PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(fp_log PUBLIC PkgConfig::LIBBPF PkgConfig::LIBXDP)
set_target_properties(fp_log PROPERTIES POSITION_INDEPENDENT_CODE ON)
