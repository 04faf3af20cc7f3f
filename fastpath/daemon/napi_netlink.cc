// SPDX-License-Identifier: GPL-2.0-only
// A hand-written generic netlink dump of NETDEV_CMD_NAPI_GET: two requests (family id,
// then the dump) do not justify a library dependency.
#include "daemon/napi_netlink.h"

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

namespace fastpath {
namespace {

// From the kernel's include/uapi/linux/netdev.h. Debian 12's linux-libc-dev (6.1) has no
// netdev.h at all; these numbers are ABI and never change once released.
constexpr const char* kNetdevFamilyName = "netdev";  // NETDEV_FAMILY_NAME
constexpr uint8_t kNetdevFamilyVersion = 1;          // NETDEV_FAMILY_VERSION
constexpr uint8_t kNetdevCmdNapiGet = 11;            // NETDEV_CMD_NAPI_GET (Linux 6.8)
constexpr uint16_t kNapiAttrIfindex = 1;             // NETDEV_A_NAPI_IFINDEX
constexpr uint16_t kNapiAttrId = 2;                  // NETDEV_A_NAPI_ID
// NETDEV_A_NAPI_PID: added by the same series as NAPI_GET (6.8); present only for NAPI
// instances that have a kthread (threaded mode).
constexpr uint16_t kNapiAttrPid = 4;

// Attributes of one genl message: (type, payload, length).
using AttrVisitor = std::function<void(uint16_t, const uint8_t*, size_t)>;
// Called after the attributes of each message of a dump.
using MessageEnd = std::function<void()>;

class GenlSocket {
 public:
  GenlSocket() : fd_(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC)) {
    if (fd_ < 0) return;
    // The kernel answers at once; the timeout only keeps a broken kernel from hanging
    // the daemon's control loop.
    timeval tv{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~GenlSocket() {
    if (fd_ >= 0) close(fd_);
  }
  GenlSocket(const GenlSocket&) = delete;
  GenlSocket& operator=(const GenlSocket&) = delete;
  bool ok() const { return fd_ >= 0; }

  /// Starts a request: nlmsghdr + genlmsghdr, attributes follow with put().
  void begin(uint16_t type, uint16_t flags, uint8_t cmd, uint8_t version) {
    len_ = NLMSG_LENGTH(GENL_HDRLEN);
    std::memset(req_, 0, sizeof(req_));
    auto* h = reinterpret_cast<nlmsghdr*>(req_);
    h->nlmsg_type = type;
    h->nlmsg_flags = uint16_t(NLM_F_REQUEST | flags);
    h->nlmsg_seq = ++seq_;
    auto* g = reinterpret_cast<genlmsghdr*>(NLMSG_DATA(h));
    g->cmd = cmd;
    g->version = version;
  }
  void put(uint16_t type, const void* data, size_t n) {
    auto* a = reinterpret_cast<nlattr*>(req_ + NLMSG_ALIGN(len_));
    a->nla_type = type;
    a->nla_len = uint16_t(NLA_HDRLEN + n);
    std::memcpy(reinterpret_cast<uint8_t*>(a) + NLA_HDRLEN, data, n);
    len_ = NLMSG_ALIGN(len_) + NLA_ALIGN(a->nla_len);
  }

  /// Sends the request and reads replies until the last one (NLMSG_DONE for a dump, the
  /// first reply otherwise), handing every reply's attributes to `visit` and, for a dump,
  /// calling `end` after each reply. Returns 0 or a negative errno (the kernel's, from
  /// NLMSG_ERROR).
  int transact(bool dump, const AttrVisitor& visit, const MessageEnd& end = {}) {
    reinterpret_cast<nlmsghdr*>(req_)->nlmsg_len = uint32_t(len_);
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (sendto(fd_, req_, len_, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel)) < 0)
      return -errno;
    std::string buf(64 * 1024, '\0');
    for (;;) {
      ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        return -errno;
      }
      int left = int(n);
      for (auto* h = reinterpret_cast<nlmsghdr*>(buf.data()); NLMSG_OK(h, left);
           h = NLMSG_NEXT(h, left)) {
        if (h->nlmsg_seq != seq_) continue;  // a stale reply to an earlier request
        if (h->nlmsg_type == NLMSG_ERROR) {
          auto* e = reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h));
          return e->error;  // 0 is an ACK
        }
        if (h->nlmsg_type == NLMSG_DONE) {
          // A dump that failed half-way carries its error here.
          int err = 0;
          if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
            std::memcpy(&err, NLMSG_DATA(h), sizeof(int));
          return err < 0 ? err : 0;
        }
        if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN)) continue;
        auto* p = reinterpret_cast<const uint8_t*>(NLMSG_DATA(h)) + GENL_HDRLEN;
        size_t rest = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
        while (rest >= NLA_HDRLEN) {
          auto* a = reinterpret_cast<const nlattr*>(p);
          if (a->nla_len < NLA_HDRLEN || a->nla_len > rest) break;
          visit(uint16_t(a->nla_type & NLA_TYPE_MASK), p + NLA_HDRLEN, a->nla_len - NLA_HDRLEN);
          size_t step = NLA_ALIGN(a->nla_len);
          if (step >= rest) break;
          p += step;
          rest -= step;
        }
        if (!dump) return 0;
        if (end) end();
      }
    }
  }

 private:
  int fd_;
  alignas(nlmsghdr) uint8_t req_[256];
  size_t len_ = 0;
  uint32_t seq_ = 0;
};

