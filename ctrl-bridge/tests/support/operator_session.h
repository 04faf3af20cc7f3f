// SPDX-License-Identifier: GPL-2.0-only
// A dispatcher session past Hello, as the server makes one for root or an operator: the
// tests and fuzz targets of the operator surfaces start from it.
#pragma once

#include "dispatcher.h"

namespace fastpath::ctrl::testing {

/// A session after Hello (protocol 1.5): root, or an operator (uid 1000, allowed to change
/// topology). The caller checks `hello`: false if the dispatcher refused the Hello.
inline Session operatorSession(Dispatcher& d, bool root) {
  Session s;
  s.uid = root ? 0 : 1000;
  v1::Request hello;
  hello.set_id(1);
  hello.mutable_hello()->mutable_version()->set_major(1);
  hello.mutable_hello()->mutable_version()->set_minor(5);
  (void)d.handle(s, hello);
  s.may_change_topology = true;
  return s;
}

}  // namespace fastpath::ctrl::testing
