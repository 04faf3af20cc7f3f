// SPDX-License-Identifier: GPL-2.0-only
// Classifier lifecycle: open the skeleton, attach through libxdp, detach.
#include "fastpath/classifier.h"

#include <bpf/libbpf.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <xdp/libxdp.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "classifier_owner.h"
#include "fastpath/libbpf_log.h"
#include "fastpath/log.h"
#include "fp_classify.skel.h"

namespace fastpath {
namespace {

constexpr unsigned long kBpffsMagic = 0xcafe4a11;

/// The advice that goes with an errno from loading or attaching.
std::string advice(int err) {
  switch (err < 0 ? -err : err) {
    case EPERM:
    case EACCES: return "run as root (needs CAP_NET_ADMIN, CAP_BPF and CAP_SYS_ADMIN)";
    case ENODEV: return "the interface is gone; check `ip link` in this network namespace";
    case ERANGE:
      return "the MTU is too large for native XDP on this driver (no multi-buffer support); "
             "lower the MTU or allow generic mode";
    case EBUSY:
    case EEXIST:
      return "another XDP program holds the interface; remove it or load it through libxdp";
    default: return "run with debug logging for libbpf/libxdp details";
  }
}

Status checkOptions(const ClassifierOptions& o) {
  if (o.no_xsk_policy != FP_NO_XSK_PASS && o.no_xsk_policy != FP_NO_XSK_DROP)
    return makeError(-EINVAL, "classifier: no_xsk_policy " + std::to_string(o.no_xsk_policy) +
                                  " is neither FP_NO_XSK_PASS (0) nor FP_NO_XSK_DROP (1)");
  for (uint32_t a : {o.broadcast_action, o.multicast_action})
    if (a != 0 && a != FP_ACTION_CONTROL && a != FP_ACTION_PASS)
      return makeError(-EINVAL, "classifier: broadcast/multicast action " + std::to_string(a) +
                                    " is not 0, FP_ACTION_CONTROL (1) or FP_ACTION_PASS (2)");
  return {};
}

/// libxdp keeps its dispatcher state in bpffs; without it attach fails obscurely.
Status checkBpffs(const std::string& ifname) {
  const char* dir = std::getenv("LIBXDP_BPFFS");
  if (!dir) dir = "/sys/fs/bpf";
  struct statfs st {};
  if (statfs(dir, &st) != 0 || static_cast<unsigned long>(st.f_type) != kBpffsMagic)
    return makeError(-ENOENT, std::string("classifier: cannot attach to ") + ifname +
                                  ": bpffs is not mounted at " + dir +
                                  " (libxdp keeps its dispatcher there); run `mount -t bpf "
                                  "bpf /sys/fs/bpf` (scripts/install-deps.sh does it)");
  return {};
}

fp_config makeConfig(const ClassifierOptions& o) {
  fp_config cfg{};
  cfg.no_xsk_policy = o.no_xsk_policy;
  cfg.broadcast_action = o.broadcast_action;
  cfg.multicast_action = o.multicast_action;
  cfg.wire = o.wire;
  cfg.wire_vlan = o.wire_vlan;
  cfg.wire_ifindex = o.wire_ifindex;
  cfg.encap = o.encap;
  cfg.underlay_addr = o.underlay_addr;
  cfg.vxlan_port = htons(o.vxlan_port);
  std::memcpy(cfg.vxlan_hdr, o.vxlan_hdr.data(), sizeof(cfg.vxlan_hdr));
  if (o.port_mac) {
    cfg.port_mac_set = 1;
    std::memcpy(cfg.port_mac, o.port_mac->bytes.data(), 6);
  }
  return cfg;
}

/// The interface's MAC (SIOCGIFHWADDR).
Result<MacAddress> interfaceMac(const std::string& ifname) {
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return makeError(-errno, "classifier: socket: " + errnoText(errno));
  ifreq ifr{};
  std::snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname.c_str());
  const int rc = ::ioctl(s, SIOCGIFHWADDR, &ifr);
  const int err = errno;
  ::close(s);
  if (rc != 0)
    return makeError(-err, "classifier: reading the MAC of " + ifname + ": " + errnoText(err));
  MacAddress m;
  std::memcpy(m.bytes.data(), ifr.ifr_hwaddr.sa_data, 6);
  return m;
}

}  // namespace

Result<std::unique_ptr<Classifier>> Classifier::open(const ClassifierOptions& options) {
  if (Status s = checkOptions(options); !s) return s.error();
  std::unique_ptr<Classifier> c(new Classifier());
  c->ifname_ = options.ifname;
  c->skel_ = fp_classify__open();
  if (!c->skel_) {
    int err = -errno;
    return makeError(err, "classifier: cannot open the embedded BPF object: " + errnoText(err));
  }
  return c;
}

Result<std::unique_ptr<Classifier>> Classifier::openForTest(const ClassifierOptions& options) {
  auto c = open(options);
  if (!c) return c.error();
  if (int err = fp_classify__load(c.value()->skel_); err)
    return makeError(err, "classifier: cannot load xdp_fp_classify into the kernel: " +
                              errnoText(err) + "; " + advice(err));
  if (Status s = c.value()->setConfig(makeConfig(options)); !s) return s.error();
  return c;
}

