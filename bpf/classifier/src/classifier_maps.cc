// SPDX-License-Identifier: GPL-2.0-only
// Classifier maps from userspace: control rules, config, per-CPU counters.
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <tuple>

#include "fastpath/classifier.h"
#include "fp_classify.skel.h"

namespace fastpath {
namespace {

constexpr unsigned kIpProtos = 256;

std::string mapError(const char* what, const char* map, int err) {
  return std::string("classifier: ") + what + " " + map + " failed: " + std::strerror(-err);
}

uint32_t actionOf(const ControlRule& r) {
  return r.pass_to_kernel ? FP_ACTION_PASS : FP_ACTION_CONTROL;
}

fp_addr_key addrKey(const IpAddress& a) {
  fp_addr_key k{};
  k.family = a.family == Family::kIpv4 ? AF_INET : AF_INET6;
  std::memcpy(k.addr, a.bytes.data(), a.family == Family::kIpv4 ? 4 : 16);
  return k;
}

/// Keys of one rule map, as raw bytes, so add-then-delete works the same for all.
struct MapKeys {
  bpf_map* map;
  std::set<std::string> wanted;
};

std::string raw(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }

Status validate(const ControlRule& r) {
  switch (r.kind) {
    case ControlRule::Kind::kEtherType:
      if (r.ethertype < 0x0600)
        return makeError(-EINVAL, "classifier: rule EtherType 0x" + std::to_string(r.ethertype) +
                                      " is a length, not an EtherType (must be >= 0x0600)");
      return {};
    case ControlRule::Kind::kIpProto: return {};
    case ControlRule::Kind::kL4Port:
      if (r.ip_proto != IPPROTO_UDP && r.ip_proto != IPPROTO_TCP)
        return makeError(-EINVAL, "classifier: port rule with IP protocol " +
                                      std::to_string(r.ip_proto) + ": only UDP (17) and TCP (6)");
      return {};
    case ControlRule::Kind::kLocalAddress:
      if (r.address.isUnspecified())
        return makeError(-EINVAL, "classifier: local address rule with the unspecified address");
      return {};
  }
  return makeError(-EINVAL, "classifier: unknown rule kind");
}

}  // namespace

Status Classifier::setRules(const std::vector<ControlRule>& rules) {
  size_t n_eth = 0, n_port = 0, n_addr = 0;
  for (const ControlRule& r : rules) {
    if (Status s = validate(r); !s) return s;
    n_eth += r.kind == ControlRule::Kind::kEtherType;
    n_port += r.kind == ControlRule::Kind::kL4Port;
    n_addr += r.kind == ControlRule::Kind::kLocalAddress;
  }
  if (n_eth > FP_MAX_ETHERTYPE_RULES || n_port > FP_MAX_L4_PORT_RULES ||
      n_addr > FP_MAX_LOCAL_ADDRS)
    return makeError(
        -E2BIG, "classifier: too many rules (limits: " + std::to_string(FP_MAX_ETHERTYPE_RULES) +
                    " EtherTypes, " + std::to_string(FP_MAX_L4_PORT_RULES) + " ports, " +
                    std::to_string(FP_MAX_LOCAL_ADDRS) + " local addresses)");

  MapKeys eth{skel_->maps.fp_ctrl_ethertypes, {}};
  MapKeys port{skel_->maps.fp_ctrl_l4_ports, {}};
  MapKeys addr{skel_->maps.fp_local_addrs, {}};
  uint32_t protos[kIpProtos] = {};

  // 1. add or update every wanted entry
  for (const ControlRule& r : rules) {
    uint32_t action = actionOf(r);
    MapKeys* mk = nullptr;
    std::string key;
    switch (r.kind) {
      case ControlRule::Kind::kEtherType: {
        uint16_t k = htons(r.ethertype);
        mk = &eth;
        key = raw(&k, sizeof(k));
        break;
      }
      case ControlRule::Kind::kIpProto: protos[r.ip_proto] = action; continue;
      case ControlRule::Kind::kL4Port: {
        fp_l4_port_key k{};
        k.l4_proto = r.ip_proto;
        k.port = htons(r.port);
        mk = &port;
        key = raw(&k, sizeof(k));
        break;
      }
      case ControlRule::Kind::kLocalAddress: {
        fp_addr_key k = addrKey(r.address);
        mk = &addr;
        key = raw(&k, sizeof(k));
        break;
      }
    }
    mk->wanted.insert(key);
    if (int err = bpf_map__update_elem(mk->map, key.data(), key.size(), &action, sizeof(action), 0))
      return makeError(err, mapError("updating", bpf_map__name(mk->map), err));
  }
  for (uint32_t p = 0; p < kIpProtos; ++p) {
    uint32_t cur = 0;
    bpf_map__lookup_elem(skel_->maps.fp_ctrl_ip_protos, &p, sizeof(p), &cur, sizeof(cur), 0);
    if (cur == protos[p]) continue;
    if (int err = bpf_map__update_elem(skel_->maps.fp_ctrl_ip_protos, &p, sizeof(p), &protos[p],
                                       sizeof(protos[p]), 0))
      return makeError(err, mapError("updating", "fp_ctrl_ip_protos", err));
  }
  // 2. delete what is no longer wanted
  for (MapKeys* mk : {&eth, &port, &addr}) {
    size_t ksz = bpf_map__key_size(mk->map);
    std::string cur(ksz, '\0'), next(ksz, '\0');
    std::vector<std::string> stale;
    const void* prev = nullptr;
    while (bpf_map__get_next_key(mk->map, prev, next.data(), ksz) == 0) {
      if (!mk->wanted.count(next)) stale.push_back(next);
      cur = next;
      prev = cur.data();
    }
    for (const std::string& k : stale) {
      int err = bpf_map__delete_elem(mk->map, k.data(), ksz, 0);
      if (err && err != -ENOENT)
        return makeError(err, mapError("deleting from", bpf_map__name(mk->map), err));
    }
  }
  return {};
}

std::vector<ControlRule> Classifier::rules() const {
  std::vector<ControlRule> out;
  auto each = [](bpf_map* map, auto&& fn) {
    size_t ksz = bpf_map__key_size(map);
    std::string cur(ksz, '\0'), next(ksz, '\0');
    const void* prev = nullptr;
    while (bpf_map__get_next_key(map, prev, next.data(), ksz) == 0) {
      uint32_t action = 0;
      if (bpf_map__lookup_elem(map, next.data(), ksz, &action, sizeof(action), 0) == 0)
        fn(next.data(), action);
      cur = next;
      prev = cur.data();
    }
  };
  each(skel_->maps.fp_ctrl_ethertypes, [&](const void* k, uint32_t action) {
    ControlRule r;
    r.kind = ControlRule::Kind::kEtherType;
    r.ethertype = ntohs(*static_cast<const uint16_t*>(k));
    r.pass_to_kernel = action == FP_ACTION_PASS;
    out.push_back(r);
  });
  for (uint32_t p = 0; p < kIpProtos; ++p) {
    uint32_t action = 0;
    if (bpf_map__lookup_elem(skel_->maps.fp_ctrl_ip_protos, &p, sizeof(p), &action, sizeof(action),
                             0) == 0 &&
        action) {
      ControlRule r;
      r.kind = ControlRule::Kind::kIpProto;
      r.ip_proto = static_cast<uint8_t>(p);
      r.pass_to_kernel = action == FP_ACTION_PASS;
      out.push_back(r);
    }
  }
  each(skel_->maps.fp_ctrl_l4_ports, [&](const void* k, uint32_t action) {
    fp_l4_port_key key;
    std::memcpy(&key, k, sizeof(key));
    ControlRule r;
    r.kind = ControlRule::Kind::kL4Port;
    r.ip_proto = key.l4_proto;
    r.port = ntohs(key.port);
    r.pass_to_kernel = action == FP_ACTION_PASS;
    out.push_back(r);
  });
  each(skel_->maps.fp_local_addrs, [&](const void* k, uint32_t action) {
    fp_addr_key key;
    std::memcpy(&key, k, sizeof(key));
    ControlRule r;
    r.kind = ControlRule::Kind::kLocalAddress;
    r.address.family = key.family == AF_INET ? Family::kIpv4 : Family::kIpv6;
    std::memcpy(r.address.bytes.data(), key.addr, key.family == AF_INET ? 4 : 16);
    r.pass_to_kernel = action == FP_ACTION_PASS;
    out.push_back(r);
  });
  return out;
}

Status Classifier::setConfig(const fp_config& config) {
  uint32_t zero = 0;
  if (int err = bpf_map__update_elem(skel_->maps.fp_config, &zero, sizeof(zero), &config,
                                     sizeof(config), 0))
    return makeError(err, mapError("updating", "fp_config", err));
  return {};
}

Status Classifier::setWireTags(const std::map<uint16_t, WireTag>& tags) {
  bpf_map* map = skel_->maps.fp_wire_tags;
  for (const auto& [vid, tag] : tags) {
    if (vid == 0 || vid > FP_MAX_WIRE_TAGS)
      return makeError(-EINVAL, "classifier: VLAN " + std::to_string(vid) + " is not 1..4094");
    fp_wire_tag v{};
    std::memcpy(v.peer_mac, tag.peer_mac.bytes.data(), 6);
    v.ifindex = tag.ifindex;
    if (int err = bpf_map__update_elem(map, &vid, sizeof(vid), &v, sizeof(v), 0))
      return makeError(err, mapError("updating", "fp_wire_tags", err));
  }
  // Then the VLANs no longer carried, so a VLAN kept never blinks.
  std::vector<uint16_t> stale;
  uint16_t key = 0, next = 0;
  const uint16_t* prev = nullptr;
  while (bpf_map__get_next_key(map, prev, &next, sizeof(next)) == 0) {
    if (!tags.count(next)) stale.push_back(next);
    key = next;
    prev = &key;
  }
  for (uint16_t vid : stale) bpf_map__delete_elem(map, &vid, sizeof(vid), 0);
  return {};
}

Status Classifier::setVxlanNextHop(const std::optional<MacAddress>& mac) {
  uint32_t zero = 0;
  fp_vxlan_hop hop{};
  if (mac) {
    std::memcpy(hop.mac, mac->bytes.data(), 6);
    hop.up = 1;
  }
  if (int err = bpf_map__update_elem(skel_->maps.fp_vxlan_hop, &zero, sizeof(zero), &hop,
                                     sizeof(hop), BPF_ANY))
    return makeError(err, mapError("updating", "fp_vxlan_hop", err));
  return {};
}

Status Classifier::setWireVnis(const std::map<uint32_t, WireVni>& vnis) {
  bpf_map* map = skel_->maps.fp_wire_vnis;
  for (const auto& [vni, v] : vnis) {
    if (vni == 0 || vni > 0xffffff)
      return makeError(-EINVAL, "classifier: VNI " + std::to_string(vni) + " is not 1..16777215");
    fp_wire_vni val{};
    val.peer_addr = v.peer_addr;
    val.ifindex = v.ifindex;
    if (int err = bpf_map__update_elem(map, &vni, sizeof(vni), &val, sizeof(val), 0))
      return makeError(err, mapError("updating", "fp_wire_vnis", err));
  }
  // Then the VNIs no longer carried, so a VNI kept never blinks.
  std::vector<uint32_t> stale;
  uint32_t key = 0, next = 0;
  const uint32_t* prev = nullptr;
  while (bpf_map__get_next_key(map, prev, &next, sizeof(next)) == 0) {
    if (!vnis.count(next)) stale.push_back(next);
    key = next;
    prev = &key;
  }
  for (uint32_t vni : stale) bpf_map__delete_elem(map, &vni, sizeof(vni), 0);
  return {};
}

Result<ClassifierStats> Classifier::readStats() const {
  ClassifierStats stats{};
  int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return makeError(cpus, "classifier: cannot count possible CPUs");
  std::vector<fp_counter> per_cpu(static_cast<size_t>(cpus));
  auto sum = [&](bpf_map* map, unsigned n, fp_counter* out) -> Status {
    for (uint32_t i = 0; i < n; ++i) {
      int err = bpf_map__lookup_elem(map, &i, sizeof(i), per_cpu.data(),
                                     per_cpu.size() * sizeof(fp_counter), 0);
      if (err) return makeError(err, mapError("reading", bpf_map__name(map), err));
      for (const fp_counter& c : per_cpu) {
        out[i].packets += c.packets;
        out[i].bytes += c.bytes;
      }
    }
    return {};
  };
  if (Status s = sum(skel_->maps.fp_verdict_stats, FP_VERDICT_MAX, stats.verdict); !s)
    return s.error();
  if (Status s = sum(skel_->maps.fp_reason_stats, FP_REASON_MAX, stats.reason); !s)
    return s.error();
  return stats;
}

}  // namespace fastpath
