// SPDX-License-Identifier: GPL-2.0-only
// The Client calls for radio media (protocol 1.6): what goes into each request and what
// comes out of its reply.
#include "client_connection.h"
#include "wire_medium.h"

namespace fastpath::ctrl {

Status Client::createMedium(const MediumSpec& spec) {
  return impl_->command(*this, {kRadioMedia, "create_medium"},
                        [&](v1::Request& q) { toWire(spec, q.mutable_create_medium()); });
}

Status Client::deleteMedium(const std::string& name) {
  return impl_->command(*this, {kRadioMedia, "delete_medium"},
                        [&](v1::Request& q) { q.mutable_delete_medium()->set_name(name); });
}

Status Client::updateMedium(const std::string& name, const MediumUpdate& update) {
  return impl_->command(*this, {kRadioMedia, "update_medium"},
                        [&](v1::Request& q) { toWire(name, update, q.mutable_update_medium()); });
}

Result<std::vector<MediumInfo>> Client::media(const std::string& name) {
  return impl_->query(
      *this, {kRadioMedia, "get_media"},
      [&](v1::Request& q) { q.mutable_get_media()->set_name(name); },
      [](const v1::Reply& r) { return decodeAll(r.media().media(), mediumFromReply); });
}

}  // namespace fastpath::ctrl