Result<std::unique_ptr<Classifier>> Classifier::attach(const ClassifierOptions& options) {
  const std::string& ifname = options.ifname;
  if (ifname.empty() || ifname.size() >= IF_NAMESIZE)
    return makeError(-EINVAL, "classifier: interface name '" + ifname + "' is empty or too long");
  int ifindex = static_cast<int>(if_nametoindex(ifname.c_str()));
  if (ifindex == 0)
    return makeError(-ENODEV, "classifier: interface '" + ifname +
                                  "' does not exist in this network namespace; check the name "
                                  "with `ip link`");
  if (geteuid() != 0)
    return makeError(-EPERM, "classifier: cannot attach to " + ifname + ": " + advice(EPERM));
  if (Status s = checkBpffs(ifname); !s) return s.error();

  OwnerFile owner(options.run_dir, ifname);
  if (Status s = cleanStaleAttachment(ifindex, ifname, owner); !s) return s.error();

  auto opened = open(options);
  if (!opened) return opened.error();
  std::unique_ptr<Classifier> c = std::move(opened.value());
  c->ifindex_ = ifindex;
  Status st = c->attachMode(XDP_MODE_NATIVE);
  if (!st && options.allow_generic && st.error().code != -EPERM && st.error().code != -ENODEV) {
    // The object was loaded as a dispatcher extension for the failed attempt; start over.
    fp_classify__destroy(c->skel_);
    c->skel_ = nullptr;
    auto again = open(options);
    if (!again) return again.error();
    again.value()->ifindex_ = ifindex;
    c = std::move(again.value());
    Status generic = c->attachMode(XDP_MODE_SKB);
    if (!generic) return generic.error();
    pr_warn(
        "classifier: native XDP refused on %s (%s); running in generic (skb) mode, "
        "which is slower",
        ifname.c_str(), st.error().message.c_str());
    st = generic;
  }
  if (!st) return st.error();
  ClassifierOptions with_mac = options;
  if (!with_mac.port_mac) {
    auto mac = interfaceMac(ifname);
    if (!mac) return mac.error();
    with_mac.port_mac = *mac;
  }
  if (Status s = c->setConfig(makeConfig(with_mac)); !s) return s.error();
  if (Status s = owner.write(); !s) return s.error();
  c->owner_file_ = owner.path();
  pr_info("classifier: xdp_fp_classify attached to %s (ifindex %d, %s mode, %s)", ifname.c_str(),
          ifindex, c->mode().c_str(),
          c->viaDispatcher() ? "libxdp dispatcher"
                             : "alone: the kernel refused libxdp's dispatcher, so no other "
                               "XDP program can share this interface");
  return c;
}

Status Classifier::attachMode(int xdp_mode) {
  prog_ = xdp_program__from_bpf_obj(skel_->obj, "xdp");
  if (int err = libxdp_get_error(prog_); err) {
    prog_ = nullptr;
    return makeError(err, "classifier: libxdp cannot use the embedded object: " + errnoText(err));
  }
  int err;
  {
    // libxdp first tries its dispatcher and, where the kernel refuses it, reports the
    // failed probe load at warning level before attaching the program alone; the result
    // is said in one line by open() (or by the error below).
    QuietLibbpfLogs quiet;
    err = xdp_program__attach(prog_, ifindex_, static_cast<xdp_attach_mode>(xdp_mode), 0);
  }
  if (err) {
    xdp_program__close(prog_);
    prog_ = nullptr;
    const char* m = xdp_mode == XDP_MODE_NATIVE ? "native" : "generic";
    return makeError(err, "classifier: attaching xdp_fp_classify to " + ifname_ + " in " + m +
                              " mode failed: " + errnoText(err) + "; " + advice(err));
  }
  attached_ = true;
  xdp_mode_ = xdp_mode;
  return {};
}

void Classifier::detach() {
  if (!attached_) return;
  char name[IF_NAMESIZE];
  if (!if_indextoname(unsigned(ifindex_), name))
    // The interface was deleted (its XDP program with it) or left the namespace.
    pr_info("classifier: %s (ifindex %d) is gone; nothing to detach", ifname_.c_str(), ifindex_);
  else if (int err =
               xdp_program__detach(prog_, ifindex_, static_cast<xdp_attach_mode>(xdp_mode_), 0))
    pr_warn("classifier: detaching xdp_fp_classify from %s failed: %s", ifname_.c_str(),
            errnoText(err).c_str());
  attached_ = false;
  if (!owner_file_.empty()) unlink(owner_file_.c_str());
}

Classifier::~Classifier() {
  detach();
  if (prog_) xdp_program__close(prog_);
  if (skel_) fp_classify__destroy(skel_);
}

int Classifier::progFd() const {
  if (prog_) return xdp_program__fd(prog_);
  return skel_ ? bpf_program__fd(skel_->progs.xdp_fp_classify) : -1;
}

int Classifier::xsksMapFd() const { return skel_ ? bpf_map__fd(skel_->maps.xsks_map) : -1; }

bool Classifier::viaDispatcher() const {
  if (!attached_) return false;
  xdp_multiprog* mp = xdp_multiprog__get_from_ifindex(ifindex_);
  if (!mp || libxdp_get_error(mp)) return false;
  bool dispatcher = !xdp_multiprog__is_legacy(mp);
  xdp_multiprog__close(mp);
  return dispatcher;
}

std::string Classifier::mode() const {
  if (!attached_) return "none";
  return xdp_mode_ == XDP_MODE_NATIVE ? "native" : "generic";
}

}  // namespace fastpath
