// SPDX-License-Identifier: GPL-2.0-only
// Threaded NAPI, NAPI thread affinity and scheduling of the daemon's ports, with a state
// file that survives the daemon (see port_tuning.h).
#include "daemon/port_tuning.h"

#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "daemon/napi_threads.h"
#include "fastpath/log.h"

namespace fastpath {
namespace {

using nlohmann::json;

constexpr int kStateVersion = 1;

unsigned long long netnsInode() {
  struct stat st {};
  if (stat("/proc/thread-self/ns/net", &st) != 0) return 0;
  return (unsigned long long)st.st_ino;
}

// Start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat): with
// the pid it names one process, even after the pid is reused.
unsigned long long startTime(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto close = s.rfind(')');  // comm may contain spaces and parentheses
  if (close == std::string::npos) return 0;
  std::istringstream in(s.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && (in >> field); ++i)
    if (i == 22) return std::stoull(field);
  return 0;
}

std::string comm(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/comm");
  std::string c;
  std::getline(f, c);
  return c;
}

// sysfs shows the network namespace of whoever mounted it, not the reader's: after a bare
// setns() (the tests, a daemon started by a tool that enters namespaces) /sys/class/net is
// another namespace's and a same-named interface there would be changed. So every sysfs
// access runs on a short-lived thread with a private mount namespace and its own sysfs
// mount, made from this thread's network namespace; both vanish with the thread.
Status withOwnSysfs(const std::function<void()>& fn) {
  Status result;
  std::thread t([&] {
    if (unshare(CLONE_NEWNS) != 0) {
      result = makeError(-errno, std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno));
      return;
    }
    // EBUSY: the sysfs on /sys is already this namespace's (the kernel refuses to stack
    // the same superblock on itself), as under `ip netns exec`: use it.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        (mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0 &&
         errno != EBUSY)) {
      result = makeError(-errno, std::string("mounting a private sysfs: ") + std::strerror(errno));
      return;
    }
    fn();
  });
  t.join();
  return result;
}

std::string threadedPath(const std::string& ifname) {
  return "/sys/class/net/" + ifname + "/threaded";
}

std::string readThreaded(const std::string& ifname) {
  std::ifstream f(threadedPath(ifname));
  std::string v;
  if (!std::getline(f, v)) return "";
  return v;
}

int writeThreaded(const std::string& ifname, const std::string& value) {
  std::ofstream f(threadedPath(ifname));
  if (!f) return -errno;
  f << value << std::flush;
  return f ? 0 : -(errno ? errno : EIO);
}

