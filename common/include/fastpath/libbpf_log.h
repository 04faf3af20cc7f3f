// SPDX-License-Identifier: GPL-2.0-only
// Routes libbpf's and libxdp's print callbacks into the log facade (fastpath/log.h),
// demoted one level: their warnings are often expected probes (xdp-tools does the same).
// A separate library so that the log facade itself does not pull in the BPF libraries.
#pragma once

namespace fastpath {

void routeLibbpfLogs();

}  // namespace fastpath
