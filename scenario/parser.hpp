// The scenario parser's inside, shared by its three files (not a public
// header: scenario/scenario_parse.hpp is):
//  * scenario/scenario_parse.cpp: lines, directives and whole-file checks;
//  * scenario/parse_operation.cpp: operations, as the operation table
//    (scenario/op_table.hpp) describes them, and the names and values of
//    their arguments;
//  * scenario/parse_expect.cpp: the expectations (`expect ...`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "scenario/expect_fields.hpp"
#include "scenario/op_table.hpp"
#include "scenario/scenario_parse.hpp"

namespace eevdf::scn::parse_detail {

inline constexpr std::string_view kTaskNameRule =
    "a task name: a letter or '_', then letters, digits or '_', at most 32 characters";

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
// Digits only, no sign; nullopt when empty, not all digits, or above `max`.
std::optional<u64> parse_uint(std::string_view s, u64 max);
// [+-]digits within s64.
std::optional<s64> parse_int(std::string_view s);
bool all_digits(std::string_view s);
std::string q(std::string_view s);  // quote_input: 'text' as found

struct Token {
  std::string_view text;
  int col = 0;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : text_(text), file_(file) {}
  ParseResult run();

 private:
  std::string_view text_;
  std::string_view file_;
  Scenario sc_;
  std::optional<ParseError> err_;
  int line_ = 0;
  std::vector<Token> toks_;
  int eol_col_ = 1;
  bool title_possible_ = true;
  int first_op_line_ = 0;
  std::unordered_map<std::string, int> tasks_;       // name -> line of creation
  std::unordered_map<std::string, int> groups_;      // group name -> line of creation (live groups only)
  std::unordered_map<std::string, int> destroyed_;   // group name -> line of its group_destroy (while gone)
  std::size_t groups_created_ = 0;                   // every `group` line: destroyed groups keep their slot
  std::map<std::string, int, std::less<>> directives_;  // directive -> line
  std::unordered_set<int> op_lines_;                 // lines holding a task operation
  int no_violation_line_ = 0;
  int violation_line_ = 0;
  struct AtRef {
    int target;
    int line;
    int col;
  };
  std::vector<AtRef> at_refs_;

  // ---- errors and tokens (scenario_parse.cpp) ----
  bool fail_at(int line, int col, std::string msg);
  bool fail(int col, std::string msg) { return fail_at(line_, col, std::move(msg)); }
  int col(std::size_t i) const { return i < toks_.size() ? toks_[i].col : eol_col_; }
  bool has(std::size_t i) const { return i < toks_.size(); }
  std::string_view tok(std::size_t i) const { return i < toks_.size() ? toks_[i].text : std::string_view{}; }
  std::string found(std::size_t i) const { return has(i) ? "found " + q(toks_[i].text) : "found end of line"; }
  // Token i must exist: otherwise "expected WHAT, found end of line".
  bool need(std::size_t i, std::string_view what) {
    return has(i) || fail(col(i), "expected " + std::string(what) + ", found end of line");
  }
  bool expect_end(std::size_t i, std::string_view after) {
    if (!has(i)) return true;
    return fail(col(i), "expected end of line after " + std::string(after) + ", " + found(i));
  }

  // ---- lines and directives (scenario_parse.cpp) ----
  void line(std::string_view text);
  void item();
  void begin_op(bool task_op);
  bool directive_ok(std::string_view name, int c);
  bool note_directive(std::string_view name, int c);
  void directive_profile();
  bool bug_id(std::string_view id, int c);
  void directive_bug();
  template <class Each>
  bool comma_list(std::string_view list, std::string_view entries, std::string_view entries_are, Each each);
  void directive_features();
  void count_directive(std::string_view name, unsigned& out, unsigned max, const std::string& expected,
                       std::string_view noun);
  void directive_hz();
  void directive_base_slice();
  void directive_skip();
  void directive_tolerate();
  void directive_keep_going();
  void directive_backend();
  void check_smt_runqueues();
  void check_runqueues_profile();
  void check_at_refs();

  // ---- operations (parse_operation.cpp) ----
  const OpSpec& op_variant(const OpSpec& first) const;
  void operation(const OpSpec& spec);
  bool read_operation(const OpSpec& spec, Op& op);
  bool optional_left_out(const OpSpec& spec, const ArgSpec& arg, std::size_t i) const;
  bool ordered_words(const OpSpec& spec, std::size_t i, std::string after, Op& op);
  bool any_order_words(const OpSpec& spec, std::size_t i, Op& op);
  bool fifo_alone(const Op& op);
  void push(Op op);
  // A value of kind `a` read from `t` (at column c) into op; `after` names what precedes it.
  bool value(Arg a, std::string_view t, int c, Op& op, const std::string& after);
  bool task_ref(std::string_view t, int c, std::string& out, bool allow_idle = false);
  bool task_ref(std::size_t i, std::string& out, std::string_view after, bool allow_idle = false);
  bool new_task(std::string_view t, int c, std::string& out);
  bool new_group(std::string_view t, int c, std::string& out);
  bool group_ref(std::string_view t, int c, std::string& out, std::string_view after, bool allow_root);
  bool cpu_value(std::string_view v, int c, int& out, std::string_view after);
  bool shares_value(std::string_view v, int c, s64& out, std::string_view after);
  bool nice_value(std::string_view v, int c, s64& out, std::string_view after);
  bool policy_value(std::string_view v, int c, Policy& out, std::string_view after, bool fifo_allowed);
  bool slice_value(std::string_view v, int c, s64& out, std::string_view after);
  bool duration_value(std::string_view v, int c, s64& out);
  bool us_duration(std::string_view v, int c, s64& out, std::string_view after);
  bool bandwidth_value(std::string_view v, int c, Op& op, std::string_view after);

  // ---- expectations (parse_expect.cpp) ----
  void expect();
  void expect_queue();
  void expect_field();
  std::size_t dotted(std::string_view what);
  const FieldSpec* dotted_field(FieldOwner owner, std::size_t dot, std::string_view what, std::string& out);
  bool comparison(CmpOp& out);
  bool number_value(s64& out);
  bool cpu_then_end(bool cpu_allowed, int& cpu);
  bool field_value(std::string_view v, int c, s64& out);
};

}  // namespace eevdf::scn::parse_detail
