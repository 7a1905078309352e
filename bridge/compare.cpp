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
    FeatureSet scratch;
    if (auto err = apply_features(scratch, features); !err.empty()) {
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

std::string violations_text(const SimResult& r) {
  if (!r.error.empty()) return "error: " + r.error;
  if (r.violations.empty()) return "none";
  std::string out;
  for (const auto& v : r.violations) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} at op {}", inv::id_name(v.id), v.op_index + 1);
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

std::string format_compare(const SimResult& a, const std::string& la, const SimResult& b, const std::string& lb) {
  std::string out;
  const int w = static_cast<int>(std::max<std::size_t>({la.size(), lb.size(), 24}));
  auto line = [&](const std::string& what, const std::string& x, const std::string& y) {
    out += fmt::format("{:<34} {:>{}}  {:>{}}\n", what, x, w, y, w);
  };
  line("", la, lb);
  line("simulated time (ms)", fmt::format("{:.3f}", static_cast<double>(a.end_clock) / 1e6), fmt::format("{:.3f}", static_cast<double>(b.end_clock) / 1e6));
  line("reschedules", std::to_string(a.counters.reschedules), std::to_string(b.counters.reschedules));
  line("wakeup preemptions", std::to_string(a.counters.wakeup_preemptions),
       std::to_string(b.counters.wakeup_preemptions));
  line("context switches", std::to_string(a.counters.context_switches), std::to_string(b.counters.context_switches));
  line("largest |lag| (virtual us)", fmt::format("{:.1f}", static_cast<double>(largest_lag(a)) / 1000.0),
       fmt::format("{:.1f}", static_cast<double>(largest_lag(b)) / 1000.0));
  const std::size_t n = std::max(a.tasks.size(), b.tasks.size());
  for (std::size_t i = 0; i < n; ++i) {
    const TaskMetrics empty;
    const TaskMetrics& ta = i < a.tasks.size() ? a.tasks[i] : empty;
    const TaskMetrics& tb = i < b.tasks.size() ? b.tasks[i] : empty;
    const std::string name = !ta.name.empty() ? ta.name : tb.name;
    const Row ra = row(ta, a.end_clock), rb = row(tb, b.end_clock);
    line(fmt::format("{}: latency p50/p99/max (us)", name), fmt::format("{}/{}/{}", ra.p50, ra.p99, ra.max),
         fmt::format("{}/{}/{}", rb.p50, rb.p99, rb.max));
    line(fmt::format("{}: runtime share (ideal)", name), fmt::format("{} ({})", ra.share, ra.ideal),
         fmt::format("{} ({})", rb.share, rb.ideal));
    line(fmt::format("{}: lag min..max (us)", name), ra.lag, rb.lag);
  }
  line("invariant violations", violations_text(a), violations_text(b));
  return out;
}

}  // namespace eevdf::bridge
