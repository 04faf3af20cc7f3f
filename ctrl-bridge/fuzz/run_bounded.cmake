# SPDX-License-Identifier: GPL-2.0-only
# cmake -DFUZZER=... -DWORK=... -DCORPUS=... -DRUNS=N -P run_bounded.cmake
# Runs N executions in total as two concurrent libFuzzer processes (one per core; two
# COMMANDs of one execute_process run at the same time) with different seeds. New
# inputs go to scratch directories; the seed corpus in the tree is only read.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/a ${WORK}/b)
math(EXPR half "${RUNS} / 2")
math(EXPR rest "${RUNS} - ${half}")
if(NOT DEFINED MAX_LEN)
  set(MAX_LEN 4096)
endif()
# -entropic=0: the default entropic scheduler spends most of the time on its own
# bookkeeping (many counters in protobuf code); the bounded run favours executions.
set(common -max_len=${MAX_LEN} -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -entropic=0)
# A dictionary (-DDICT=file) of the input's keywords, for text formats.
if(DEFINED DICT)
  list(APPEND common -dict=${DICT})
endif()
execute_process(
  COMMAND ${FUZZER} -runs=${half} -seed=1 ${common} ${WORK}/a ${CORPUS}
  COMMAND ${FUZZER} -runs=${rest} -seed=2 ${common} ${WORK}/b ${CORPUS}
  WORKING_DIRECTORY ${WORK}
  RESULTS_VARIABLE rcs
  OUTPUT_FILE ${WORK}/fuzz-a.log
  ERROR_FILE ${WORK}/fuzz-b.log)
get_filename_component(fuzzer_name ${FUZZER} NAME)
message(STATUS "${fuzzer_name} exit codes: ${rcs} (logs in ${WORK})")
foreach(rc ${rcs})
  if(NOT rc EQUAL 0)
    file(READ ${WORK}/fuzz-b.log tail)
    string(LENGTH "${tail}" len)
    if(len GREATER 4000)
      math(EXPR from "${len} - 4000")
      string(SUBSTRING "${tail}" ${from} 4000 tail)
    endif()
    message(FATAL_ERROR "${fuzzer_name} failed (exit codes ${rcs}); crash inputs are in ${WORK}\n${tail}")
  endif()
endforeach()
file(STRINGS ${WORK}/fuzz-b.log done REGEX "^Done [0-9]+ runs")
message(STATUS "${done}")
