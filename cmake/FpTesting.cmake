# SPDX-License-Identifier: GPL-2.0-only
include(GoogleTest)

# fp_add_test(<name> SOURCES ... LIBS ... [LABELS ...] [TIMEOUT s])
# One GoogleTest executable, discovered test by test. Label `privileged` for tests that
# need root (netns, XDP attach); `netns` for tests that build veth topologies.
function(fp_add_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  gtest_discover_tests(${name}
    DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}")
  # gtest_discover_tests splits a list-valued property (LABELS "a;b" arrives as LABELS a b,
  # so only the first label sticks). Re-apply the whole label list after discovery.
  list(LENGTH T_LABELS n_labels)
  if(n_labels GREATER 1)
    set(labels_script ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
    file(WRITE ${labels_script}
      "file(GLOB _files [==[${CMAKE_CURRENT_BINARY_DIR}/${name}[[]*[]]_tests.cmake]==])\n"
      "foreach(_f IN LISTS _files)\n"
      "  file(STRINGS \"\${_f}\" _lines REGEX \"^add_test\")\n"
      "  foreach(_l IN LISTS _lines)\n"
      "    if(_l MATCHES \"^add_test\\\\(\\\\[=\\\\[([^]]+)\\\\]=\\\\]\")\n"
      "      set_tests_properties(\"\${CMAKE_MATCH_1}\" PROPERTIES LABELS [==[${T_LABELS}]==])\n"
      "    endif()\n"
      "  endforeach()\n"
      "endforeach()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${labels_script})
  endif()
endfunction()
