// SPDX-License-Identifier: GPL-2.0-only
// RED's settings on the wire (LinkAqmRed, protocol 1.12) and back: every field is sent.
#pragma once

#include "fastpath/link_params.h"
#include "fastpath/v1/fastpath.pb.h"

namespace fastpath::ctrl {

void redToWire(const LinkParams::Red& in, v1::LinkAqmRed* out);
LinkParams::Red redFromWire(const v1::LinkAqmRed& in);

}  // namespace fastpath::ctrl
