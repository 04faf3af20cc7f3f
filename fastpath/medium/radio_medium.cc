// SPDX-License-Identifier: GPL-2.0-only
// The radio medium's events: access (a member's backoff ran out: it transmits), end of a
// transmission (every member that was receiving it decides; senders' neighbours may go
// idle), the answers (a CTS SIFS after an RTS, an ACK SIFS after a unicast frame its
// destination decoded: transmissions of the answering member), end of the ACK time of a
// unicast try (success, retry or drop). Each member has at most one frame of its own, one
// CTS and one ACK in flight, so a transmission's slot is its sender's index in one of three
// ranges.
#include "medium/radio_medium.h"

#include <algorithm>
#include <cmath>

#include "medium/per_table.h"

namespace fastpath::medium {

namespace {

uint64_t overlap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi) {
  const uint64_t s = std::max(a, lo), e = std::min(b, hi);
  return e > s ? e - s : 0;
}

}  // namespace

RadioMedium::RadioMedium(const MediumPhy& phy, uint32_t members, uint64_t seed)
    : phy_(phy),
      dcf_(dcfTiming(isDsssRate(phy.data_rate_kbps))),
      dsss_(isDsssRate(phy.data_rate_kbps)),
      noise_mw_(std::pow(10.0, noiseFloorDbm(phy.data_rate_kbps, phy.noise_figure_db) / 10)),
      noise_dbm_(noiseFloorDbm(phy.data_rate_kbps, phy.noise_figure_db)),
      cs_mw_(std::pow(10.0, phy.cs_threshold_dbm / 10)),
      ack_ns_(frameTiming(phy.ackRate(), kAckBytes).duration_ns),
      cts_ns_(frameTiming(phy.ctsRate(), kCtsBytes).duration_ns),
      data_row_(perRateIndex(phy.data_rate_kbps)),
      basic_row_(perRateIndex(phy.basic_rate_kbps)),
      pairs_(members, phy),
      rates_(phy, members),
      macs_(members),
      phys_(members),
      stats_(members),
      txs_(size_t(members) * 3),
      rng_(seed ? seed : 0x9e3779b97f4a7c15ull) {
  for (auto& m : macs_) m.ring.resize(kQueueFrames);
  std::vector<Event> storage;
  storage.reserve(size_t(members) * 4 + 16);
  events_ = decltype(events_)(std::greater<Event>(), std::move(storage));
  current_ = pairs_.newest();
}

