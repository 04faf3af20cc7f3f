// SPDX-License-Identifier: GPL-2.0-only
#include "wire_red.h"

namespace fastpath::ctrl {

void redToWire(const LinkParams::Red& in, v1::LinkAqmRed* out) {
  out->set_min_th(in.min_th);
  out->set_max_th(in.max_th);
  out->set_qw(in.qw);
  out->set_l_interm(in.l_interm);
  out->set_gentle(in.gentle);
  out->set_mean_pkt_size(in.mean_pkt_size);
  out->set_wait(in.wait);
  out->set_hard_drop(in.hard_drop);
  out->set_ns1_compat(in.ns1_compat);
  out->set_ared(in.ared);
  out->set_adapt_max_p(in.adapt_max_p);
  out->set_interval_ns(in.interval_ns);
  out->set_target_ns(in.target_ns);
  out->set_alpha(in.alpha);
  out->set_beta(in.beta);
  out->set_top(in.top);
  out->set_bottom(in.bottom);
  out->set_last_set_ns(in.last_set_ns);
  out->set_rtt_ns(in.rtt_ns);
  out->set_feng(in.feng);
  out->set_feng_alpha(in.feng_alpha);
  out->set_feng_beta(in.feng_beta);
  out->set_nonlinear(in.nonlinear);
  out->set_link_bps(in.link_bps);
  out->set_link_delay_ns(in.link_delay_ns);
}

LinkParams::Red redFromWire(const v1::LinkAqmRed& in) {
  LinkParams::Red r;
  r.min_th = in.min_th();
  r.max_th = in.max_th();
  r.qw = in.qw();
  r.l_interm = in.l_interm();
  r.gentle = in.gentle();
  r.mean_pkt_size = in.mean_pkt_size();
  r.wait = in.wait();
  r.hard_drop = in.hard_drop();
  r.ns1_compat = in.ns1_compat();
  r.ared = in.ared();
  r.adapt_max_p = in.adapt_max_p();
  r.interval_ns = in.interval_ns();
  r.target_ns = in.target_ns();
  r.alpha = in.alpha();
  r.beta = in.beta();
  r.top = in.top();
  r.bottom = in.bottom();
  r.last_set_ns = in.last_set_ns();
  r.rtt_ns = in.rtt_ns();
  r.feng = in.feng();
  r.feng_alpha = in.feng_alpha();
  r.feng_beta = in.feng_beta();
  r.nonlinear = in.nonlinear();
  r.link_bps = in.link_bps();
  r.link_delay_ns = in.link_delay_ns();
  return r;
}

}  // namespace fastpath::ctrl
