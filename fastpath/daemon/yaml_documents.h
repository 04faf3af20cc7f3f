// SPDX-License-Identifier: GPL-2.0-only
// Where the documents of a YAML text start, counted with yaml-cpp's parser and no more
// than asked for. YAML::LoadAll is not safe on hostile input: on some malformed texts
// (yaml-cpp 0.7, a few hundred bytes) each call for the next document returns another
// empty one, for ever, and LoadAll keeps them all until memory runs out. Not a public
// header.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fastpath {

/// The 1-based line of each document's first node (of its start when it has none), for
/// at most `max` documents. Throws YAML::Exception on a syntax error, as YAML::Load does.
std::vector<int> yamlDocumentLines(const std::string& text, std::size_t max);

}  // namespace fastpath
