// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/yaml_documents.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <sstream>

namespace fastpath {

namespace {

// Remembers the first mark of the current document; builds nothing.
class FirstMark : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& m) override { start_ = m, have_ = false; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { seen(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { seen(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string&) override {
    seen(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    seen(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    seen(m);
  }
  void OnMapEnd() override {}

  int line() const {
    const YAML::Mark& m = have_ ? first_ : start_;
    return m.is_null() ? 0 : m.line + 1;
  }

 private:
  void seen(const YAML::Mark& m) {
    if (!have_) first_ = m, have_ = true;
  }
  YAML::Mark start_ = YAML::Mark::null_mark(), first_ = YAML::Mark::null_mark();
  bool have_ = false;
};

}  // namespace

std::vector<int> yamlDocumentLines(const std::string& text, std::size_t max) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  std::vector<int> lines;
  FirstMark h;
  while (lines.size() < max && parser.HandleNextDocument(h)) lines.push_back(h.line());
  return lines;
}

}  // namespace fastpath
