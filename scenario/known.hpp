// Known findings: the finding identities (scenario/finding_identity.hpp) that
// a profile's documented findings raise, each with the finding's name. A
// violation of a known identity is a verdict, not a stop: the executor labels
// it (inv::Violation::known), counts it and runs on; only what is not known
// is a finding (docs/fuzzing.md, "Known findings").
//
// One file a profile, corpus/known/PROFILE.known, built into the tool; the
// same format is what a campaign writes of everything it saw
// (FINDINGS/campaign.known), which `fuzz --baseline FILE` reads back. A line:
//
//   NAME <tab> INVARIANT <tab> TRIGGERS <tab> SITE <tab> SCENARIO <tab> DETAIL CLASS
//
// ('#' starts a comment line). TRIGGERS says at which operations the finding
// arises: a keyword ("nice"), several ("nice|policy"), "-" (none: the check at
// the end of the input), or "*" (any: the finding's state shows at whatever
// operation comes next, as a stale augment does); any of them may be followed
// by " after KEYWORD [racing]": only in a run where such an operation came
// first ("* after debug_read racing": a racing debugfs read's lost update,
// K2; "* after nice|policy": one of several), or by " after NAME": only after a violation of known finding NAME in
// the same run, at an earlier operation or the same one (its documented
// consequence: "* after K1"). SCENARIO is the regression scenario that raises it; for a profile's
// file the test suite replays each and asks for exactly that invariant, site
// and detail class, at one of the triggers. A DETAIL CLASS of "*" takes every
// detail class of the site: for an entry with a condition whose consequences
// take many forms (a wrong V after K2's lost update breaks every pick rule).
// INVARIANT "*" (with SITE and DETAIL CLASS "*") takes every violation that
// meets the entry's condition: "* after K2", everything a corrupted sum breaks
// once K2 has shown in the run.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/finding_identity.hpp"
#include "scenario/scenario.hpp"

namespace eevdf::scn {

struct KnownFinding {
  std::string name;      // "K1", "F9", or a regression scenario's name
  FindingIdentity identity;  // its trigger is the first of `triggers` ("" for none or any)
  bool any_invariant = false;  // INVARIANT "*" (then SITE and DETAIL CLASS are "*", and a condition is set)
  std::vector<std::string> triggers;  // the keywords it arises at; empty: any
  std::string after;                  // an operation keyword, or a known finding's name, that must come
                                      // first in the run ("" none); or several keywords, "nice|slice": one
                                      // of them must
  bool after_names(std::string_view word) const;  // whether `after` is word or lists it ("a|word|b")

  bool after_racing = false;          // ... an operation with `racing`
  std::string scenario;               // the scenario that raises it
  int line = 0;                       // its line in the file it was read from
  // Whether violation identity f, raised at operation op_index of s after the
  // known findings `before` (their names, in this run), is this finding.
  bool matches(const FindingIdentity& f, const Scenario& s, int op_index, const std::vector<std::string>& before) const;
  std::string triggers_text() const;  // the TRIGGERS field
};

class KnownSet {
 public:
  // Parses a .known file's text; on a bad line, nullopt and `error` names file:line and why.
  static std::optional<KnownSet> parse(std::string_view text, const std::string& file, std::string& error);
  // Reads and parses a file.
  static std::optional<KnownSet> load(const std::string& path, std::string& error);
  // The file's text (a header comment, then one line an entry, in the order added).
  std::string print(const std::string& header) const;

  // The known finding that identity f (raised at operation op_index of s, after
  // the known findings `before`) is; or nullptr.
  const KnownFinding* find(const FindingIdentity& f, const Scenario& s, int op_index,
                           const std::vector<std::string>& before) const;
  // Adds f unless an entry with the same fields is there already.
  void add(KnownFinding f);
  // A finding seen at one trigger (a campaign's), as an entry.
  static KnownFinding exactly(std::string name, const FindingIdentity& f, std::string scenario);
  void merge(const KnownSet& other);
  // This set without the entries named in `names`.
  KnownSet without(const std::vector<std::string>& names) const;
  const std::vector<KnownFinding>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  friend std::vector<std::string> replay_known(KnownSet&, const std::string&, const std::string&, Backend, bool);
  std::vector<KnownFinding> entries_;
};

// Replays every entry's scenario (a path relative to `root`) on `backend`,
// judged by `profile` (the scenario names it or no profile), and finds the
// violation the entry names: its invariant at one of its triggers, after its
// condition. With `update` the entry's site and detail class become the ones
// seen; without, a different site or detail class is a problem. Returns the
// problems, one line each, naming the entry and the scenario.
std::vector<std::string> replay_known(KnownSet& set, const std::string& profile, const std::string& root,
                                      Backend backend, bool update);

// The known findings of a profile, built into the tool from
// corpus/known/PROFILE.known (an empty set for a profile without a file).
const KnownSet& known_findings(std::string_view profile);
// Whether the tool was built with a file for that profile.
bool has_known_file(std::string_view profile);

}  // namespace eevdf::scn
