#include "bridge/unexported.hpp"

#include "scenario/scenario_print.hpp"

namespace eevdf::bridge {

std::string unexported_op(const scn::Scenario& s, std::string_view bridge) {
  for (const scn::Op& op : s.ops)
    if ((op.kind == scn::OpKind::create && op.policy == Policy::fifo) || (op.kind == scn::OpKind::tick && op.nopreempt))
      return std::string(bridge) + " does not export '" + scn::print_op(op) +
             "' (an RT task and a tick without a preemption point are the model's and the kernel backend's only)";
  return {};
}

}  // namespace eevdf::bridge
