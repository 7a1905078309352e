#include "scenario/finding_identity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "scenario/op_table.hpp"

namespace eevdf::scn {

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Replaces every `from` in s by `to` (shorter), again where a replacement
// makes a new `from` ("@, @, @" -> "@").
void collapse(std::string& s, std::string_view from, std::string_view to) {
  while (s.find(from) != std::string::npos) {
    std::string out;
    std::size_t at = 0;
    for (std::size_t hit = s.find(from); hit != std::string::npos; hit = s.find(from, at)) {
      out.append(s, at, hit - at);
      out.append(to);
      at = hit + from.size();
    }
    out.append(s, at, std::string::npos);
    s = std::move(out);
  }
}

}  // namespace

std::string detail_class(std::string_view what, const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < what.size();) {
    const char c = what[i];
    if (!word_char(c)) {
      // a minus sign that starts a number goes with it
      const bool sign = c == '-' && i + 1 < what.size() && digit(what[i + 1]) && (i == 0 || !word_char(what[i - 1]));
      if (!sign) out += c;
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < what.size() && word_char(what[end])) ++end;
    const std::string_view word = what.substr(i, end - i);
    if (std::find(names.begin(), names.end(), word) != names.end()) {
      out += '@';
    } else {
      for (std::size_t k = 0; k < word.size(); ++k)  // digit runs as one '#': 2800000 -> #, U64_MAX -> U#_MAX
        if (!digit(word[k]))
          out += word[k];
        else if (k == 0 || !digit(word[k - 1]))
          out += '#';
    }
    i = end;
  }
  collapse(out, "group @", "@");
  collapse(out, "@ on CPU #", "@");  // an entity named with its CPU (several runqueues): the same entity
  collapse(out, "@, @", "@");
  collapse(out, "#, #", "#");
  return out;
}

std::vector<std::string> entity_names(const Scenario& s) {
  std::vector<std::string> names;
  const auto add = [&names](const std::string& n) {
    if (!n.empty() && std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  for (const Op& op : s.ops) {
    if (op.kind == OpKind::expect_curr || op.kind == OpKind::expect_field) continue;
    add(op.task);
    add(op.child);
    add(op.group);
    add(op.parent);
  }
  return names;
}

FindingIdentity finding_identity(const inv::Violation& v, const Scenario& s) {
  return finding_identity(v, s, entity_names(s));
}

FindingIdentity finding_identity(const inv::Violation& v, const Scenario& s, const std::vector<std::string>& names) {
  FindingIdentity f;
  f.id = v.id;
  f.where = v.where;
  f.detail = detail_class(v.what, names);
  if (v.op_index >= 0 && static_cast<std::size_t>(v.op_index) < s.ops.size())
    f.trigger = std::string(op_spec(s.ops[static_cast<std::size_t>(v.op_index)].kind).keyword);
  return f;
}

std::string describe(const FindingIdentity& f) {
  return fmt::format("{} in {}{}{}: {}", inv::id_name(f.id), f.where, f.trigger.empty() ? "" : " at ", f.trigger,
                     f.detail);
}

}  // namespace eevdf::scn
