// SPDX-License-Identifier: GPL-2.0-only
// How fpctl shows emulation parameters and counters and reads the words that set them
// (link_format.cc, medium.cc), for the commands of links and segments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastpath/control_backend.h"
#include "fpctl.h"
#include "json.h"

namespace fastpath::ctrl::fpctl {

/// The parameters that differ from a link that passes frames at once, as the words that set
/// them (formatLinkParams' kChanged): "rate 10mbit delay 5ms loss 1%"; "-" for none.
std::string linkParamsSummary(const LinkParams& p);
/// Table cells of `show`: "gemodel 1% 10% 100% 0%", "1%" or "-"; "5ms normal reorder" or
/// "-"; "100 packets, 64 B".
std::string lossText(const LinkParams& p);
std::string jitterText(const LinkParams& p);
std::string limitText(const LinkParams& p);
/// The queue discipline as its words ("codel aqm-limit 200 target 5ms interval 100ms"), or
/// "none".
std::string aqmText(const LinkParams& p);
/// Frames dropped for any reason (queue, loss, emulation capacity, link down).
uint64_t linkDrops(const LinkDirectionStats& s);
/// Drops per frame offered to the direction; negative when none was.
double dropRatio(const LinkDirectionStats& s);
/// dropRatio as "0.50%", or "-".
std::string ratioText(const LinkDirectionStats& s);
/// A measured time, three significant digits: "41.7ms", "3.07us", "850ns".
std::string shortTime(uint64_t ns);
/// A sojourn percentile, or "-" when nothing was queued.
std::string sojournText(const LinkDirectionStats& s, uint64_t ns);
std::string count(uint64_t v);
/// The configured parameters as a JSON object.
void linkParamsJson(JsonWriter& w, const LinkParams& p);
/// The measured counters as a JSON object.
void linkStatsJson(JsonWriter& w, const LinkDirectionStats& s);
/// What was measured, one line: "sent N delivered N drops N (x%) queue N in-flight N
/// sojourn p50/p99".
std::string linkStatsLine(const LinkDirectionStats& s);

/// A parameter fpctl cannot read: the message and where the words are explained (the
/// whole help would bury the message), exit status 2.
int badParameter(const std::string& what, const Error& e);
/// `what`'s PARAMETER words read on their own, before anything is sent: 0 or
/// badParameter's exit status.
int checkParamWords(const std::string& what, const std::vector<std::string>& words);
/// --mtu's value into *mtu (68..65535); 0, or the usage error's exit status.
int parseMtu(const std::string& text, const char* help, uint32_t* mtu);
/// The words of `KIND set NAME ...`: up or down (at most once) into *state, every other
/// word into *words (parameters); 0, or the usage error's exit status when there are
/// neither.
int splitSetWords(const std::string& kind, const std::vector<std::string>& a, const char* help,
                  std::string* state, std::vector<std::string>* words);

/// The commands of a medium (link, segment): list, show, add, del, set.
struct MediumCommands {
  const char* kind;  // "link", "segment"
  const char* help;
  /// `cmd` "show" with `a` = {NAME}, or "list"/"ls" with no argument (checked before).
  int (*list_or_show)(const Global& g, Session& s, const std::string& cmd,
                      const std::vector<std::string>& a);
  int (*add)(const Global& g, Session& s, std::vector<std::string> a);
  int (*set)(const Global& g, Session& s, std::vector<std::string> a);
  Status (Client::*del)(const std::string& name);
};
/// `fpctl KIND COMMAND ...`: the command word read and the rest handed to its function.
int runMediumCommand(const Global& g, const MediumCommands& c);

}  // namespace fastpath::ctrl::fpctl
