// SPDX-License-Identifier: GPL-2.0-only
// NAPI kthreads of named interfaces: exact over netlink, by thread name on old kernels.
#include "daemon/napi_threads.h"

#include <dirent.h>
#include <net/if.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>

#include "daemon/napi_netlink.h"

namespace fastpath {
namespace {

void sortUnique(std::vector<pid_t>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

bool kernelLacksNapiGet(int err) { return err == -ENOENT || err == -EOPNOTSUPP; }

}  // namespace

const char* napiLookupMethodName(NapiLookupMethod method) {
  return method == NapiLookupMethod::kNetlink ? "netlink" : "thread name";
}

Result<NapiThreadSet> findNapiThreads(const std::vector<std::string>& ifnames) {
  NapiThreadSet set;
  for (const auto& ifname : ifnames) {
    int ifindex = int(if_nametoindex(ifname.c_str()));
    if (ifindex == 0) continue;  // not (or no longer) in this namespace
    auto napis = netlinkNapiInstances(ifindex);
    if (!napis) {
      if (napis.error().code == -ENODEV) continue;  // went away since if_nametoindex
      if (kernelLacksNapiGet(napis.error().code)) {
        set.method = NapiLookupMethod::kThreadName;
        set.pids = napiThreadsByName(ifnames);
        return set;
      }
      return makeError(napis.error().code,
                       "finding the NAPI threads of port " + ifname + ": " + napis.error().message);
    }
    for (const auto& n : *napis)
      if (n.pid > 0) set.pids.push_back(n.pid);
  }
  sortUnique(&set.pids);
  return set;
}

std::vector<pid_t> napiThreadsByName(const std::vector<std::string>& ifnames) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/comm");
    std::string comm;
    if (!std::getline(f, comm) || comm.rfind("napi/", 0) != 0) continue;
    for (const auto& ifname : ifnames) {
      // comm is cut at 15 characters: compare what is left of "napi/<ifname>-".
      std::string want = ("napi/" + ifname + "-").substr(0, comm.size());
      if (comm.rfind(want, 0) == 0) {
        out.push_back(pid_t(std::atol(e->d_name)));
        break;
      }
    }
  }
  closedir(d);
  sortUnique(&out);
  return out;
}

}  // namespace fastpath