std::vector<int> affinity(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(pid, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

int setAffinity(pid_t pid, const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  return sched_setaffinity(pid, sizeof(set), &set) == 0 ? 0 : -errno;
}

std::string cpuList(const std::vector<int>& cpus) {
  std::string s;
  for (int c : cpus) s += (s.empty() ? "" : ",") + std::to_string(c);
  return s.empty() ? "none" : s;
}

struct Sched {
  int policy = -1;
  int priority = 0;
  int nice = 0;
};

Sched schedOf(pid_t pid) {
  Sched s;
  s.policy = sched_getscheduler(pid);
  sched_param sp{};
  if (s.policy >= 0 && sched_getparam(pid, &sp) == 0) s.priority = sp.sched_priority;
  errno = 0;
  const int n = getpriority(PRIO_PROCESS, id_t(pid));
  s.nice = errno ? 0 : n;
  return s;
}

// SCHED_OTHER and SCHED_BATCH/IDLE keep their nice value across a change of policy (the
// kernel stores it apart); it is set again after a return to them all the same.
int setSched(pid_t pid, const Sched& s) {
  sched_param sp{};
  sp.sched_priority = s.priority;
  if (sched_setscheduler(pid, s.policy, &sp) != 0) return -errno;
  if (s.policy != SCHED_FIFO && s.policy != SCHED_RR &&
      setpriority(PRIO_PROCESS, id_t(pid), s.nice) != 0)
    return -errno;
  return 0;
}

std::string schedName(const Sched& s) {
  switch (s.policy) {
    case SCHED_FIFO:
      return "SCHED_FIFO " + std::to_string(s.priority);
    case SCHED_RR:
      return "SCHED_RR " + std::to_string(s.priority);
    case SCHED_OTHER:
      return "SCHED_OTHER nice " + std::to_string(s.nice);
    default:
      return "policy " + std::to_string(s.policy) + " nice " + std::to_string(s.nice);
  }
}

// Restores what a state file holds, in the calling thread's network namespace.
void restoreFromJson(const json& j, const char* who) {
  for (const auto& t : j.value("napi_threads", json::array())) {
    pid_t pid = t.value("pid", 0);
    std::string name = t.value("comm", "");
    std::vector<int> cpus = t.value("cpus", std::vector<int>{});
    const Sched was{t.value("policy", -1), t.value("priority", 0), t.value("nice", 0)};
    // A NAPI thread ends with threaded NAPI or with its NAPI instance (XDP detached): the
    // pid may be gone, or reused by another thread.
    if (pid <= 0 || comm(pid) != name) continue;
    if (was.policy >= 0) {
      const Sched now = schedOf(pid);
      if (now.policy != was.policy || now.priority != was.priority ||
          (was.policy == SCHED_OTHER && now.nice != was.nice)) {
        if (int err = setSched(pid, was); err < 0)
          pr_warn("%s: NAPI thread %s (pid %d): restoring %s failed: %s", who, name.c_str(),
                  int(pid), schedName(was).c_str(), std::strerror(-err));
        else
          pr_info("%s: NAPI thread %s (pid %d): %s -> %s (restored)", who, name.c_str(),
                  int(pid), schedName(now).c_str(), schedName(was).c_str());
      }
    }
    if (cpus.empty()) continue;
    auto now = affinity(pid);
    if (now == cpus) continue;
    if (int err = setAffinity(pid, cpus); err < 0)
      pr_warn("%s: NAPI thread %s (pid %d): restoring affinity %s failed: %s", who, name.c_str(),
              int(pid), cpuList(cpus).c_str(), std::strerror(-err));
    else
      pr_info("%s: NAPI thread %s (pid %d): affinity %s -> %s (restored)", who, name.c_str(),
              int(pid), cpuList(now).c_str(), cpuList(cpus).c_str());
  }
  std::vector<std::pair<std::string, std::string>> flags;
  for (const auto& p : j.value("ports", json::array())) {
    std::string ifname = p.value("ifname", "");
    int ifindex = p.value("ifindex", 0);
    // The same name on another interface (deleted and recreated) is not ours to change.
    if (ifname.empty() || int(if_nametoindex(ifname.c_str())) != ifindex) continue;
    if (p.value("changed", false)) flags.push_back({ifname, p.value("threaded", "")});
  }
  if (flags.empty()) return;
  auto st = withOwnSysfs([&] {
    for (const auto& [ifname, value] : flags) {
      std::string now = readThreaded(ifname);
      if (value.empty() || now == value) continue;
      if (int err = writeThreaded(ifname, value); err == -EOPNOTSUPP)
        // The kernel keeps the flag but refuses to change it while the device has no NAPI
        // instance (veth without XDP or GRO); it applies when one is added.
        pr_warn("%s: port %s: threaded NAPI stays %s (the port has no NAPI instance now)",
                who, ifname.c_str(), now.c_str());
      else if (err < 0)
        pr_warn("%s: port %s: restoring threaded NAPI %s failed: %s", who, ifname.c_str(),
                value.c_str(), std::strerror(-err));
      else
        pr_info("%s: port %s: threaded NAPI %s -> %s (restored)", who, ifname.c_str(),
                now.c_str(), value.c_str());
    }
  });
  if (!st) pr_warn("%s: cannot restore threaded NAPI: %s", who, st.error().message.c_str());
}

}  // namespace

std::string portTuningStatePath(const PortTuningOptions& options) {
  std::string key = options.control_socket;
  std::replace(key.begin(), key.end(), '/', '_');
  return options.state_dir + "/tuning-" + std::to_string(netnsInode()) + "-" + key + ".json";
}

bool restoreStalePortTuning(const std::string& path) {
  std::ifstream f(path);
  if (!f) return false;
  json j = json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    pr_warn("port tuning: %s is not a state file fastpathd can read; removing it", path.c_str());
    std::remove(path.c_str());
    return false;
  }
  pid_t pid = j.value("pid", 0);
  unsigned long long start = j.value("starttime", 0ULL);
  if (pid == getpid()) return false;  // this daemon's own (a port attached at run time)
  if (pid > 0 && kill(pid, 0) == 0 && startTime(pid) == start) {
    pr_warn("port tuning: %s belongs to fastpathd pid %d, still running; leaving it",
            path.c_str(), int(pid));
    return false;
  }
  if (j.value("netns", 0ULL) != netnsInode()) {
    pr_warn("port tuning: %s was written in another network namespace; removing it",
            path.c_str());
    std::remove(path.c_str());
    return false;
  }
  pr_info("port tuning: fastpathd pid %d stopped without restoring its ports (killed?); "
          "restoring from %s",
          int(pid), path.c_str());
  restoreFromJson(j, "port tuning (previous run)");
  std::remove(path.c_str());
  return true;
}

