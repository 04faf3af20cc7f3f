// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/underlay_watch.h"

#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/neighbour.h>
#include <netlink/socket.h>
#include <sys/socket.h>

#include <cerrno>

namespace fastpath {

Result<std::unique_ptr<UnderlayWatch>> UnderlayWatch::open() {
  std::unique_ptr<UnderlayWatch> w(new UnderlayWatch());
  w->sock_ = nl_socket_alloc();
  w->req_ = nl_socket_alloc();
  if (!w->sock_ || !w->req_) return makeError(-ENOMEM, "underlay watch: cannot allocate a netlink socket");
  nl_socket_disable_seq_check(w->sock_);
  nl_socket_modify_cb(w->sock_, NL_CB_VALID, NL_CB_CUSTOM, &UnderlayWatch::onMessage, w.get());
  int err = nl_connect(w->sock_, NETLINK_ROUTE);
  if (err >= 0) err = nl_socket_add_memberships(w->sock_, RTNLGRP_IPV4_ROUTE, RTNLGRP_NEIGH, 0);
  if (err >= 0) err = nl_socket_set_nonblocking(w->sock_);
  if (err >= 0) err = nl_connect(w->req_, NETLINK_ROUTE);
  if (err < 0)
    return makeError(-EIO, std::string("underlay watch: cannot subscribe to the kernel's route and "
                                 "neighbour changes (") + nl_geterror(err) + ")");
  return w;
}

UnderlayWatch::~UnderlayWatch() {
  if (sock_) nl_socket_free(sock_);
  if (req_) nl_socket_free(req_);
}

int UnderlayWatch::onMessage(nl_msg* msg, void* self) {
  auto* w = static_cast<UnderlayWatch*>(self);
  switch (nlmsg_hdr(msg)->nlmsg_type) {
    case RTM_NEWROUTE:
    case RTM_DELROUTE:
    case RTM_NEWNEIGH:
    case RTM_DELNEIGH:
      w->changed_ = true;
      ++w->notifications_;
      break;
    default:
      break;
  }
  return NL_OK;
}

bool UnderlayWatch::changed() {
  // One read per batch the kernel queued, bounded: a storm of changes is looked at once
  // per call, the rest at the next.
  nl_cb* cb = nl_socket_get_cb(sock_);
  for (int i = 0; i < 256; ++i) {
    const int n = nl_recvmsgs_report(sock_, cb);
    if (n > 0) continue;
    // 0 or -NLE_AGAIN: nothing more queued. Anything else (the kernel dropped notifications,
    // its buffer full) is a reason to look again, not to stop watching.
    if (n < 0 && n != -NLE_AGAIN) changed_ = true;
    break;
  }
  nl_cb_put(cb);
  const bool c = changed_;
  changed_ = false;
  return c;
}

int UnderlayWatch::resolve(int ifindex, const IpAddress& next_hop) {
  rtnl_neigh* n = rtnl_neigh_alloc();
  nl_addr* dst = nl_addr_build(AF_INET, next_hop.bytes.data(), 4);
  if (!n || !dst) {
    if (n) rtnl_neigh_put(n);
    if (dst) nl_addr_put(dst);
    return -ENOMEM;
  }
  rtnl_neigh_set_ifindex(n, ifindex);
  rtnl_neigh_set_family(n, AF_INET);
  rtnl_neigh_set_dst(n, dst);
  // NTF_USE: the kernel starts resolving as for a frame to send (neigh_event_send), and
  // leaves an entry it already has as it is.
  rtnl_neigh_set_flags(n, NTF_USE);
  rtnl_neigh_set_state(n, NUD_NONE);  // libnl's default would be a permanent entry
  const int err = rtnl_neigh_add(req_, n, NLM_F_CREATE);
  nl_addr_put(dst);
  rtnl_neigh_put(n);
  return err < 0 ? -EIO : 0;
}

}  // namespace fastpath
