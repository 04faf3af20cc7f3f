// SPDX-License-Identifier: GPL-2.0-only
// The run tag (--run-tag): every object a fastpathd makes on its host carries it (the VLAN
// devices of its wires in their name and alias, this lock file), so that the next run with
// the same tag removes what a crashed run left, on every host of a scenario (each host's
// daemon cleans its own). A live daemon holding the tag is never disturbed. Not a public
// header.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fastpath/result.h"

namespace fastpath {

/// The alias (IFLA_IFALIAS) of every interface a run with `tag` makes.
std::string runTagAlias(const std::string& tag);

/// This run's hold on its tag in this network namespace: <dir>/run-<tag>-<netns inode>.pid.
class RunTag {
 public:
  /// Refuses when a live fastpathd holds the tag here; otherwise removes the interfaces a
  /// crashed run with the tag left, and records this process.
  static Result<std::unique_ptr<RunTag>> take(const std::string& tag,
                                              const std::string& dir = "/run/fastpathd");
  ~RunTag();  ///< Removes the file.
  RunTag(const RunTag&) = delete;
  RunTag& operator=(const RunTag&) = delete;
  const std::string& tag() const { return tag_; }
  /// The interfaces removed at take().
  const std::vector<std::string>& removed() const { return removed_; }

 private:
  RunTag() = default;
  std::string tag_, path_;
  std::vector<std::string> removed_;
};

}  // namespace fastpath
