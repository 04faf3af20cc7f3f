# SPDX-License-Identifier: GPL-2.0-only
# cmake -DCXX=<compiler> -DINCLUDES=<dir>|<dir>... -DOWN=<header> -DOTHERS=<header>|...
#       -DWORK=<dir> -P area_include_check.cmake
# With exactly the include path a target exports (INCLUDES), its own area's header (OWN)
# must preprocess and every header of an area it does not link (OTHERS) must not be found:
# fails when an area exports more than its own folder.
string(REPLACE "|" ";" INCLUDES "${INCLUDES}")
string(REPLACE "|" ";" OTHERS "${OTHERS}")
set(flags "")
foreach(d IN LISTS INCLUDES)
  list(APPEND flags "-I${d}")
endforeach()
file(MAKE_DIRECTORY "${WORK}")

function(preprocess header rc_var err_var)
  string(MAKE_C_IDENTIFIER "${header}" stem)
  set(probe "${WORK}/${stem}.cc")
  file(WRITE "${probe}" "#include \"${header}\"\n")
  execute_process(COMMAND "${CXX}" -std=c++20 -E ${flags} "${probe}" -o /dev/null
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  set(${rc_var} "${rc}" PARENT_SCOPE)
  set(${err_var} "${err}" PARENT_SCOPE)
endfunction()

preprocess("${OWN}" rc err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OWN} does not preprocess with its own target's include path:\n${err}")
endif()
foreach(h IN LISTS OTHERS)
  preprocess("${h}" rc err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${h} is reachable without linking its area (include path: ${INCLUDES})")
  endif()
  string(FIND "${err}" "${h}: No such file" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "${h}: failed for another reason than not being found:\n${err}")
  endif()
endforeach()
message(STATUS "${OWN} found; not found: ${OTHERS}")
