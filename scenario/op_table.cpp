#include "scenario/op_table.hpp"

#include <string>

namespace eevdf::scn {

std::string_view operation_keywords() {
  static const std::string list = [] {
    std::string out;
    for (const OpSpec& s : kOpTable) {
      if (s.keyword == "expect" || op_spec_by_keyword(s.keyword) != &s) continue;  // each keyword once
      if (!out.empty()) out += ", ";
      out += s.keyword;
    }
    return out;
  }();
  return list;
}

void set_unwritten(Arg a, Op& op) {
  if (a == Arg::shares) op.value = kDefaultShares;
  if (a == Arg::burst) op.burst = -1;
}

bool is_unwritten(Arg a, const Op& op) {
  switch (a) {
    case Arg::none: return true;
    case Arg::task:
    case Arg::new_task: return op.task.empty();
    case Arg::child: return op.child.empty();
    case Arg::duration:
    case Arg::nice:
    case Arg::slice:
    case Arg::idle:
    case Arg::base_slice: return op.value == 0;
    case Arg::shares: return op.value == kDefaultShares;
    case Arg::policy:
    case Arg::any_policy: return op.policy == Policy::normal;
    case Arg::cpu: return op.cpu < 0;
    case Arg::from_cpu: return op.from < 0;
    case Arg::group:
    case Arg::group_or_root:
    case Arg::new_group: return op.group.empty();
    case Arg::task_slice: return op.slice == 0;
    case Arg::parent: return op.parent.empty();
    case Arg::sync: return !op.sync;
    case Arg::racing: return !op.racing;
    case Arg::nopreempt: return !op.nopreempt;
    case Arg::bandwidth: return false;  // always written
    case Arg::burst: return op.burst < 0;
  }
  return true;
}

}  // namespace eevdf::scn
