# SPDX-License-Identifier: GPL-2.0-only
# The XDP classifier's loader (fp_loader), its tests and its microbenchmark.
add_library(fp_loader STATIC
  src/classifier.cc
  src/classifier_maps.cc
  src/classifier_names.cc
  src/classifier_owner.cc)
target_include_directories(fp_loader PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(fp_loader PUBLIC fp_common fp_log fp_classify_skel PkgConfig::LIBXDP
                      PkgConfig::LIBBPF)
set_target_properties(fp_loader PROPERTIES POSITION_INDEPENDENT_CODE ON)

# Shared by the classifier tests and the benchmark: frame builders and test_run helpers.
add_library(fp_classifier_testlib STATIC tests/classifier_frames.cc tests/classifier_fixtures.cc)
target_include_directories(fp_classifier_testlib PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/tests)
target_link_libraries(fp_classifier_testlib PUBLIC fp_loader fp_test_netns)

fp_add_test(fp_classifier_fixtures_test
  SOURCES tests/classifier_fixtures_test.cc
  LIBS fp_classifier_testlib fp_test_netns
  LABELS privileged netns cls
  TIMEOUT 120)


fp_add_test(fp_classifier_fuzz_test
  SOURCES tests/classifier_fuzz_test.cc
  LIBS fp_classifier_testlib
  LABELS privileged netns cls
  TIMEOUT 180)

fp_add_test(fp_classifier_veth_test
  SOURCES tests/classifier_veth_test.cc
  LIBS fp_classifier_testlib
  LABELS privileged netns cls
  TIMEOUT 120)

# ns/frame per class through BPF_PROG_TEST_RUN `repeat`; reported, not asserted (root).
add_executable(fp_classifier_bench bench/classifier_bench.cc)
target_link_libraries(fp_classifier_bench PRIVATE fp_classifier_testlib benchmark::benchmark)