PortTuning::PortTuning(PortTuningOptions options)
    : options_(std::move(options)), path_(portTuningStatePath(options_)), netns_(netnsInode()) {}

Result<std::unique_ptr<PortTuning>> PortTuning::apply(const PortTuningOptions& options) {
  std::unique_ptr<PortTuning> t(new PortTuning(options));
  // <stem>.json, or <stem>~<pid>-<n>.json when <stem>.json belonged to a live daemon (two
  // Daemons of one process, e.g. a test, share socket path and namespace).
  const std::string stem = t->path_.substr(0, t->path_.size() - 5);
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(options.state_dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const std::string f = it->path().string();
    if (f == t->path_ || (f.rfind(stem + "~", 0) == 0 && f.size() > 5 &&
                          f.compare(f.size() - 5, 5, ".json") == 0))
      restoreStalePortTuning(f);
  }
  if (std::filesystem::exists(t->path_, ec)) {
    static std::atomic<int> n{0};
    t->path_ = stem + "~" + std::to_string(getpid()) + "-" + std::to_string(++n) + ".json";
  }
  for (const auto& ifname : options.ifnames)
    t->ports_.push_back(PortState{ifname, int(if_nametoindex(ifname.c_str())), "", false});
  auto st = withOwnSysfs([&] {
    for (auto& p : t->ports_) p.threaded = readThreaded(p.ifname);
  });
  if (!st) {
    pr_warn("port tuning: %s; threaded NAPI left as it is", st.error().message.c_str());
  } else {
    // Recorded as changed before the change: a daemon killed between the two restores a
    // value that may not have been written yet, which is harmless.
    for (auto& p : t->ports_) p.changed = !p.threaded.empty() && p.threaded != "1";
  }
  std::filesystem::create_directories(options.state_dir, ec);
  if (auto w = t->writeState(); !w) {
    for (auto& p : t->ports_) p.changed = false;
    return w.error();
  }
  t->sysfs_ok_ = bool(st);
  return t;
}

void PortTuning::tune() {
  if (sysfs_ok_) {
    withOwnSysfs([&] {
      for (auto& p : ports_) {
        if (p.threaded.empty()) {
          pr_warn("port tuning: port %s: no threaded NAPI setting in sysfs; left alone",
                  p.ifname.c_str());
          continue;
        }
        if (!p.changed) {
          pr_info("port tuning: port %s: threaded NAPI already %s", p.ifname.c_str(),
                  p.threaded.c_str());
          continue;
        }
        if (int err = writeThreaded(p.ifname, "1"); err < 0) {
          pr_warn("port tuning: port %s: enabling threaded NAPI failed: %s; left at %s",
                  p.ifname.c_str(), std::strerror(-err), p.threaded.c_str());
          p.changed = false;
          continue;
        }
        pr_info("port tuning: port %s: threaded NAPI %s -> 1 (restored at exit; --no-tune: "
                "leave it)",
                p.ifname.c_str(), p.threaded.c_str());
      }
    });
  }
  tuneNapiThreads();
}

