// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/underlay.h"

#include <linux/neighbour.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "daemon/rtnetlink.h"

namespace fastpath {
namespace {

/// Sends `r` and hands each reply message of its sequence to `each` until DONE, an error
/// or (for a non-dump request) the first answer. 0 or a negative errno.
template <typename F>
int rtnlQuery(int fd, NlRequest& r, F each) {
  static uint32_t seq = 0x50000000;
  r.hdr()->nlmsg_seq = ++seq;
  sockaddr_nl sa{};
  sa.nl_family = AF_NETLINK;
  if (sendto(fd, r.hdr(), r.hdr()->nlmsg_len, 0, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) < 0)
    return -errno;
  const bool dump = r.hdr()->nlmsg_flags & NLM_F_DUMP;
  std::vector<char> buf(32768);
  for (;;) {
    ssize_t n = recv(fd, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -errno;
    if (n == 0) return -EIO;
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf.data()); NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_seq != r.hdr()->nlmsg_seq) continue;
      if (h->nlmsg_type == NLMSG_DONE) return 0;
      if (h->nlmsg_type == NLMSG_ERROR) {
        const int err = static_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
        if (err || !dump) return err;
        continue;
      }
      each(h);
      if (!dump) return 0;
    }
  }
}

}  // namespace

Result<MacAddress> interfaceMacOf(const std::string& ifname) {
  Fd s{socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)};
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  if (s.fd < 0 || ioctl(s.fd, SIOCGIFHWADDR, &ifr) != 0)
    return makeError(-ENODEV, "wire " + ifname + ": cannot read its MAC address");
  MacAddress m;
  std::memcpy(m.bytes.data(), ifr.ifr_hwaddr.sa_data, 6);
  return m;
}

Result<UnderlayHop> underlayNextHop(const std::string& ifname, const IpAddress& peer,
                                    IpAddress* unresolved) {
  const std::string what = "wire " + ifname + " to " + peer.toString();
  const int want = int(if_nametoindex(ifname.c_str()));
  if (!want) return makeError(-ENODEV, what + ": no such interface");
  Fd nl{rtnlOpen()};
  if (nl.fd < 0) return makeError(nl.fd, what + ": cannot open rtnetlink");
  // The route the kernel takes to the peer (ip route get).
  NlRequest r(RTM_GETROUTE, 0);
  r.hdr()->nlmsg_flags = NLM_F_REQUEST;
  rtmsg rt{};
  rt.rtm_family = AF_INET;
  rt.rtm_dst_len = 32;
  r.put(rt);
  const uint32_t dst = peer.v4NetworkOrder();
  r.attr(RTA_DST, &dst, 4);
  int oif = 0;
  uint32_t gw = 0;
  int err = rtnlQuery(nl.fd, r, [&](nlmsghdr* h) {
    if (h->nlmsg_type != RTM_NEWROUTE) return;
    auto* m = static_cast<rtmsg*>(NLMSG_DATA(h));
    int len = int(RTM_PAYLOAD(h));
    for (auto* a = RTM_RTA(m); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
      if (a->rta_type == RTA_OIF) std::memcpy(&oif, RTA_DATA(a), 4);
      if (a->rta_type == RTA_GATEWAY) std::memcpy(&gw, RTA_DATA(a), 4);
    }
  });
  if (err)
    return makeError(err, what + ": no route to the peer's underlay address (" +
                              std::string(strerror(-err)) + "): add one through " + ifname);
  if (oif != want) {
    char name[IF_NAMESIZE] = "?";
    if_indextoname(unsigned(oif), name);
    return makeError(-EHOSTUNREACH, what + ": the kernel routes the peer through " + name +
                                        ", not the wire: route it through " + ifname +
                                        " or name " + name + " as the wire");
  }
  UnderlayHop hop;
  hop.next_hop = IpAddress::v4(gw ? gw : dst);
  // Its neighbour entry (ip neigh): the probes have just made the kernel resolve it.
  NlRequest q(RTM_GETNEIGH, NLM_F_DUMP);
  q.hdr()->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  ndmsg nd{};
  nd.ndm_family = AF_INET;
  nd.ndm_ifindex = want;
  q.put(nd);
  bool found = false;
  uint16_t state = 0;
  const uint32_t nh = hop.next_hop.v4NetworkOrder();
  err = rtnlQuery(nl.fd, q, [&](nlmsghdr* h) {
    if (h->nlmsg_type != RTM_NEWNEIGH) return;
    auto* n = static_cast<ndmsg*>(NLMSG_DATA(h));
    if (n->ndm_ifindex != want || n->ndm_family != AF_INET) return;
    int len = int(h->nlmsg_len - NLMSG_LENGTH(sizeof(*n)));
    uint32_t addr = 0;
    MacAddress mac;
    bool have_mac = false;
    for (auto* a = reinterpret_cast<rtattr*>(reinterpret_cast<char*>(n) + NLMSG_ALIGN(sizeof(*n)));
         RTA_OK(a, len); a = RTA_NEXT(a, len)) {
      if (a->rta_type == NDA_DST && RTA_PAYLOAD(a) == 4) std::memcpy(&addr, RTA_DATA(a), 4);
      if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6) {
        std::memcpy(mac.bytes.data(), RTA_DATA(a), 6);
        have_mac = true;
      }
    }
    if (addr != nh || !have_mac) return;
    state = n->ndm_state;
    if (n->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT |
                        NUD_NOARP)) {
      hop.mac = mac;
      found = true;
    }
  });
  if (err)
    return makeError(err, what + ": cannot read the neighbour table (" +
                              std::string(strerror(-err)) + ")");
  if (!found && unresolved) *unresolved = hop.next_hop;
  if (!found)
    return makeError(-EHOSTUNREACH,
                     what + ": next hop " + hop.next_hop.toString() + " has no MAC address in " +
                         "the kernel's neighbour table (state " + std::to_string(state) +
                         "): check that it answers ARP on " + ifname);
  return hop;
}

}  // namespace fastpath
