#include "bridge/compare.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "invariants/ids.hpp"
#include "model/profile.hpp"

namespace eevdf::bridge {

std::optional<scn::ProfileOverride> parse_side(const std::string& spec, std::string& error) {
  scn::ProfileOverride o;
  if (spec.empty() || spec == "default") return o;
  const auto colon = spec.find(':');
  std::string profile = colon == std::string::npos ? "" : spec.substr(0, colon);
  std::string features = colon == std::string::npos ? spec : spec.substr(colon + 1);
  if (colon == std::string::npos && profile_by_name(spec)) {
    profile = spec;
    features.clear();
  }
  if (!profile.empty() && !profile_by_name(profile)) {
    error = fmt::format("'{}': unknown profile '{}' (see `eevdf-check profiles`)", spec, profile);
    return std::nullopt;
  }
  if (!features.empty()) {
    // the named profile checks every item; without one, the SCHED_FEAT names
    // are checked here and a cgroup_mode item by build_profile() (v7.3 only)
    std::string err;
    if (!profile.empty()) {
      Profile scratch = *profile_by_name(profile);
      err = apply_features(scratch, features);
    } else {
      std::string feats;
      for (std::string_view item : list_items(features))
        if (item.substr(0, 12) != "cgroup_mode=") feats += (feats.empty() ? "" : ",") + std::string(item);
      FeatureSet scratch;
      if (!feats.empty()) err = apply_features(scratch, feats);
    }
    if (!err.empty()) {
      error = fmt::format("'{}': {}", spec, err);
      return std::nullopt;
    }
  }
  o.profile = profile;
  o.features = features;
  return o;
}

namespace {

std::string us(u64 ns) { return fmt::format("{:.1f}", static_cast<double>(ns) / 1000.0); }

std::string pct(double part, double whole) {
  return whole > 0 ? fmt::format("{:.1f}%", 100.0 * part / whole) : std::string("-");
}

struct Row {
  std::string wakeups, p50, p99, max, runtime, share, ideal, lag;
};

Row row(const TaskMetrics& t, u64 elapsed) {
  Row r;
  r.wakeups = std::to_string(t.wakeups);
  if (t.wake_latency.empty()) {
    r.p50 = r.p99 = r.max = "-";
  } else {
    r.p50 = us(percentile(t.wake_latency, 50));
    r.p99 = us(percentile(t.wake_latency, 99));
    r.max = us(percentile(t.wake_latency, 100));
  }
  r.runtime = fmt::format("{:.3f}", static_cast<double>(t.runtime) / 1e6);
  r.share = pct(static_cast<double>(t.runtime), static_cast<double>(elapsed));
  r.ideal = pct(t.ideal_runtime, static_cast<double>(elapsed));
  r.lag = fmt::format("{:.1f}..{:.1f}", static_cast<double>(t.lag_min) / 1000.0,
                      static_cast<double>(t.lag_max) / 1000.0);
  return r;
}

s64 largest_lag(const SimResult& r) {
  s64 m = 0;
  for (const auto& t : r.tasks) m = std::max({m, t.lag_max, -t.lag_min});
  return m;
}

// Each invariant once, in the order of its first violation: "I-AUG at op 20 (32)"
std::string violations_text(const SimResult& r) {
  if (!r.error.empty()) return "error: " + r.error;
  if (r.violations.empty()) return "none";
  std::vector<std::pair<inv::Id, std::pair<int, int>>> seen;  // id, (first op, count)
  for (const auto& v : r.violations) {
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& x) { return x.first == v.id; });
    if (it == seen.end())
      seen.push_back({v.id, {v.op_index, 1}});
    else
      ++it->second.second;
  }
  std::string out;
  for (const auto& [id, at] : seen) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} at op {}", inv::id_name(id), at.first + 1);
    if (at.second > 1) out += fmt::format(" ({})", at.second);
  }
  return out;
}

}  // namespace

