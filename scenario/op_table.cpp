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

}  // namespace eevdf::scn