void PortTuning::tuneNapiThreads() {
  std::vector<int> want = options_.cpus;
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  const Sched rt{SCHED_FIFO, options_.napi_priority, 0};
  if (want.empty()) pr_info("port tuning: NAPI threads not pinned (no --cores)");
  if (want.empty() && !rt.priority) return;
  auto set = findNapiThreads(options_.ifnames);
  if (!set) {
    pr_warn("port tuning: NAPI threads not tuned: %s", set.error().message.c_str());
    return;
  }
  if (set->method != NapiLookupMethod::kNetlink) {
    // By name, another namespace's same-named port would be changed too.
    pr_warn("port tuning: NAPI threads not tuned (kernel without netdev NAPI_GET)");
    return;
  }
  std::vector<ThreadState> todo;
  for (pid_t pid : set->pids) {
    if (std::any_of(threads_.begin(), threads_.end(),
                    [&](const ThreadState& t) { return t.pid == pid; }))
      continue;
    ThreadState ts{pid, comm(pid), {}, -1, 0, 0};
    auto cpus = affinity(pid);
    if (!want.empty() && !cpus.empty() && cpus != want) ts.cpus = cpus;
    const Sched now = schedOf(pid);
    if (rt.priority && now.policy >= 0 &&
        (now.policy != rt.policy || now.priority != rt.priority)) {
      ts.policy = now.policy;
      ts.priority = now.priority;
      ts.nice = now.nice;
    }
    if (!ts.cpus.empty() || ts.policy >= 0) todo.push_back(ts);
  }
  if (todo.empty()) return;
  threads_.insert(threads_.end(), todo.begin(), todo.end());
  if (auto st = writeState(); !st) {
    pr_warn("port tuning: NAPI threads not tuned: %s", st.error().message.c_str());
    threads_.resize(threads_.size() - todo.size());
    return;
  }
  for (auto& t : todo) {
    if (!t.cpus.empty()) {
      if (int err = setAffinity(t.pid, want); err < 0)
        pr_warn("port tuning: NAPI thread %s (pid %d): affinity %s failed: %s", t.comm.c_str(),
                int(t.pid), cpuList(want).c_str(), std::strerror(-err));
      else
        pr_info("port tuning: NAPI thread %s (pid %d): affinity %s -> %s (the workers' CPUs)",
                t.comm.c_str(), int(t.pid), cpuList(t.cpus).c_str(), cpuList(want).c_str());
    }
    if (t.policy < 0) continue;
    const Sched was{t.policy, t.priority, t.nice};
    if (int err = setSched(t.pid, rt); err < 0)
      pr_warn("port tuning: NAPI thread %s (pid %d): %s failed: %s; left at %s", t.comm.c_str(),
              int(t.pid), schedName(rt).c_str(), std::strerror(-err), schedName(was).c_str());
    else
      pr_info("port tuning: NAPI thread %s (pid %d): %s -> %s (threaded NAPI with the "
              "precedence of a softirq over normal threads; --napi-priority keep: leave it)",
              t.comm.c_str(), int(t.pid), schedName(was).c_str(), schedName(rt).c_str());
  }
}

json PortTuning::recorded() const {
  json j;
  j["ports"] = json::array();
  for (const auto& p : ports_)
    j["ports"].push_back(
        {{"ifname", p.ifname}, {"ifindex", p.ifindex}, {"threaded", p.threaded},
         {"changed", p.changed}});
  j["napi_threads"] = json::array();
  for (const auto& t : threads_) {
    json e = {{"pid", int(t.pid)}, {"comm", t.comm}, {"cpus", t.cpus}};
    if (t.policy >= 0) {
      e["policy"] = t.policy;
      e["priority"] = t.priority;
      e["nice"] = t.nice;
    }
    j["napi_threads"].push_back(e);
  }
  return j;
}

Status PortTuning::writeState() const {
  json j = recorded();
  j["version"] = kStateVersion;
  j["pid"] = int(getpid());
  j["starttime"] = startTime(getpid());
  j["netns"] = netns_;
  j["control_socket"] = options_.control_socket;
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << j.dump(2) << "\n" << std::flush;
    if (!f)
      return makeError(-EIO, "port tuning: cannot write state file " + tmp + ": " +
                                 std::strerror(errno) + " (--no-tune: change nothing)");
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0)
    return makeError(-errno, "port tuning: cannot write state file " + path_ + ": " +
                                 std::strerror(errno) + " (--no-tune: change nothing)");
  return {};
}

void PortTuning::restore() {
  restoreFromJson(recorded(), "port tuning");
  std::remove(path_.c_str());
}

PortTuning::~PortTuning() { restore(); }

}  // namespace fastpath
