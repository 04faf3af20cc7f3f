// SPDX-License-Identifier: GPL-2.0-only
// A small rtnetlink client: one request, one acknowledgement, over a NETLINK_ROUTE socket.
// The daemon's hosts (veth pairs, namespaces) and wires (VLAN devices) are made with it.
// Not a public header.
#pragma once

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace fastpath {

/// One rtnetlink request: a header, a fixed part (put) and attributes, nests included.
class NlRequest {
 public:
  NlRequest(uint16_t type, uint16_t flags);
  template <typename T>
  void put(const T& v) {
    append(&v, sizeof(v));
  }
  void attr(uint16_t type, const void* data, size_t len);
  void attrStr(uint16_t type, const std::string& s) { attr(type, s.c_str(), s.size() + 1); }
  void attrU32(uint16_t type, uint32_t v) { attr(type, &v, sizeof(v)); }
  size_t nestStart(uint16_t type);
  void nestEnd(size_t off);
  nlmsghdr* hdr() { return reinterpret_cast<nlmsghdr*>(buf_.data()); }

 private:
  void append(const void* data, size_t len, bool align = true);
  std::vector<uint8_t> buf_;
};

/// Sends one request and waits for its acknowledgement: 0 or a negative errno.
int rtnlTalk(int fd, NlRequest& req);
/// A NETLINK_ROUTE socket with a 2 s receive timeout, or a negative errno.
int rtnlOpen();

/// A descriptor closed at the end of its scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

/// Sets the link up (and its MTU when not 0).
int linkUp(int nl, int ifindex, uint32_t mtu);
int deleteLink(int nl, int ifindex);
/// Makes veth pair `name` <-> `peer` with this MTU, `peer` in namespace `peer_netns` (a
/// descriptor; < 0: this namespace).
int createVeth(int nl, const std::string& name, const std::string& peer, int peer_netns,
               uint32_t mtu);
/// Every link of this namespace with its alias (RTM_GETLINK dump): {name, alias}. Read over
/// rtnetlink, not /sys/class/net, which shows the namespace that mounted /sys.
std::vector<std::pair<std::string, std::string>> linkAliases(int nl);
/// Sets the link's MAC (when not null) and its alias (IFLA_IFALIAS: what tells a later run
/// that it made the link).
int setLinkAttrs(int nl, int ifindex, const uint8_t* mac, const std::string& alias);

}  // namespace fastpath
