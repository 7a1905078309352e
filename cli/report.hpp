// Output of a run: the per-step table, violation paragraphs, JSON lines and
// the Chrome/Perfetto trace-event file.
#pragma once

#include <ostream>
#include <string>

#include "scenario/executor.hpp"

namespace eevdf::cli {

// One line per operation (clock, op, task on the CPU, V, queue), and with
// `detail` the queued tasks' fields under it.
void print_table(std::ostream& out, const scn::Scenario& s, const scn::ExecResult& r, bool detail);
// The violation paragraphs and the failed expectations.
void print_findings(std::ostream& out, const scn::Scenario& s, const scn::ExecResult& r, const Profile& p);
// One JSON object per line: every step, then every violation, then a summary.
void print_json(std::ostream& out, const scn::Scenario& s, const scn::ExecResult& r, const Profile& p);
// Chrome trace-event JSON (open in ui.perfetto.dev): a track per task with
// its running slices, counters for vruntime - V and V.
bool write_trace(const std::string& path, const scn::Scenario& s, const scn::ExecResult& r, std::string& error);

std::string op_text(const scn::Scenario& s, int op_index);

}  // namespace eevdf::cli
