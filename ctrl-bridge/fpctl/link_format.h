// SPDX-License-Identifier: GPL-2.0-only
// How fpctl shows emulation parameters and counters and reads the words that set them
// (link_format.cc, medium.cc), for the commands of links, segments and bridges, and how
// they list and show them.
#pragma once

#include <cstdint>
#include <cstdio>
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

/// An item of a medium's list (LinkInfo, SegmentInfo, BridgeInfo) by name; nullptr if none.
template <typename Info>
const Info* findNamed(const std::vector<Info>& list, const std::string& name) {
  for (const auto& item : list)
    if (item.name == name) return &item;
  return nullptr;
}
/// "no KIND 'NAME' (`fpctl KIND list` lists them)", -ENOENT.
Error noMedium(const std::string& kind, const std::string& name);

/// How `fpctl KIND list` and `fpctl KIND show NAME` read and print one kind of medium.
template <typename Info>
struct MediumListing {
  const char* kind;  // "link", "segment", "bridge"
  Result<std::vector<Info>> (Client::*fetch)();
  void (*json)(JsonWriter& w, const Info& item);  ///< an item of the --json list
  void (*heading)();                              ///< the text list's heading line
  void (*row)(const Info& item);                  ///< an item's line in the text list
  /// `show`: the item into *w (--json) or as text on stdout (w null); 0, or the exit
  /// status of a failure (nothing printed then).
  int (*show)(Session& s, const Info& item, JsonWriter* w);
};

/// `cmd` "show" with `a` = {NAME}, or "list"/"ls" (MediumCommands::list_or_show).
template <typename Info>
int listOrShowMedium(const Global& g, Session& s, const std::string& cmd,
                     const std::vector<std::string>& a, const MediumListing<Info>& m) {
  if (int rc = s.connect(false)) return rc;
  auto list = (s.client().*m.fetch)();
  if (!list) return fail(list.error(), true);
  if (cmd == "show") {
    const Info* found = findNamed(list.value(), a[0]);
    if (!found) return fail(noMedium(m.kind, a[0]), true);
    JsonWriter w;
    if (int rc = m.show(s, *found, g.json ? &w : nullptr)) return rc;
    if (g.json) std::printf("%s\n", w.str().c_str());
    return kExitOk;
  }
  if (g.json) {
    JsonWriter w;
    w.beginArray();
    for (const auto& item : list.value()) m.json(w, item);
    w.endArray();
    std::printf("%s\n", w.str().c_str());
  } else {
    m.heading();
    for (const auto& item : list.value()) m.row(item);
  }
  return kExitOk;
}

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