std::string format_metrics(const SimResult& r, const std::string& title) {
  std::string out;
  const u64 elapsed = r.end_clock;
  out += fmt::format("{}\n", title);
  out += fmt::format("simulated {:.3f} ms; reschedules {}, wakeup preemptions {}, context switches {}\n",
                     static_cast<double>(elapsed) / 1e6, r.counters.reschedules, r.counters.wakeup_preemptions,
                     r.counters.context_switches);
  out += fmt::format("{:<20} {:>7} {:>9} {:>9} {:>9} {:>11} {:>7} {:>7} {:>21}\n", "task", "wakeups", "lat p50",
                     "lat p99", "lat max", "runtime ms", "share", "ideal", "lag min..max (us)");
  for (const auto& t : r.tasks) {
    const Row x = row(t, elapsed);
    out += fmt::format("{:<20} {:>7} {:>9} {:>9} {:>9} {:>11} {:>7} {:>7} {:>21}\n", t.name, x.wakeups, x.p50, x.p99,
                       x.max, x.runtime, x.share, x.ideal, x.lag);
  }
  out += fmt::format("(latencies: wake-up to first time on the CPU, us; lag: V - vruntime while queued, virtual us)\n");
  out += fmt::format("largest |lag|: {:.1f} us; invariant violations: {}\n", static_cast<double>(largest_lag(r)) / 1000.0,
                     violations_text(r));
  return out;
}

std::string format_compare(const std::vector<CompareSide>& sides) {
  std::string out;
  std::size_t width = 24;
  for (const auto& s : sides) width = std::max(width, s.label.size());
  const int w = static_cast<int>(width);
  auto line = [&](const std::string& what, auto&& cell) {
    out += fmt::format("{:<34}", what);
    for (const auto& s : sides) out += fmt::format(" {:>{}}", cell(s.result), w);
    out += "\n";
  };
  auto ms = [](u64 ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); };
  out += fmt::format("{:<34}", "");
  for (const auto& s : sides) out += fmt::format(" {:>{}}", s.label, w);
  out += "\n";
  line("simulated time (ms)", [&](const SimResult& r) { return ms(r.end_clock); });
  line("reschedules", [](const SimResult& r) { return std::to_string(r.counters.reschedules); });
  line("wakeup preemptions", [](const SimResult& r) { return std::to_string(r.counters.wakeup_preemptions); });
  line("context switches", [](const SimResult& r) { return std::to_string(r.counters.context_switches); });
  line("largest |lag| (virtual us)",
       [](const SimResult& r) { return fmt::format("{:.1f}", static_cast<double>(largest_lag(r)) / 1000.0); });
  const bool smp = std::any_of(sides.begin(), sides.end(), [](const CompareSide& s) { return s.result.cpus > 1; });
  if (smp) {
    line("wake-ups: waker's/prev/other CPU", [](const SimResult& r) {
      return fmt::format("{}/{}/{}", r.placement.on_waker_cpu, r.placement.on_prev_cpu, r.placement.on_other_cpu);
    });
    line("wake-ups landing on CPU 0/1/..", [](const SimResult& r) {
      std::string x;
      for (u64 n : r.placement.per_cpu) x += (x.empty() ? "" : "/") + std::to_string(n);
      return x;
    });
    line("CPU time used (of all CPUs)", [](const SimResult& r) {
      u64 total = 0;
      for (const auto& t : r.tasks) total += t.runtime;
      return pct(static_cast<double>(total), static_cast<double>(r.end_clock) * r.cpus);
    });
  }
  line("wait p50/p99/max, all wake-ups (us)", [](const SimResult& r) {
    std::vector<u64> all;
    for (const auto& t : r.tasks) all.insert(all.end(), t.wake_latency.begin(), t.wake_latency.end());
    if (all.empty()) return std::string("-");
    return fmt::format("{}/{}/{}", us(percentile(all, 50)), us(percentile(all, 99)), us(percentile(all, 100)));
  });
  std::size_t n = 0;
  for (const auto& s : sides) n = std::max(n, s.result.tasks.size());
  if (n <= kCompareTaskRows) {
    for (std::size_t i = 0; i < n; ++i) {
      std::string name;
      for (const auto& s : sides)
        if (name.empty() && i < s.result.tasks.size()) name = s.result.tasks[i].name;
      const auto task_row = [i](const SimResult& r) {
        const TaskMetrics empty;
        return row(i < r.tasks.size() ? r.tasks[i] : empty, r.end_clock);
      };
      line(fmt::format("{}: latency p50/p99/max (us)", name), [&](const SimResult& r) {
        const Row x = task_row(r);
        return fmt::format("{}/{}/{}", x.p50, x.p99, x.max);
      });
      line(fmt::format("{}: runtime share (ideal)", name), [&](const SimResult& r) {
        const Row x = task_row(r);
        return fmt::format("{} ({})", x.share, x.ideal);
      });
      line(fmt::format("{}: lag min..max (us)", name), [&](const SimResult& r) { return task_row(r).lag; });
    }
  } else {
    out += fmt::format("({} tasks: no per-task rows; `run --rt-app FILE` prints them for one side)\n", n);
  }
  line("invariant violations", [](const SimResult& r) { return violations_text(r); });
  return out;
}

}  // namespace eevdf::bridge
