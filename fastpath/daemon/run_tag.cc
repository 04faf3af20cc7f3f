// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/run_tag.h"

#include <net/if.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "daemon/rtnetlink.h"
#include "fastpath/log.h"

namespace fastpath {
namespace {

std::string firstLine(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

/// A live process running the same program as this one.
bool liveSibling(pid_t pid) {
  if (pid <= 0 || pid == getpid() || (kill(pid, 0) != 0 && errno == ESRCH)) return false;
  return firstLine("/proc/" + std::to_string(pid) + "/comm") == firstLine("/proc/self/comm");
}

}  // namespace

std::string runTagAlias(const std::string& tag) { return "fastpathd run " + tag; }

Result<std::unique_ptr<RunTag>> RunTag::take(const std::string& tag, const std::string& dir) {
  struct stat st {};
  if (stat("/proc/self/ns/net", &st) != 0)
    return makeError(-errno, "run tag: cannot read this network namespace's inode");
  std::unique_ptr<RunTag> t(new RunTag());
  t->tag_ = tag;
  t->path_ = dir + "/run-" + tag + "-" + std::to_string(st.st_ino) + ".pid";
  mkdir(dir.c_str(), 0755);
  const std::string pid = firstLine(t->path_);
  if (!pid.empty() && liveSibling(pid_t(std::atol(pid.c_str()))))
    return makeError(-EBUSY, "run tag " + tag + " is held by fastpathd pid " + pid +
                                 " in this network namespace (" + t->path_ +
                                 "): stop it or give this run another --run-tag");
  Fd nl{rtnlOpen()};
  std::vector<std::string> leftovers;
  if (nl.fd >= 0)
    for (const auto& [name, alias] : linkAliases(nl.fd))
      if (alias == runTagAlias(tag)) leftovers.push_back(name);
  for (const auto& ifname : leftovers) {
    const int idx = int(if_nametoindex(ifname.c_str()));
    if (!idx) continue;  // gone with its veth peer
    if (int err = deleteLink(nl.fd, idx); err && err != -ENODEV) {
      pr_warn("run tag %s: cannot remove %s, left by an earlier run (%s); remove it with "
              "'ip link del %s'",
              tag.c_str(), ifname.c_str(), strerror(-err), ifname.c_str());
      continue;
    }
    t->removed_.push_back(ifname);
  }
  if (!t->removed_.empty())
    pr_info("run tag %s: removed %zu interface(s) an earlier run left", tag.c_str(),
            t->removed_.size());
  std::ofstream(t->path_) << getpid() << "\n";
  return t;
}

RunTag::~RunTag() { unlink(path_.c_str()); }

}  // namespace fastpath
