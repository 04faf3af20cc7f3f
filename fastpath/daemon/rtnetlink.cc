// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/rtnetlink.h"

#include <linux/if_link.h>
#include <linux/veth.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>

namespace fastpath {

NlRequest::NlRequest(uint16_t type, uint16_t flags) {
  buf_.resize(NLMSG_SPACE(0));
  hdr()->nlmsg_type = type;
  hdr()->nlmsg_flags = uint16_t(NLM_F_REQUEST | NLM_F_ACK | flags);
  hdr()->nlmsg_len = NLMSG_LENGTH(0);
}

void NlRequest::attr(uint16_t type, const void* data, size_t len) {
  rtattr a{};
  a.rta_type = type;
  a.rta_len = uint16_t(RTA_LENGTH(len));
  append(&a, sizeof(a), false);
  append(data, len);
}

size_t NlRequest::nestStart(uint16_t type) {
  const size_t off = hdr()->nlmsg_len;
  attr(type, nullptr, 0);
  return off;
}

void NlRequest::nestEnd(size_t off) {
  reinterpret_cast<rtattr*>(buf_.data() + off)->rta_len = uint16_t(hdr()->nlmsg_len - off);
}

void NlRequest::append(const void* data, size_t len, bool align) {
  const size_t at = hdr()->nlmsg_len;
  const size_t end = align ? NLMSG_ALIGN(at + len) : at + len;
  buf_.resize(std::max(buf_.size(), end));
  if (len) std::memcpy(buf_.data() + at, data, len);
  hdr()->nlmsg_len = uint32_t(end);
}

// Sends one request on a NETLINK_ROUTE socket and waits for its acknowledgement.
int rtnlTalk(int fd, NlRequest& req) {
  static uint32_t seq = 1;
  req.hdr()->nlmsg_seq = seq++;
  sockaddr_nl sa{};
  sa.nl_family = AF_NETLINK;
  if (sendto(fd, req.hdr(), req.hdr()->nlmsg_len, 0, reinterpret_cast<sockaddr*>(&sa),
             sizeof(sa)) < 0)
    return -errno;
  char buf[8192];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, n);
         h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_seq != req.hdr()->nlmsg_seq) continue;
      if (h->nlmsg_type == NLMSG_ERROR) return reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
    }
  }
}

int rtnlOpen() {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return -errno;
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

int linkUp(int nl, int ifindex, uint32_t mtu) {
  NlRequest r(RTM_NEWLINK, 0);
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = ifindex;
  ifi.ifi_flags = IFF_UP;
  ifi.ifi_change = IFF_UP;
  r.put(ifi);
  if (mtu) r.attrU32(IFLA_MTU, mtu);
  return rtnlTalk(nl, r);
}

int deleteLink(int nl, int ifindex) {
  NlRequest r(RTM_DELLINK, 0);
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = ifindex;
  r.put(ifi);
  return rtnlTalk(nl, r);
}

int createVeth(int nl, const std::string& name, const std::string& peer, int peer_netns,
               uint32_t mtu) {
  NlRequest r(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  r.put(ifi);
  r.attrStr(IFLA_IFNAME, name);
  r.attrU32(IFLA_MTU, mtu);
  const size_t li = r.nestStart(IFLA_LINKINFO);
  r.attrStr(IFLA_INFO_KIND, "veth");
  const size_t data = r.nestStart(IFLA_INFO_DATA);
  const size_t pe = r.nestStart(VETH_INFO_PEER);
  ifinfomsg pifi{};
  pifi.ifi_family = AF_UNSPEC;
  r.put(pifi);
  r.attrStr(IFLA_IFNAME, peer);
  r.attrU32(IFLA_MTU, mtu);
  if (peer_netns >= 0) r.attrU32(IFLA_NET_NS_FD, uint32_t(peer_netns));
  r.nestEnd(pe);
  r.nestEnd(data);
  r.nestEnd(li);
  return rtnlTalk(nl, r);
}

std::vector<std::pair<std::string, std::string>> linkAliases(int nl) {
  std::vector<std::pair<std::string, std::string>> out;
  NlRequest r(RTM_GETLINK, NLM_F_DUMP);
  r.hdr()->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  r.put(ifi);
  static uint32_t seq = 0x40000000;
  r.hdr()->nlmsg_seq = ++seq;
  sockaddr_nl sa{};
  sa.nl_family = AF_NETLINK;
  if (sendto(nl, r.hdr(), r.hdr()->nlmsg_len, 0, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) < 0)
    return out;
  std::vector<char> buf(32768);
  for (;;) {
    ssize_t n = recv(nl, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf.data()); NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_seq != r.hdr()->nlmsg_seq) continue;
      if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) return out;
      if (h->nlmsg_type != RTM_NEWLINK) continue;
      auto* info = static_cast<ifinfomsg*>(NLMSG_DATA(h));
      int len = int(IFLA_PAYLOAD(h));
      std::string name, alias;
      for (auto* a = IFLA_RTA(info); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
        const char* v = static_cast<const char*>(RTA_DATA(a));
        const size_t vl = strnlen(v, RTA_PAYLOAD(a));
        if (a->rta_type == IFLA_IFNAME) name.assign(v, vl);
        if (a->rta_type == IFLA_IFALIAS) alias.assign(v, vl);
      }
      out.emplace_back(name, alias);
    }
  }
}

int setLinkAttrs(int nl, int ifindex, const uint8_t* mac, const std::string& alias) {
  NlRequest r(RTM_NEWLINK, 0);
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = ifindex;
  r.put(ifi);
  if (mac) r.attr(IFLA_ADDRESS, mac, 6);
  r.attr(IFLA_IFALIAS, alias.data(), alias.size());
  return rtnlTalk(nl, r);
}

}  // namespace fastpath
