// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: the words of `fpctl link set` (and of a topology file's `params`) ->
// applyLinkParamWords. Words are the input split at white space and NUL. Beyond "no
// crash, no ASan/UBSan report": a refusal is a message and leaves the parameters as they
// were; what is accepted passes validateLinkParams (a seed is at most 2^63-1), and its
// printed form (formatLinkParams) parses back to parameters that print the same.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fastpath/link_params.h"

namespace {

// NUL too: the input is bytes, and a word with a NUL in it could not come from a command line.
std::vector<std::string> words(const std::string& text) {
  return fastpath::splitWords(text, std::string_view(" \t\n\0", 4));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using fastpath::LinkParams;
  const auto args = words(std::string(reinterpret_cast<const char*>(data), size));
  LinkParams p;
  p.seed = 99;  // a value the words may change, to see that a refusal keeps it
  const LinkParams before = p;
  auto st = fastpath::applyLinkParamWords(args, &p);
  if (!st) {
    if (st.error().message.empty() || !(p == before)) std::abort();
    return 0;
  }
  if (!fastpath::validateLinkParams(p) || p.seed > fastpath::kMaxLinkSeed) std::abort();
  const std::string shown = fastpath::formatLinkParams(p);
  LinkParams again;
  if (!fastpath::applyLinkParamWords(words(shown), &again)) std::abort();
  if (fastpath::formatLinkParams(again) != shown) std::abort();
  return 0;
}
