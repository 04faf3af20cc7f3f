// SPDX-License-Identifier: GPL-2.0-only
#include "fastpath/net_types.h"

#include <arpa/inet.h>

#include <cstdio>
#include <cstring>

namespace fastpath {

IpAddress IpAddress::v4(uint32_t network_order) {
  IpAddress a;
  a.family = Family::kIpv4;
  std::memcpy(a.bytes.data(), &network_order, 4);
  return a;
}

IpAddress IpAddress::v6(const std::array<uint8_t, 16>& bytes) {
  IpAddress a;
  a.family = Family::kIpv6;
  a.bytes = bytes;
  return a;
}

Result<IpAddress> IpAddress::parse(const std::string& text) {
  IpAddress a;
  if (inet_pton(AF_INET, text.c_str(), a.bytes.data()) == 1) {
    a.family = Family::kIpv4;
    return a;
  }
  if (inet_pton(AF_INET6, text.c_str(), a.bytes.data()) == 1) {
    a.family = Family::kIpv6;
    return a;
  }
  return makeError(-EINVAL, "'" + text + "' is not an IPv4 or IPv6 address");
}

uint32_t IpAddress::v4NetworkOrder() const {
  uint32_t v;
  std::memcpy(&v, bytes.data(), 4);
  return v;
}

bool IpAddress::isUnspecified() const {
  size_t n = family == Family::kIpv4 ? 4 : 16;
  for (size_t i = 0; i < n; ++i)
    if (bytes[i]) return false;
  return true;
}

bool validUnderlayAddress(const IpAddress& a) {
  if (a.family != Family::kIpv4 || a.isUnspecified()) return false;
  const uint8_t b0 = a.bytes[0];
  return b0 < 224 && b0 != 127 && a.v4NetworkOrder() != 0xffffffffu;
}

std::string IpAddress::toString() const {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(family == Family::kIpv4 ? AF_INET : AF_INET6, bytes.data(), buf, sizeof(buf));
  return buf;
}

static unsigned maxLength(Family f) { return f == Family::kIpv4 ? 32 : 128; }

Result<IpPrefix> IpPrefix::parse(const std::string& text) {
  auto slash = text.find('/');
  std::string addr_text = text.substr(0, slash);
  auto addr = IpAddress::parse(addr_text);
  if (!addr) return makeError(-EINVAL, "prefix '" + text + "': " + addr.error().message);
  IpPrefix p;
  p.address = addr.value();
  unsigned max = maxLength(p.address.family);
  if (slash == std::string::npos) {
    p.length = static_cast<uint8_t>(max);
    return p;
  }
  std::string len_text = text.substr(slash + 1);
  char* end = nullptr;
  unsigned long len = std::strtoul(len_text.c_str(), &end, 10);
  if (len_text.empty() || *end != '\0' || len > max)
    return makeError(-EINVAL, "prefix '" + text + "': length must be 0.." + std::to_string(max));
  p.length = static_cast<uint8_t>(len);
  if (p.hostBitsSet())
    return makeError(-EINVAL, "prefix '" + text + "': host bits set (did you mean " +
                                  p.normalised().toString() + "?)");
  return p;
}

bool IpPrefix::hostBitsSet() const { return !(normalised() == *this); }

IpPrefix IpPrefix::normalised() const {
  IpPrefix p = *this;
  unsigned max = maxLength(address.family);
  for (unsigned bit = length; bit < max; ++bit)
    p.address.bytes[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
  return p;
}

std::string IpPrefix::toString() const { return address.toString() + "/" + std::to_string(length); }

Result<MacAddress> MacAddress::parse(const std::string& text) {
  MacAddress m;
  unsigned b[6];
  char extra;
  if (std::sscanf(text.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
                  &b[5], &extra) != 6)
    return makeError(-EINVAL, "'" + text + "' is not a MAC address (expected aa:bb:cc:dd:ee:ff)");
  for (int i = 0; i < 6; ++i) m.bytes[i] = static_cast<uint8_t>(b[i]);
  return m;
}

std::string MacAddress::toString() const {
  char buf[18];
  std::snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", bytes[0], bytes[1], bytes[2],
                bytes[3], bytes[4], bytes[5]);
  return buf;
}

bool MacAddress::isZero() const {
  for (auto b : bytes)
    if (b) return false;
  return true;
}

}  // namespace fastpath
