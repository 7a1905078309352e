// RapidCheck generators of operation sequences over tasks T0..T{n-1}, for the
// property tests. Sequences are run non-strict: operations the kernel cannot
// perform in the current state are skipped by the executor.
#pragma once

#include <rapidcheck.h>

#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace eevdf::testing {

inline rc::Gen<s64> gen_duration() {
  return rc::gen::oneOf(rc::gen::element<s64>(1000, 100000, 500000, 700000, 999999, 1000000, 1000001, 2000000, 3000000,
                                              4000000, 10000000),
                        rc::gen::inRange<s64>(1, 20000000));
}

inline rc::Gen<s64> gen_slice() {
  return rc::gen::element<s64>(0, 100000, 700000, 1000000, 3000000, 20000000, 100000000);
}

inline rc::Gen<scn::Op> gen_op(int ntasks) {
  using scn::Op;
  using scn::OpKind;
  auto name = rc::gen::map(rc::gen::inRange(0, ntasks), [](int i) { return "T" + std::to_string(i); });
  auto policy = rc::gen::element(Policy::normal, Policy::normal, Policy::normal, Policy::batch, Policy::idle);
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::tuple(name, rc::gen::arbitrary<bool>()),
                   [](auto t) { Op o; o.kind = OpKind::wake; o.task = std::get<0>(t); o.sync = std::get<1>(t); return o; }),
      rc::gen::map(rc::gen::tuple(name, rc::gen::arbitrary<bool>()),
                   [](auto t) { Op o; o.kind = OpKind::wake; o.task = std::get<0>(t); o.sync = std::get<1>(t); return o; }),
      rc::gen::map(name, [](std::string n) { Op o; o.kind = OpKind::sleep; o.task = n; return o; }),
      rc::gen::map(gen_duration(), [](s64 d) { Op o; o.kind = OpKind::run; o.value = d; return o; }),
      rc::gen::map(gen_duration(), [](s64 d) { Op o; o.kind = OpKind::run; o.value = d; return o; }),
      rc::gen::just([] { Op o; o.kind = OpKind::tick; return o; }()),
      rc::gen::just([] { Op o; o.kind = OpKind::schedule; return o; }()),
      rc::gen::map(name, [](std::string n) { Op o; o.kind = OpKind::yield; o.task = n; return o; }),
      rc::gen::map(rc::gen::tuple(name, rc::gen::inRange(-20, 20)),
                   [](auto t) { Op o; o.kind = OpKind::nice; o.task = std::get<0>(t); o.value = std::get<1>(t); return o; }),
      rc::gen::map(rc::gen::tuple(name, policy),
                   [](auto t) { Op o; o.kind = OpKind::policy; o.task = std::get<0>(t); o.policy = std::get<1>(t); return o; }),
      rc::gen::map(rc::gen::tuple(name, gen_slice()),
                   [](auto t) { Op o; o.kind = OpKind::slice; o.task = std::get<0>(t); o.value = std::get<1>(t); return o; }),
      rc::gen::map(rc::gen::tuple(name, name),
                   [](auto t) { Op o; o.kind = OpKind::fork; o.task = std::get<0>(t); o.child = std::get<1>(t) + "c"; return o; }),
      rc::gen::map(name, [](std::string n) { Op o; o.kind = OpKind::exit; o.task = n; return o; }));
}

// A scenario creating ntasks tasks (random nice, policy, slice) followed by ops.
inline rc::Gen<scn::Scenario> gen_scenario(int max_tasks, int max_ops) {
  return rc::gen::mapcat(rc::gen::inRange(1, max_tasks + 1), [=](int ntasks) {
    auto creates = rc::gen::container<std::vector<scn::Op>>(
        static_cast<std::size_t>(ntasks),
        rc::gen::map(rc::gen::tuple(rc::gen::inRange(-20, 20),
                                    rc::gen::element(Policy::normal, Policy::normal, Policy::batch, Policy::idle),
                                    gen_slice()),
                     [](auto t) {
                       scn::Op o;
                       o.kind = scn::OpKind::create;
                       o.value = std::get<0>(t);
                       o.policy = std::get<1>(t);
                       o.slice = std::get<2>(t);
                       return o;
                     }));
    auto ops = rc::gen::resize(max_ops, rc::gen::container<std::vector<scn::Op>>(gen_op(ntasks)));
    return rc::gen::map(rc::gen::tuple(creates, ops), [](auto t) {
      scn::Scenario s;
      auto& c = std::get<0>(t);
      for (std::size_t i = 0; i < c.size(); ++i) {
        c[i].task = "T" + std::to_string(i);
        s.ops.push_back(c[i]);
      }
      for (auto& op : std::get<1>(t)) s.ops.push_back(op);
      return s;
    });
  });
}

}  // namespace eevdf::testing