uint32_t readU32(const uint8_t* d, size_t n) {
  uint32_t v = 0;
  if (n >= sizeof(v)) std::memcpy(&v, d, sizeof(v));
  return v;
}

}  // namespace

Result<std::vector<NapiInstance>> netlinkNapiInstances(int ifindex) {
  GenlSocket s;
  if (!s.ok())
    return makeError(-errno, std::string("generic netlink socket: ") + std::strerror(errno));

  s.begin(GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1);
  s.put(CTRL_ATTR_FAMILY_NAME, kNetdevFamilyName, std::strlen(kNetdevFamilyName) + 1);
  uint16_t family = 0;
  int err = s.transact(false, [&](uint16_t type, const uint8_t* d, size_t n) {
    if (type == CTRL_ATTR_FAMILY_ID && n >= sizeof(family)) std::memcpy(&family, d, sizeof(family));
  });
  if (err == 0 && family == 0) err = -ENOENT;
  if (err < 0)
    return makeError(err, std::string("generic netlink family \"netdev\": ") + std::strerror(-err) +
                              (err == -ENOENT ? " (kernel older than 6.5)" : ""));

  s.begin(family, NLM_F_DUMP, kNetdevCmdNapiGet, kNetdevFamilyVersion);
  uint32_t want = uint32_t(ifindex);
  s.put(kNapiAttrIfindex, &want, sizeof(want));
  std::vector<NapiInstance> out;
  NapiInstance cur;
  err = s.transact(
      true,
      [&](uint16_t type, const uint8_t* d, size_t n) {
        if (type == kNapiAttrIfindex)
          cur.ifindex = int(readU32(d, n));
        else if (type == kNapiAttrId)
          cur.napi_id = readU32(d, n);
        else if (type == kNapiAttrPid)
          cur.pid = pid_t(readU32(d, n));
      },
      [&] {
        // The filter is the kernel's; checking again costs nothing.
        if (cur.ifindex == ifindex && cur.napi_id != 0) out.push_back(cur);
        cur = NapiInstance{};
      });
  if (err < 0)
    return makeError(err, "netdev netlink NAPI_GET on ifindex " + std::to_string(ifindex) + ": " +
                              std::strerror(-err) +
                              (err == -EOPNOTSUPP ? " (kernel older than 6.8)" : ""));
  return out;
}

}  // namespace fastpath
