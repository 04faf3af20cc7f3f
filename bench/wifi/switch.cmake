# SPDX-License-Identifier: GPL-2.0-only
# cmake -DIN=<ns-3 example> -DOUT=<file> -P switch.cmake: the example with the two changed
# lines of an emulated script (FastPathWifiHelper for WifiHelper, and its header). Fails
# when the example has no `WifiHelper wifi;` to switch (a changed upstream example).
file(READ "${IN}" text)
string(FIND "${text}" "WifiHelper wifi;" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${IN}: no 'WifiHelper wifi;' to switch to FastPathWifiHelper")
endif()
string(REPLACE "WifiHelper wifi;" "FastPathWifiHelper wifi;" text "${text}")
string(FIND "${text}" "#include" first)
string(SUBSTRING "${text}" 0 ${first} head)
string(SUBSTRING "${text}" ${first} -1 tail)
file(WRITE "${OUT}" "${head}#include \"ns3/fast-path-wifi-helper.h\" // switched: FastPathWifiHelper\n${tail}")
