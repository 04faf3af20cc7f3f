// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: a topology file (YAML or JSON) -> parseTopologyText, which reads and
// validates it whole. Beyond "no crash, no leak, no ASan/UBSan report": every refusal is a
// message that starts with the file's name and a line ("fuzz.yaml:LINE: "), and what is
// accepted validates again (validateTopology) with every link's emulation in range.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "daemon/topology.h"
#include "fastpath/link_params.h"
#include "fastpath/log.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fastpath::setLogLevel(fastpath::LogLevel::kError);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto t = fastpath::parseTopologyText(text, "fuzz.yaml");
  if (!t) {
    const std::string& m = t.error().message;
    if (m.rfind("fuzz.yaml:", 0) != 0 || m.size() <= 10) std::abort();
    return 0;
  }
  if (!fastpath::validateTopology(*t, "fuzz.yaml")) std::abort();
  for (const auto& l : t->links)
    if (!fastpath::validateLinkParams(l.spec.a_to_b) || !fastpath::validateLinkParams(l.spec.b_to_a))
      std::abort();
  return 0;
}