double RadioMedium::uniform() {
  // splitmix64: small, fast, and a seed gives one sequence.
  uint64_t z = (rng_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-53;
}

uint32_t RadioMedium::drawSlots(uint32_t cw) { return uint32_t(uniform() * (cw + 1)); }

void RadioMedium::schedule(uint64_t t, EvKind kind, uint32_t who, uint32_t gen) {
  events_.push(Event{t, seq_++, kind, who, gen});
}

const PairTable* RadioMedium::adopt() {
  const PairTable* n = pairs_.newest();
  if (n != current_) {
    if (current_->in_flight) held_.push_back(current_);
    current_ = n;
    pairs_.serve(held_.empty() ? current_->version : held_.front()->version);
  }
  ++current_->in_flight;
  return current_;
}

void RadioMedium::release(const PairTable* t) {
  if (--t->in_flight || t == current_) return;
  held_.erase(std::find(held_.begin(), held_.end(), t));
  pairs_.serve(held_.empty() ? current_->version : held_.front()->version);
}

bool RadioMedium::send(uint64_t now, uint32_t from, int32_t to, uint32_t eth_bytes,
                       uint64_t cookie, MediumSink& sink) {
  advance(now, sink);
  if (first_ns_ == UINT64_MAX) first_ns_ = now;
  Mac& m = macs_[from];
  if (m.count == kQueueFrames) {
    stats_[from].queue_drops.add();
    sink.done(cookie, from, TxOutcome::kQueueFull);
    return false;
  }
  // Its lifetime counts from the medium's clock, which never goes back (last_ns_).
  m.ring[(m.head + m.count++) % kQueueFrames] =
      Pending{cookie, to, wifiFrameBytes(eth_bytes), std::max(now, last_ns_)};
  if (m.state == Mac::State::kIdle) contend(from, now);
  return true;
}

void RadioMedium::contend(uint32_t i, uint64_t now) {
  Mac& m = macs_[i];
  const Phy& p = phys_[i];
  m.state = Mac::State::kContend;
  m.cw = dcf_.cw_min;
  m.tries = m.long_tries = 0;
  // A frame that finds the medium idle for DIFS, with the last backoff long over, goes at
  // once (ns-3's DCF does the same); otherwise it draws a backoff.
  const bool idle_long = p.sensed == 0 && now >= p.idle_since + dcf_.difs_ns &&
                         (m.last_done == 0 || now >= m.last_done + dcf_.difs_ns +
                                                         uint64_t(m.cw) * dcf_.slot_ns);
  m.slots = idle_long ? 0 : drawSlots(m.cw);
  m.contend_since = now;
  scheduleAccess(i);
}

void RadioMedium::scheduleAccess(uint32_t i) {
  Mac& m = macs_[i];
  const Phy& p = phys_[i];
  if (p.sensed > 0) return;  // frozen until the medium goes idle
  const uint64_t start = std::max(m.contend_since, p.idle_since + dcf_.difs_ns);
  schedule(start + uint64_t(m.slots) * dcf_.slot_ns, EvKind::kAccess, i, ++m.gen);
}

void RadioMedium::senseUp(uint32_t k, uint64_t now) {
  Phy& p = phys_[k];
  if (p.sensed++ > 0) return;
  p.busy_since = now;
  Mac& m = macs_[k];
  if (m.state != Mac::State::kContend) return;
  const uint64_t start = std::max(m.contend_since, p.idle_since + dcf_.difs_ns);
  const uint64_t access = start + uint64_t(m.slots) * dcf_.slot_ns;
  if (access <= now) return;  // its slot has come: it transmits too (a collision)
  if (now > start) m.slots -= uint32_t(std::min<uint64_t>((now - start) / dcf_.slot_ns, m.slots));
  ++m.gen;  // the scheduled access is void: the backoff is frozen
}

void RadioMedium::senseDown(uint32_t k, uint64_t now) {
  Phy& p = phys_[k];
  if (--p.sensed > 0) return;
  p.idle_since = now;
  stats_[k].busy_ns.add(now - p.busy_since);
  if (macs_[k].state == Mac::State::kContend) scheduleAccess(k);
}

void RadioMedium::energyChanged(uint32_t k, uint64_t now) {
  // ns-3 3.37 (PhyEntity::SwitchMaybeToCcaBusy for a frame it does not decode): CCA busy
  // while the energy of all signals reaching the PHY is at or above CcaSensitivity. A frame
  // that strong alone is sensed through its pair (which also holds through its ACK); this
  // catches weaker frames that add up.
  Phy& p = phys_[k];
  const bool busy = p.total_mw >= cs_mw_;
  if (busy == p.energy_busy) return;
  p.energy_busy = busy;
  if (busy)
    senseUp(k, now);
  else
    senseDown(k, now);
}

void RadioMedium::closeChunk(uint32_t k, uint64_t now) {
  Phy& p = phys_[k];
  if (p.rx_tx < 0 || now <= p.chunk_start) return;
  const Tx& L = txs_[uint32_t(p.rx_tx)];
  // Alone on the air (the common case) the SNR is the pair's: no logarithm per frame.
  const double interference = p.total_mw - p.rx_mw;
  const double snr_db = interference <= noise_mw_ * 1e-9
                            ? p.rx_dbm - noise_dbm_
                            : 10 * std::log10(p.rx_mw / (noise_mw_ + interference));
  const uint64_t hs = L.start + L.timing.header_start_ns, ps = L.start + L.timing.payload_start_ns;
  const double h_bits = double(overlap(p.chunk_start, now, hs, ps)) * L.timing.header_kbps / 1e6;
  const double d_bits = double(overlap(p.chunk_start, now, ps, L.data_end)) * L.rate_kbps / 1e6;
  const int h_row = dsss_ ? 0 : perRateIndex(6000);
  const int d_row = L.rate_kbps == phy_.data_rate_kbps    ? data_row_
                    : L.rate_kbps == phy_.basic_rate_kbps ? basic_row_
                                                          : perRateIndex(L.rate_kbps);
  if (h_bits > 0) p.log_success += h_bits * logBitSuccess(phy_.error_model, h_row, snr_db);
  if (d_bits > 0) p.log_success += d_bits * logBitSuccess(phy_.error_model, d_row, snr_db);
  p.chunk_start = now;
}

void RadioMedium::arrive(uint32_t k, uint32_t slot, const PairEntry& e, uint64_t now) {
  Phy& p = phys_[k];
  closeChunk(k, now);  // the frame being received, under the interference until now
  p.total_mw += e.rx_mw;
  ++p.active;
  energyChanged(k, now);
  if (p.transmitting) return;  // half duplex
  const auto lock = [&] {
    p.rx_tx = int32_t(slot);
    p.rx_mw = e.rx_mw;
    p.rx_dbm = e.rx_dbm;
    p.chunk_start = now;
    p.log_success = 0;
    p.rx_lost = false;
    p.rx_interfered = p.total_mw - e.rx_mw > noise_mw_ * 1e-3;
  };
  if (p.rx_tx >= 0) {
    const double margin = phy_.capture_margin_db;
    if (margin >= 0 && e.detect && e.rx_dbm >= p.rx_dbm + margin)
      lock();  // captured: the frame being received is lost (counted at its end)
    else
      p.rx_interfered = true;
    return;
  }
  if (!e.detect) return;
  const double others = p.total_mw - e.rx_mw;
  const double snr_db = others <= noise_mw_ * 1e-9
                            ? e.rx_dbm - noise_dbm_
                            : e.rx_dbm - 10 * std::log10(noise_mw_ + others);
  if (snr_db >= phy_.preamble_snr_db) lock();
}

bool RadioMedium::expireHead(uint32_t i, uint64_t now, MediumSink& sink) {
  // ns-3 3.37's WifiMacQueue drops the frames at its head whose lifetime (MaxDelay from
  // their enqueue) ran out when the MAC takes its next frame; the next fresh one goes in
  // the same access. False: nothing fresh is left (the member goes idle).
  Mac& m = macs_[i];
  while (m.count > 0 && now > m.ring[m.head].since + kMaxDelayNs) {
    const uint64_t cookie = m.ring[m.head].cookie;
    m.head = (m.head + 1) % kQueueFrames;
    --m.count;
    stats_[i].expired_drops.add();
    sink.done(cookie, i, TxOutcome::kExpired);
  }
  if (m.count > 0) return true;
  m.state = Mac::State::kIdle;
  m.last_done = now;
  return false;
}

void RadioMedium::startTx(uint32_t i, uint64_t now, MediumSink& sink) {
  Mac& m = macs_[i];
  const bool first_try = m.tries == 0 && m.long_tries == 0;
  if (first_try && !expireHead(i, now, sink)) return;
  const Pending& f = m.ring[m.head];
  Tx& tx = txs_[i];
  tx.table = adopt();
  tx.cookie = f.cookie;
  tx.from = i;
  tx.to = f.to;
  tx.bytes = f.bytes;
  tx.received = tx.cts_ok = tx.ack_ok = tx.protected_ = false;
  MemberStats& s = stats_[i];
  if (first_try) {
    tx.delivered = false;
    s.tx_packets.add();
    s.tx_bytes.add(f.bytes);
  }
  // Each try asks the rate control anew (ARF moves between the tries of one frame).
  tx.data_kbps =
      f.to == kBroadcast ? phy_.basic_rate_kbps : rates_.rateKbps(i, uint32_t(f.to));
  if (f.to != kBroadcast && f.bytes > phy_.rts_threshold) {
    // RTS first; its duration field covers CTS, the frame and its ACK.
    tx.kind = FrameKind::kRts;
    tx.rate_kbps = phy_.rtsRate();
    tx.timing = frameTiming(tx.rate_kbps, kRtsBytes);
    tx.nav_ns = 3 * dcf_.sifs_ns + cts_ns_ +
                frameTiming(tx.data_kbps, f.bytes).duration_ns + ackNs(tx.data_kbps);
  } else {
    tx.kind = FrameKind::kData;
    tx.rate_kbps = tx.data_kbps;
    tx.timing = frameTiming(tx.rate_kbps, f.bytes);
    tx.nav_ns = 0;
  }
  m.state = Mac::State::kBusy;
  transmit(i, now);
}

void RadioMedium::transmit(uint32_t slot, uint64_t now) {
  Tx& tx = txs_[slot];
  tx.start = now;
  tx.data_end = now + tx.timing.duration_ns;
  // A unicast's airtime counts SIFS + ACK at its sender (the exchange's), not again at the
  // destination that sends the ACK.
  const bool acked = tx.kind == FrameKind::kData && tx.to != kBroadcast;
  if (tx.kind != FrameKind::kAck)
    stats_[tx.from].tx_airtime_ns.add(tx.timing.duration_ns +
                                      (acked ? dcf_.sifs_ns + ackNs(tx.rate_kbps) : 0));
  Phy& me = phys_[tx.from];
  if (me.rx_tx >= 0) me.rx_lost = true;  // half duplex: what it was receiving is lost
  me.transmitting = true;
  for (const PairEntry& e : tx.table->from(tx.from)) {
    arrive(e.to, slot, e, now);
    if (e.sense) senseUp(e.to, now);
  }
  schedule(tx.data_end, EvKind::kTxEnd, slot);
}

void RadioMedium::selfBusy(uint32_t k, uint64_t now) {
  // A member answering with a CTS holds its own backoff as for a sensed transmission.
  Phy& p = phys_[k];
  if (p.sensed++ > 0) return;  // already frozen by what it senses
  p.busy_since = now;
  Mac& m = macs_[k];
  if (m.state != Mac::State::kContend) return;
  const uint64_t start = std::max(m.contend_since, p.idle_since + dcf_.difs_ns);
  if (now > start) m.slots -= uint32_t(std::min<uint64_t>((now - start) / dcf_.slot_ns, m.slots));
  ++m.gen;
}

void RadioMedium::setNav(uint32_t k, uint64_t until, uint64_t now) {
  Phy& p = phys_[k];
  if (until <= p.nav_until) return;
  // The NAV counts as one more sensed transmission while it runs (virtual carrier sense).
  if (p.nav_until <= now) senseUp(k, now);
  p.nav_until = until;
  schedule(until, EvKind::kNavEnd, k);
}

void RadioMedium::endTx(uint32_t slot, uint64_t now, uint64_t late_ns, MediumSink& sink) {
  Tx& tx = txs_[slot];
  if (tx.kind != FrameKind::kData) return endControl(slot, now, sink);
  const uint32_t i = tx.from;
  phys_[i].transmitting = false;
  for (const PairEntry& e : tx.table->from(i)) {
    const uint32_t k = e.to;
    Phy& p = phys_[k];
    const bool for_k = tx.to == kBroadcast || tx.to == int32_t(k);
    closeChunk(k, now);
    p.total_mw -= e.rx_mw;
    if (--p.active == 0) p.total_mw = 0;  // no rounding left over
    energyChanged(k, now);
    if (p.rx_tx == int32_t(slot)) {
      p.rx_tx = -1;
      if (!for_k) continue;  // addressed to another member: its MAC drops it
      e.stats->attempts.add();
      const bool ok = decoded(p);
      if (ok && tx.delivered) {
        // A retry after a lost ACK: the MAC answers it and drops the copy (ns-3's
        // MacRxMiddle: same sequence number, Retry bit set).
        e.stats->delivered.add();
        stats_[k].duplicates.add();
        tx.received = true;
      } else if (ok) {
        e.stats->delivered.add();
        stats_[k].rx_packets.add();
        stats_[k].rx_bytes.add(tx.bytes);
        if (late_ns > kLateNs) stats_[k].late_frames.add();
        stats_[k].lateness_max_ns.max(late_ns);
        if (tx.to == int32_t(k)) tx.received = tx.delivered = true;
        sink.deliver(tx.cookie, k, now);
      } else if (p.rx_lost || p.rx_interfered) {
        e.stats->collision_drops.add();
        stats_[k].collisions.add();
      } else {
        e.stats->error_drops.add();
      }
    } else if (for_k && e.detect) {
      // It would have decoded the frame alone, but was sending or receiving another one.
      e.stats->attempts.add();
      e.stats->collision_drops.add();
      stats_[k].collisions.add();
    }
    if (tx.to == kBroadcast && e.sense) senseDown(k, now);
  }
  if (tx.to == kBroadcast)
    finish(i, now, TxOutcome::kBroadcast, sink);
  else
    answerData(i, now);
}

bool RadioMedium::decoded(const Phy& p) {
  // Success drawn with the frame's error rate over its chunks (ns-3's PHY).
  return !p.rx_lost &&
         (p.log_success >= 0 || (p.log_success > -50 && uniform() < std::exp(p.log_success)));
}

void RadioMedium::answerData(uint32_t i, uint64_t now) {
  // The destination that decoded the frame answers SIFS later with an ACK at the control
  // answer rate (ns-3 sends it whatever its CCA and NAV say); the sender decides at the
  // ACK's end. Without an answer the sender waits as long (the ACK's time).
  const Tx& tx = txs_[i];
  const uint32_t k = uint32_t(tx.to);
  Tx& ack = txs_[ackSlot(k)];
  if (!tx.received || ack.table) {
    // Not decoded: nothing to answer. Still answering another frame (it cannot be: sending
    // that ACK would have lost this frame): counted, as an ACK it could not send.
    if (tx.received) stats_[k].acks_unsent.add();
    schedule(now + dcf_.sifs_ns + ackNs(tx.rate_kbps), EvKind::kAckEnd, i);
    return;
  }
  ack.table = adopt();
  ack.from = k;
  ack.to = int32_t(i);
  ack.kind = FrameKind::kAck;
  ack.rate_kbps = ackKbps(tx.rate_kbps);
  ack.timing = frameTiming(ack.rate_kbps, kAckBytes);
  ack.bytes = kAckBytes;
  ack.nav_ns = 0;  // its duration field: nothing follows
  schedule(now + dcf_.sifs_ns, EvKind::kAckStart, k);
}

void RadioMedium::startAck(uint32_t k, uint64_t now) {
  Tx& ack = txs_[ackSlot(k)];
  const uint32_t i = uint32_t(ack.to);
  if (phys_[k].transmitting) {
    // It began a frame of its own meanwhile (it was not sensing the one it decoded): no
    // ACK; the sender waits for it as for a lost one.
    release(ack.table);
    ack.table = nullptr;
    stats_[k].acks_unsent.add();
    schedule(now + ack.timing.duration_ns, EvKind::kAckEnd, i);
    return;
  }
  stats_[k].acks_sent.add();
  selfBusy(k, now);
  transmit(ackSlot(k), now);
}

void RadioMedium::endControl(uint32_t slot, uint64_t now, MediumSink& sink) {
  Tx& tx = txs_[slot];
  const uint32_t from = tx.from;
  phys_[from].transmitting = false;
  const bool rts = tx.kind == FrameKind::kRts;
  bool answered = false;
  for (const PairEntry& e : tx.table->from(from)) {
    const uint32_t k = e.to;
    Phy& p = phys_[k];
    closeChunk(k, now);
    p.total_mw -= e.rx_mw;
    if (--p.active == 0) p.total_mw = 0;
    energyChanged(k, now);
    if (e.sense) senseDown(k, now);
    if (p.rx_tx != int32_t(slot)) continue;
    p.rx_tx = -1;
    if (!decoded(p)) continue;
    if (tx.kind == FrameKind::kAck) {
      // Its duration field is 0: a third party that decodes it sets no NAV.
      if (tx.to == int32_t(k)) txs_[k].ack_ok = true;
    } else if (tx.to != int32_t(k)) {
      setNav(k, now + tx.nav_ns, now);  // a third party: it defers for the exchange
    } else if (!rts) {
      txs_[k].cts_ok = true;  // the RTS's sender got its CTS
    } else if (p.nav_until <= now && !p.transmitting && macs_[k].state != Mac::State::kBusy &&
               !txs_[ctsSlot(k)].table) {
      // The destination answers SIFS later (ns-3: only with its NAV clear).
      Tx& cts = txs_[ctsSlot(k)];
      cts.table = adopt();
      cts.from = k;
      cts.to = int32_t(from);
      cts.kind = FrameKind::kCts;
      cts.rate_kbps = phy_.ctsRate();
      cts.timing = frameTiming(cts.rate_kbps, kCtsBytes);
      cts.nav_ns = tx.nav_ns - dcf_.sifs_ns - cts_ns_;
      cts.bytes = kCtsBytes;
      schedule(now + dcf_.sifs_ns, EvKind::kCtsStart, k);
      answered = true;
    }
  }
  if (tx.kind == FrameKind::kAck) {
    senseDown(from, now);  // the ACK's own hold (selfBusy)
    release(tx.table);
    tx.table = nullptr;
    endAck(uint32_t(tx.to), now, sink);
  } else if (rts) {
    // Answered, the sender knows at the CTS's end (below); with no CTS coming, after SIFS +
    // slot + the CTS's preamble and header (ns-3's CTS timeout).
    if (!answered)
      schedule(now + dcf_.sifs_ns + dcf_.slot_ns +
                   frameTiming(phy_.ctsRate(), kCtsBytes).payload_start_ns,
               EvKind::kCtsDone, from);
  } else {
    senseDown(from, now);  // the CTS's own hold (selfBusy)
    release(tx.table);
    tx.table = nullptr;
    ctsDone(uint32_t(tx.to), now, sink);
  }
}

void RadioMedium::ctsDone(uint32_t i, uint64_t now, MediumSink& sink) {
  Tx& tx = txs_[i];
  if (!tx.cts_ok) return retryOrDrop(i, now, false, sink);
  // The frame SIFS after the CTS, with the RTS's pairs.
  schedule(now + dcf_.sifs_ns, EvKind::kDataStart, i);
}

void RadioMedium::endAck(uint32_t i, uint64_t now, MediumSink& sink) {
  Tx& tx = txs_[i];
  // The sender's neighbours held off for the ACK (NAV from the data frame's duration).
  for (const PairEntry& e : tx.table->from(i))
    if (e.sense) senseDown(e.to, now);
  const bool acked = tx.received && tx.ack_ok;
  if (tx.received && !acked) stats_[i].acks_lost.add();
  if (acked) {
    rates_.dataOk(i, uint32_t(tx.to));
    return finish(i, now, TxOutcome::kAcked, sink);
  }
  rates_.dataFailed(i, uint32_t(tx.to));
  retryOrDrop(i, now, tx.protected_, sink);
}

void RadioMedium::retryOrDrop(uint32_t i, uint64_t now, bool long_frame, MediumSink& sink) {
  Mac& m = macs_[i];
  const bool give_up = long_frame ? ++m.long_tries >= phy_.long_retry_limit
                                  : ++m.tries >= phy_.retry_limit;
  if (give_up) {
    stats_[i].retry_drops.add();
    return finish(i, now, TxOutcome::kRetryLimit, sink);
  }
  stats_[i].retries.add();
  release(txs_[i].table);
  m.cw = std::min(2 * m.cw + 1, dcf_.cw_max);
  m.slots = drawSlots(m.cw);
  m.state = Mac::State::kContend;
  m.contend_since = now;
  phys_[i].idle_since = std::max(phys_[i].idle_since, now);
  scheduleAccess(i);
}

void RadioMedium::finish(uint32_t i, uint64_t now, TxOutcome outcome, MediumSink& sink) {
  Tx& tx = txs_[i];
  release(tx.table);
  Mac& m = macs_[i];
  m.head = (m.head + 1) % kQueueFrames;
  --m.count;
  m.tries = m.long_tries = 0;
  m.last_done = now;
  phys_[i].idle_since = std::max(phys_[i].idle_since, now);
  m.state = Mac::State::kIdle;
  sink.done(tx.cookie, i, outcome);
  if (m.count > 0) contend(i, now);
}

void RadioMedium::advance(uint64_t now, MediumSink& sink) {
  while (!events_.empty() && events_.top().t <= now) {
    const Event ev = events_.top();
    events_.pop();
    switch (ev.kind) {
      case EvKind::kAccess:
        if (ev.gen == macs_[ev.who].gen && macs_[ev.who].state == Mac::State::kContend)
          startTx(ev.who, ev.t, sink);
        break;
      case EvKind::kTxEnd: endTx(ev.who, ev.t, now - ev.t, sink); break;
      case EvKind::kAckEnd: endAck(ev.who, ev.t, sink); break;
      case EvKind::kCtsStart: {
        const uint32_t slot = ctsSlot(ev.who);
        if (phys_[ev.who].transmitting) {  // it began a frame of its own meanwhile: no CTS
          release(txs_[slot].table);
          txs_[slot].table = nullptr;
          schedule(ev.t + dcf_.slot_ns + frameTiming(phy_.ctsRate(), kCtsBytes).payload_start_ns,
                   EvKind::kCtsDone, uint32_t(txs_[slot].to));
          break;
        }
        selfBusy(ev.who, ev.t);
        transmit(slot, ev.t);
        break;
      }
      case EvKind::kCtsDone: ctsDone(ev.who, ev.t, sink); break;
      case EvKind::kDataStart: {
        Tx& tx = txs_[ev.who];
        tx.kind = FrameKind::kData;
        tx.protected_ = true;
        tx.rate_kbps = tx.data_kbps;
        tx.timing = frameTiming(tx.rate_kbps, tx.bytes);
        tx.nav_ns = 0;
        transmit(ev.who, ev.t);
        break;
      }
      case EvKind::kNavEnd:
        if (phys_[ev.who].nav_until == ev.t) senseDown(ev.who, ev.t);
        break;
      case EvKind::kAckStart: startAck(ev.who, ev.t); break;
    }
  }
  last_ns_ = std::max(last_ns_, now);
}

}  // namespace fastpath::medium
