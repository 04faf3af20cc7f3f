# SPDX-License-Identifier: GPL-2.0-only
# libFuzzer targets of the operator surfaces, built and run as fp_ctrl_fuzz is (fuzz.cmake:
# one clang++ command with ASan/UBSan over instrumented copies of the sources, a bounded
# campaign in ctest label fuzz, new inputs in a scratch directory):
#   fp_topology_fuzz           topology files (YAML/JSON) -> parseTopologyText, with a
#                              dictionary of the file's keys
#   fp_link_params_fuzz        the words of `fpctl link set` -> applyLinkParamWords
#   fp_topology_requests_fuzz  node/link/segment/host/attach requests -> dispatcher ->
#                              HostsBackend (root or operator)
# Included by fuzz.cmake after its checks (clang++, libFuzzer runtime).

# fp_operator_fuzz(NAME SOURCE src LIBS targets... [LINK flags...] [PROTO] RUNS n
#                  MAX_LEN n [DICT file] TIMEOUT s)
function(fp_operator_fuzz name)
  cmake_parse_arguments(F "PROTO" "SOURCE;RUNS;MAX_LEN;DICT;TIMEOUT" "LIBS;LINK" ${ARGN})
  set(srcs ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${F_SOURCE})
  set(incs)
  foreach(lib ${F_LIBS})
    get_target_property(_dir ${lib} SOURCE_DIR)
    get_target_property(_srcs ${lib} SOURCES)
    foreach(s ${_srcs})
      if(IS_ABSOLUTE ${s})
        list(APPEND srcs ${s})
      else()
        list(APPEND srcs ${_dir}/${s})
      endif()
    endforeach()
    list(APPEND incs
         "-I$<JOIN:$<TARGET_PROPERTY:${lib},INTERFACE_INCLUDE_DIRECTORIES>,$<SEMICOLON>-I>")
  endforeach()
  get_target_property(_proto_dir fp_proto BINARY_DIR)
  if(F_PROTO)  # the request schema, compiled with the rest
    list(APPEND srcs ${_proto_dir}/gen/fastpath/v1/fastpath.pb.cc)
  endif()
  set(bin ${CMAKE_CURRENT_BINARY_DIR}/fuzz/${name})
  add_custom_command(
    OUTPUT ${bin}
    COMMAND ${FP_CLANGXX} -std=c++20 -O1 -g -fno-omit-frame-pointer
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
            -I${CMAKE_CURRENT_SOURCE_DIR}/include -I${CMAKE_CURRENT_SOURCE_DIR}/src
            -I${CMAKE_CURRENT_SOURCE_DIR}/tests/support ${incs} -I${_proto_dir}/gen
            ${srcs} -o ${bin} ${F_LINK} -lpthread
    DEPENDS ${srcs} ${F_LIBS} fp_proto
    COMMENT "clang++ -fsanitize=fuzzer,address,undefined -> ${name}"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${bin})
  set(dict_arg)
  if(F_DICT)
    set(dict_arg -DDICT=${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${F_DICT})
  endif()
  add_test(NAME ${name}_run
    COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
            ${CMAKE_COMMAND} -DFUZZER=${bin} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/${name}-work
            -DCORPUS=${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus-${name}
            -DRUNS=${F_RUNS} -DMAX_LEN=${F_MAX_LEN} ${dict_arg}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run_bounded.cmake)
  set_tests_properties(${name}_run PROPERTIES LABELS fuzz TIMEOUT ${F_TIMEOUT})
endfunction()

# Runs per CI campaign and wall time under ctest (two processes, the 2-CPU development VM
# with other builds running): fp_topology_fuzz 250k (~50 s; 1M took 198 s at ~2,500
# exec/s: yaml-cpp builds a node tree per input), fp_link_params_fuzz 1M (18 s),
# fp_topology_requests_fuzz 600k (~55 s; 1M took 92 s at ~5,500 exec/s).
fp_operator_fuzz(fp_topology_fuzz SOURCE topology_fuzz.cc
  LIBS fp_config fp_attach_policy fp_common LINK -lyaml-cpp
  RUNS 250000 MAX_LEN 4096 DICT topology.dict TIMEOUT 600)
fp_operator_fuzz(fp_link_params_fuzz SOURCE link_params_fuzz.cc
  LIBS fp_common
  RUNS 1000000 MAX_LEN 512 DICT link_params.dict TIMEOUT 600)
fp_operator_fuzz(fp_topology_requests_fuzz SOURCE topology_requests_fuzz.cc
  LIBS fp_ctrl_common fp_ctrl_test_support fp_attach_policy fp_table fp_common
  LINK -lprotobuf PROTO
  RUNS 600000 MAX_LEN 4096 TIMEOUT 600)
