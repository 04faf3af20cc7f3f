// SPDX-License-Identifier: GPL-2.0-only
// readInterfaceFacts: one RTM_GETLINK for the interface (flags, master, XDP) and a dump
// of the main table's routes per family (which interface the default route leaves by).
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include "daemon/attach_policy.h"

namespace fastpath {

namespace {

struct NlSocket {
  int fd = -1;
  ~NlSocket() {
    if (fd >= 0) ::close(fd);
  }
};

// Sends one request and calls `each` for every message of the reply (a dump's too) until
// NLMSG_DONE or, for a plain request, the one answer. Returns 0 or a negative errno.
int talk(int fd, nlmsghdr* req, const std::function<void(const nlmsghdr*)>& each) {
  static uint32_t seq = 0;
  req->nlmsg_seq = ++seq;
  if (::send(fd, req, req->nlmsg_len, 0) < 0) return -errno;
  const bool dump = req->nlmsg_flags & NLM_F_DUMP;
  alignas(nlmsghdr) char buf[32768];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    int len = int(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
      if (h->nlmsg_seq != req->nlmsg_seq) continue;
      if (h->nlmsg_type == NLMSG_DONE) return 0;
      if (h->nlmsg_type == NLMSG_ERROR) {
        const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
        return e->error;
      }
      each(h);
      if (!dump) return 0;
    }
  }
}

template <typename F>
void forEachAttr(const rtattr* a, int len, F f) {
  for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) f(a);
}

int readLink(int fd, int ifindex, InterfaceFacts* out) {
  struct {
    nlmsghdr h;
    ifinfomsg i;
  } req{};
  req.h.nlmsg_len = sizeof(req);
  req.h.nlmsg_type = RTM_GETLINK;
  req.h.nlmsg_flags = NLM_F_REQUEST;
  req.i.ifi_family = AF_UNSPEC;
  req.i.ifi_index = ifindex;
  return talk(fd, &req.h, [&](const nlmsghdr* h) {
    if (h->nlmsg_type != RTM_NEWLINK) return;
    const auto* ifi = static_cast<const ifinfomsg*>(NLMSG_DATA(h));
    out->loopback = ifi->ifi_flags & IFF_LOOPBACK;
    out->bond_member = ifi->ifi_flags & IFF_SLAVE;
    forEachAttr(IFLA_RTA(ifi), int(IFLA_PAYLOAD(h)), [&](const rtattr* a) {
      if (a->rta_type == IFLA_MASTER) {
        char name[IF_NAMESIZE] = {};
        uint32_t master = 0;
        std::memcpy(&master, RTA_DATA(a), sizeof(master));
        if (::if_indextoname(master, name)) out->master = name;
      } else if (a->rta_type == IFLA_LINKINFO) {
        forEachAttr(static_cast<const rtattr*>(RTA_DATA(a)), int(RTA_PAYLOAD(a)),
                    [&](const rtattr* li) {
                      if (li->rta_type == IFLA_INFO_SLAVE_KIND &&
                          std::strncmp(static_cast<const char*>(RTA_DATA(li)), "bond",
                                       RTA_PAYLOAD(li)) == 0)
                        out->bond_member = true;
                    });
      } else if (a->rta_type == IFLA_XDP) {
        forEachAttr(static_cast<const rtattr*>(RTA_DATA(a)), int(RTA_PAYLOAD(a)),
                    [&](const rtattr* x) {
                      if (x->rta_type == IFLA_XDP_PROG_ID || x->rta_type == IFLA_XDP_SKB_PROG_ID ||
                          x->rta_type == IFLA_XDP_DRV_PROG_ID || x->rta_type == IFLA_XDP_HW_PROG_ID) {
                        uint32_t id = 0;
                        std::memcpy(&id, RTA_DATA(x), sizeof(id));
                        if (id) out->xdp_prog_id = id;
                      }
                    });
      }
    });
  });
}

int readDefaultRoutes(int fd, int family, int ifindex, InterfaceFacts* out) {
  struct {
    nlmsghdr h;
    rtmsg r;
  } req{};
  req.h.nlmsg_len = sizeof(req);
  req.h.nlmsg_type = RTM_GETROUTE;
  req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.r.rtm_family = uint8_t(family);
  return talk(fd, &req.h, [&](const nlmsghdr* h) {
    if (h->nlmsg_type != RTM_NEWROUTE) return;
    const auto* rt = static_cast<const rtmsg*>(NLMSG_DATA(h));
    if (rt->rtm_dst_len != 0 || rt->rtm_type != RTN_UNICAST) return;
    uint32_t table = rt->rtm_table;
    bool by_it = false;
    forEachAttr(RTM_RTA(rt), int(RTM_PAYLOAD(h)), [&](const rtattr* a) {
      if (a->rta_type == RTA_TABLE) {
        std::memcpy(&table, RTA_DATA(a), sizeof(table));
      } else if (a->rta_type == RTA_OIF) {
        int oif = 0;
        std::memcpy(&oif, RTA_DATA(a), sizeof(oif));
        by_it |= oif == ifindex;
      } else if (a->rta_type == RTA_MULTIPATH) {
        auto* nh = static_cast<const rtnexthop*>(RTA_DATA(a));
        int len = int(RTA_PAYLOAD(a));
        while (RTNH_OK(nh, len)) {
          by_it |= nh->rtnh_ifindex == ifindex;
          len -= NLMSG_ALIGN(nh->rtnh_len);
          nh = RTNH_NEXT(nh);
        }
      }
    });
    if (by_it && table == RT_TABLE_MAIN) out->default_route = true;
  });
}

}  // namespace

Result<InterfaceFacts> readInterfaceFacts(const std::string& ifname) {
  InterfaceFacts f;
  f.ifname = ifname;
  const unsigned ifindex = ::if_nametoindex(ifname.c_str());
  if (ifindex == 0)
    return makeError(-ENODEV, "no interface " + ifname + " in fastpathd's network namespace");
  NlSocket nl;
  nl.fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (nl.fd < 0) return makeError(-errno, "rtnetlink socket: " + errnoText(errno));
  if (int rc = readLink(nl.fd, int(ifindex), &f); rc < 0)
    return makeError(rc, ifname + ": RTM_GETLINK: " + errnoText(-rc));
  for (int family : {AF_INET, AF_INET6})
    if (int rc = readDefaultRoutes(nl.fd, family, int(ifindex), &f); rc < 0)
      return makeError(rc, "reading the routes of fastpathd's namespace: " + errnoText(-rc));
  return f;
}

}  // namespace fastpath
