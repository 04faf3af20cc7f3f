// SPDX-License-Identifier: GPL-2.0-only
#include "wire_fq_codel.h"

namespace fastpath::ctrl {

void fqCoDelToWire(const LinkParams& in, ::fastpath::v1::LinkAqm* out) {
  out->set_fq_flows(in.aqm_fq_flows);
  out->set_fq_quantum(in.aqm_fq_quantum);
  out->set_fq_drop_batch(in.aqm_fq_drop_batch);
  out->set_fq_perturbation(in.aqm_fq_perturbation);
  out->set_fq_set_associative(in.aqm_fq_set_associative);
  out->set_fq_set_ways(in.aqm_fq_set_ways);
}

void fqCoDelFromWire(const ::fastpath::v1::LinkAqm& a, LinkParams* p) {
  const LinkParams d;
  p->aqm_fq_flows = a.has_fq_flows() ? a.fq_flows() : d.aqm_fq_flows;
  p->aqm_fq_quantum = a.has_fq_quantum() ? a.fq_quantum() : d.aqm_fq_quantum;
  p->aqm_fq_drop_batch = a.has_fq_drop_batch() ? a.fq_drop_batch() : d.aqm_fq_drop_batch;
  p->aqm_fq_perturbation = a.has_fq_perturbation() ? a.fq_perturbation() : d.aqm_fq_perturbation;
  p->aqm_fq_set_associative =
      a.has_fq_set_associative() ? a.fq_set_associative() : d.aqm_fq_set_associative;
  p->aqm_fq_set_ways = a.has_fq_set_ways() ? a.fq_set_ways() : d.aqm_fq_set_ways;
}

}  // namespace fastpath::ctrl
