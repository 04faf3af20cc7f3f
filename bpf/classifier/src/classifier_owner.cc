// SPDX-License-Identifier: GPL-2.0-only
#include "classifier_owner.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "fastpath/log.h"

namespace fastpath {
namespace {

constexpr const char* kProgName = "xdp_fp_classify";

/// Interface names are per network namespace: key the owner file by the namespace inode.
std::string netnsId() {
  struct stat st {};
  if (stat("/proc/thread-self/ns/net", &st) != 0) return "0";
  return std::to_string(static_cast<unsigned long long>(st.st_ino));
}

}  // namespace

OwnerFile::OwnerFile(const std::string& run_dir, const std::string& ifname)
    : dir_(run_dir), path_(run_dir + "/xdp-" + netnsId() + "-" + ifname + ".pid") {}

pid_t OwnerFile::readPid() const {
  std::ifstream in(path_);
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return 0;
  return static_cast<pid_t>(pid);
}

Status OwnerFile::write() const {
  if (mkdir(dir_.c_str(), 0755) != 0 && errno != EEXIST)
    return makeError(-errno, "classifier: cannot create " + dir_ + ": " + std::strerror(errno) +
                                 "; check permissions or set run_dir");
  std::string tmp = path_ + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f)
    return makeError(-errno,
                     "classifier: cannot write owner file " + tmp + ": " + std::strerror(errno));
  std::fprintf(f, "%d\n", static_cast<int>(getpid()));
  std::fclose(f);
  if (std::rename(tmp.c_str(), path_.c_str()) != 0)
    return makeError(-errno, "classifier: cannot rename " + tmp + ": " + std::strerror(errno));
  return {};
}

bool processAlive(pid_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM); }

Status cleanStaleAttachment(int ifindex, const std::string& ifname, const OwnerFile& owner) {
  xdp_multiprog* mp = xdp_multiprog__get_from_ifindex(ifindex);
  int err = libxdp_get_error(mp);
  if (!mp || err == -ENOENT) return {};  // nothing attached
  if (err)
    return makeError(
        err, "classifier: cannot list the XDP programs on " + ifname + ": " + std::strerror(-err));

  Status result;
  std::vector<xdp_program*> ours;
  bool legacy = xdp_multiprog__is_legacy(mp);
  if (legacy) {
    xdp_program* main = xdp_multiprog__main_prog(mp);
    if (main && std::strcmp(xdp_program__name(main), kProgName) == 0) {
      ours.push_back(main);
    } else {
      result =
          makeError(-EBUSY, "classifier: " + ifname + " already has XDP program '" +
                                (main ? xdp_program__name(main) : "?") + "' (id " +
                                std::to_string(main ? xdp_program__id(main) : 0) +
                                ") attached without the libxdp dispatcher, so ours cannot coexist; "
                                "remove it (`ip link set dev " +
                                ifname + " xdp off`) or load it through libxdp");
    }
  } else {
    for (xdp_program* p = xdp_multiprog__next_prog(nullptr, mp); p;
         p = xdp_multiprog__next_prog(p, mp))
      if (std::strcmp(xdp_program__name(p), kProgName) == 0) ours.push_back(p);
  }

  if (result && !ours.empty()) {
    pid_t pid = owner.readPid();
    if (processAlive(pid)) {
      result = makeError(-EBUSY, "classifier: xdp_fp_classify is already attached to " + ifname +
                                     " by running process " + std::to_string(pid) + " (" +
                                     owner.path() + "); stop that process first");
    } else {
      enum xdp_attach_mode mode = xdp_multiprog__attach_mode(mp);
      for (xdp_program* p : ours) {
        uint32_t id = xdp_program__id(p);
        int derr = legacy ? xdp_multiprog__detach(mp) : xdp_program__detach(p, ifindex, mode, 0);
        if (derr) {
          result = makeError(derr, "classifier: cannot remove stale xdp_fp_classify (id " +
                                       std::to_string(id) + ") from " + ifname + ": " +
                                       std::strerror(-derr) +
                                       "; remove it with `xdp-loader unload " + ifname + " --all`");
          break;
        }
        pr_warn("classifier: removed stale xdp_fp_classify (id %u) from %s, left by %s", id,
                ifname.c_str(),
                pid ? ("dead process " + std::to_string(pid)).c_str() : "an unrecorded owner");
      }
      unlink(owner.path().c_str());
    }
  }
  xdp_multiprog__close(mp);
  return result;
}

}  // namespace fastpath
