// SPDX-License-Identifier: GPL-2.0-only
// This host's clock against its reference, as the time service that keeps it says (chrony
// or PTP's ptp4l, whichever runs), read once at start. A scenario over several hosts
// compares times taken on different clocks only where they are reported side by side
// (links' lateness, logs); the offset says how far to trust that. Not a public header.
#pragma once

#include <string>

namespace fastpath {

struct ClockOffset {
  bool known = false;
  double offset_s = 0;  ///< the clock's offset from its reference (signed)
  std::string source;   ///< "chrony", "ptp"; why it is unknown otherwise
  /// "+12 us (chrony)" or "unknown (...)".
  std::string text() const;
};

/// `chronyc -c tracking`: field 5 is the system time's offset in seconds; a leap status of
/// "Not synchronised" (or a reference id of 0) means no reference.
ClockOffset parseChronyTracking(const std::string& csv);
/// `pmc -u -b 0 'GET TIME_STATUS_NP'`: master_offset in ns (with gmPresent true).
ClockOffset parsePmcTimeStatus(const std::string& text);
/// Asks chrony if chronyd runs, else ptp4l if it runs, else unknown (saying why).
ClockOffset readClockOffset();

}  // namespace fastpath
