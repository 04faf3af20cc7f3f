// SPDX-License-Identifier: GPL-2.0-only
// FqCoDel's fields of LinkAqm (1.12) <-> LinkParams: unset fields are ns-3's defaults.
// Internal to ctrl-bridge.
#pragma once

#include "fastpath/link_params.h"
#include "fastpath/v1/fastpath.pb.h"

namespace fastpath::ctrl {

void fqCoDelToWire(const LinkParams& in, ::fastpath::v1::LinkAqm* out);
void fqCoDelFromWire(const ::fastpath::v1::LinkAqm& in, LinkParams* p);

}  // namespace fastpath::ctrl
