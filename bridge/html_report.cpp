#include "bridge/html_report.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "scenario/scenario_print.hpp"
#include "invariants/ids.hpp"

namespace eevdf::bridge {

namespace {

std::string esc(const std::string& in) {
  std::string out;
  for (char c : in) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

const char* const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
const char* colour(std::size_t i) { return kColours[i % (sizeof kColours / sizeof kColours[0])]; }
// the V line of CPU c: CPU 0's black (the one-CPU page's), the others past the first tasks' colours
const char* v_colour(unsigned c) { return c == 0 ? "#000" : colour(c + 5); }

constexpr int kLeft = 90, kWidth = 900, kLane = 22;


// A time in the unit of the axis' tick spacing: "500 us", "20 ms", "16 s".
std::string time_label(u64 ns, u64 spacing) {
  const auto in = [&](double unit, const char* name) {
    return fmt::format("{:g} {}", static_cast<double>(ns) / unit, name);
  };
  if (spacing >= 1'000'000'000) return in(1e9, "s");
  if (spacing >= 1'000'000) return in(1e6, "ms");
  if (spacing >= 1'000) return in(1e3, "us");
  return in(1, "ns");
}

// Tick spacing: 1, 2 or 5 times a power of ten, at most 10 ticks over the axis.
u64 tick_spacing(u64 end) {
  u64 step = 1;
  for (;;) {
    for (u64 m : {1, 2, 5})
      if (end / (step * m) <= 10) return step * m;
    step *= 10;
  }
}

std::string duration_text(u64 ns) {
  return time_label(ns, ns >= 1'000'000'000 ? ns : ns >= 1'000'000 ? 1'000'000 : ns >= 1'000 ? 1'000 : 1);
}

// The x axis: simulated time, 0 .. end (ns), linear. A run that takes no
// simulated time is drawn over its steps instead (steps: the samples' clocks
// are their indices).
struct TimeAxis {
  u64 end = 1;
  bool steps = false;
  double x(u64 clock) const { return kLeft + static_cast<double>(clock) * kWidth / static_cast<double>(end); }
  std::string at(u64 v) const { return steps ? fmt::format("step {}", v) : fmt::format("{} ns", v); }
  std::string length(u64 d) const { return steps ? fmt::format("{} step(s)", d) : duration_text(d); }
  std::string tick(u64 v, u64 spacing) const { return steps ? fmt::format("#{}", v) : time_label(v, spacing); }
  const char* unit() const { return steps ? "steps" : "ns"; }
};

TimeAxis time_axis(const SimResult& r) {
  u64 end = r.end_clock;
  for (const auto& smp : r.samples) end = std::max(end, smp.clock);
  return {std::max<u64>(end, 1), false};
}

// The same run with each sample's clock its index, for a run that takes no simulated time.
SimResult by_step(SimResult r) {
  for (std::size_t i = 0; i < r.samples.size(); ++i) r.samples[i].clock = i;
  r.end_clock = r.samples.empty() ? 0 : r.samples.size() - 1;
  return r;
}

// The samples a violation ends with (the last sample of its operation), as clocks (one marker a time).
std::set<u64> violation_clocks(const SimResult& r) {
  std::set<u64> out;
  for (const auto& v : r.violations) {
    for (std::size_t i = r.samples.size(); i-- > 0;)
      if (r.samples[i].op_index == v.op_index) {
        out.insert(r.samples[i].clock);
        break;
      }
  }
  return out;
}

// One stretch of a task's lane: its state from..to (a run also keeps its CPU).
struct Segment {
  char state;
  int cpu;
  u64 from, to;
};

// A stretch between two samples is drawn in the state of the first: the task
// on a CPU changes only where a sample is taken (an operation's end, a tick,
// the schedule a run starts with).
std::vector<Segment> segments_of(const SimResult& r, std::size_t t) {
  std::vector<Segment> out;
  for (std::size_t i = 0; i + 1 < r.samples.size(); ++i) {
    if (t >= r.samples[i].tasks.size()) continue;
    const auto& ts = r.samples[i].tasks[t];
    const u64 from = r.samples[i].clock, to = r.samples[i + 1].clock;
    if (to <= from) continue;  // an operation that takes no time
    if (!out.empty() && out.back().state == ts.state && out.back().to == from &&
        (ts.state != 'r' || out.back().cpu == ts.cpu))
      out.back().to = to;
    else
      out.push_back({ts.state, ts.cpu, from, to});
  }
  return out;
}

// The model's clock at the start and at the end of each operation (index: the operation's).
struct OpSpan {
  u64 from = 0, to = 0;
  bool seen = false;
};
std::vector<OpSpan> op_spans(const SimResult& r, std::size_t ops) {
  std::vector<OpSpan> out(ops);
  u64 before = 0;
  for (const auto& smp : r.samples) {
    if (smp.op_index >= 0 && static_cast<std::size_t>(smp.op_index) < ops) {
      auto& span = out[static_cast<std::size_t>(smp.op_index)];
      if (!span.seen) span.from = before;
      span.to = smp.clock;
      span.seen = true;
    }
    before = smp.clock;
  }
  return out;
}

const KernelTask* kernel_task(const KernelStep& st, const std::string& name) {
  for (const auto& t : st.tasks)
    if (t.name == name) return &t;
  return nullptr;
}

// A task's lane on the booted kernel: each of its steps that takes simulated
// time in the model (a run, a tick) is drawn over the model's span of that
// operation, a bar as long as the share of the step the task ran (the
// kernel's sum_exec over the step's own duration), at the start of the span
// when the task was on the CPU as the step began, else at its end, and a thin
// line for the rest while it is queued. When within a step it ran, the
// recording does not say.
std::string kernel_lane(const KernelRun& vm, const std::vector<OpSpan>& spans, const TimeAxis& axis,
                        const std::string& name, std::size_t t, int y) {
  std::string out = fmt::format("<g class=\"lane-vm\" id=\"vm-lane-{}\" data-task=\"{}\">\n", esc(name), esc(name));
  out += fmt::format("<text x=\"4\" y=\"{}\" class=\"vm-label\">{}</text><text x=\"4\" y=\"{}\" class=\"vm-label\">"
                     "booted kernel</text>\n",
                     y + 9, esc(name), y + 18);
  for (std::size_t k = 1; k < vm.steps.size(); ++k) {
    const KernelStep& before = vm.steps[k - 1];
    const KernelStep& st = vm.steps[k];
    if (st.op < 0 || static_cast<std::size_t>(st.op) >= spans.size()) continue;
    const OpSpan& span = spans[static_cast<std::size_t>(st.op)];
    if (!span.seen || span.to <= span.from || st.op_ns <= 0) continue;
    const KernelTask* a = kernel_task(before, name);
    const KernelTask* b = kernel_task(st, name);
    if (!b || !b->present) continue;
    const s64 ran = std::max<s64>(0, b->sum_exec - (a ? a->sum_exec : 0));
    const double share = std::min(1.0, static_cast<double>(ran) / static_cast<double>(st.op_ns));
    const double x0 = axis.x(span.from), x1 = axis.x(span.to);
    const double w = (x1 - x0) * share;
    const bool at_start = before.curr == name;
    const std::string what =
        fmt::format("booted kernel, line {} ({}): {} ran {:.3f} ms of the step's {:.3f} ms", st.op + 1, st.op_text, name,
                    static_cast<double>(ran) / 1e6, static_cast<double>(st.op_ns) / 1e6);
    if (!b->sleeping || (a && !a->sleeping))
      out += fmt::format("<rect class=\"vm-queued\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"2\" fill=\"{}\">"
                         "<title>{}</title></rect>\n",
                         x0, y + 9, std::max(x1 - x0, 1.0), colour(t), esc(what));
    if (ran > 0)
      out += fmt::format("<rect class=\"vm-run\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"12\" fill=\"{}\" "
                         "fill-opacity=\"0.55\"><title>{}</title></rect>\n",
                         at_start ? x0 : x1 - w, y + 4, std::max(w, 1.0), colour(t), esc(what));
  }
  out += "</g>\n";
  return out;
}

std::string timeline(const scn::Scenario& s, const SimResult& r, const TimeAxis& axis, const std::set<u64>& marks,
                     const KernelRun* vm) {
  const std::size_t tasks = r.tasks.size();
  const int lane = vm ? 2 * kLane : kLane;
  const int axis_y = static_cast<int>(tasks) * lane + 24;
  const int height = axis_y + 30;
  std::string out = fmt::format(
      "<svg id=\"timeline\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"who runs when\" data-end=\"{}\" data-unit=\"{}\">\n",
      kLeft + kWidth + 20, height, kLeft + kWidth + 20, height, axis.end, axis.unit());
  out += "<title>Per-task timeline: a bar while the task is on the CPU, a thin line while it is "
         "queued</title>\n";
  const auto spans = op_spans(r, s.ops.size());
  for (std::size_t t = 0; t < tasks; ++t) {
    const int y = 10 + static_cast<int>(t) * lane;
    const std::string& name = r.tasks[t].name;
    out += fmt::format("<g class=\"lane\" id=\"lane-{}\" data-task=\"{}\">\n", esc(name), esc(name));
    out += fmt::format("<text x=\"4\" y=\"{}\" class=\"label\">{}</text>\n", y + 14, esc(name));
    for (const Segment& g : segments_of(r, t)) {
      const double x0 = axis.x(g.from), x1 = axis.x(g.to);
      const std::string span = fmt::format("from {} to {} ({})", axis.at(g.from), axis.at(g.to), axis.length(g.to - g.from));
      if (g.state == 'r') {
        out += fmt::format("<rect class=\"run\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"16\" fill=\"{}\" "
                           "data-from=\"{}\" data-to=\"{}\"><title>{} runs{} {}</title></rect>\n",
                           x0, y + 2, std::max(x1 - x0, 1.0), colour(t), g.from, g.to, esc(name),
                           r.cpus > 1 ? fmt::format(" on CPU {}", g.cpu) : "", span);
        if (r.cpus > 1 && x1 - x0 >= 8)
          out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"cpu-label\">{}</text>\n", x0 + 1, y + 14, g.cpu);
      } else if (g.state == 'q' || g.state == 'd') {
        out += fmt::format("<rect class=\"{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"2\" fill=\"{}\" "
                           "data-from=\"{}\" data-to=\"{}\"><title>{} {} {}</title></rect>\n",
                           g.state == 'q' ? "queued" : "delayed", x0, y + 9, std::max(x1 - x0, 1.0), colour(t), g.from,
                           g.to, esc(name), g.state == 'q' ? "waits, queued" : "is queued, delayed", span);
      }
    }
    out += "</g>\n";
    if (vm) out += kernel_lane(*vm, spans, axis, name, t, y + kLane);
  }
  // the steps: a small mark where each operation starts (a run or a tick: the time it covers in its title)
  for (std::size_t o = 0; o < spans.size(); ++o) {
    if (!spans[o].seen) continue;
    const auto& op = s.ops[o];
    const double x = axis.x(spans[o].from);
    out += fmt::format("<line class=\"step-mark\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" data-from=\"{}\" "
                       "data-to=\"{}\"><title>line {}: {} (at {}{})</title></line>\n",
                       x, axis_y - 6, x, axis_y, spans[o].from, spans[o].to, op.line, esc(scn::print_op(op)),
                       axis.at(spans[o].from), spans[o].to > spans[o].from ? " to " + axis.at(spans[o].to) : "");
  }
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\"/>\n", kLeft, axis_y, kLeft + kWidth,
                     axis_y);
  const u64 spacing = tick_spacing(axis.end);
  for (u64 ns = 0; ns <= axis.end; ns += spacing)
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#999\"/>"
                       "<text class=\"tick time-tick\" x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" data-at=\"{4}\">"
                       "{5}</text>\n",
                       axis.x(ns), axis_y, axis_y + 4, axis_y + 16, ns, axis.tick(ns, spacing));
  bool first = true;
  for (u64 clock : marks) {
    out += fmt::format("<line {}class=\"violation-marker\" x1=\"{:.1f}\" y1=\"0\" x2=\"{:.1f}\" y2=\"{}\">"
                       "<title>violation at {}</title></line>\n",
                       first ? "id=\"violation-marker\" " : "", axis.x(clock), axis.x(clock), axis_y, axis.at(clock));
    first = false;
  }
  out += "</svg>\n";
  return out;
}

template <class Get>
std::string series_chart(const SimResult& r, const TimeAxis& axis, const std::set<u64>& marks, const std::string& id,
                         const std::string& title, Get get, bool v_only) {
  const std::size_t n = r.samples.size();
  const int height = 160;
  // the range of what is plotted
  bool any = false;
  double lo = 0, hi = 0;
  auto see = [&](double v) {
    if (!any) lo = hi = v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    any = true;
  };
  for (const auto& smp : r.samples) {
    if (v_only) {
      for (s64 v : smp.cpu_avg_vruntime) see(static_cast<double>(v));
      continue;
    }
    for (const auto& t : smp.tasks)
      if (t.state == 'r' || t.state == 'q' || t.state == 'd') see(static_cast<double>(get(smp, t)));
  }
  if (!any) lo = -1, hi = 1;
  if (hi - lo < 1) hi = lo + 1;
  auto y_of = [&](double v) { return 10 + (hi - v) * (height - 30) / (hi - lo); };
  std::string out = fmt::format(
      "<svg id=\"{}\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n<title>{}</title>\n",
      id, kLeft + kWidth + 20, height, kLeft + kWidth + 20, height, esc(title), esc(title));
  out += fmt::format("<text x=\"4\" y=\"14\" class=\"label\">{}</text>\n", esc(title));
  out += fmt::format("<text x=\"4\" y=\"30\" class=\"tick\">{:.0f}</text><text x=\"4\" y=\"{}\" class=\"tick\">{:.0f}"
                     "</text>\n",
                     hi, height - 18, lo);
  auto polyline = [&](const std::string& pts, const char* col, const std::string& task) {
    if (pts.empty()) return;
    out += fmt::format("<polyline class=\"series\" data-task=\"{}\" fill=\"none\" stroke=\"{}\" points=\"{}\"/>\n",
                       esc(task), col, pts);
  };
  if (v_only) {
    for (unsigned c = 0; c < r.cpus; ++c) {  // each CPU's V, CPU 0's black
      std::string pts;
      for (std::size_t i = 0; i < n; ++i)
        if (c < r.samples[i].cpu_avg_vruntime.size())
          pts += fmt::format("{:.1f},{:.1f} ", axis.x(r.samples[i].clock), y_of(static_cast<double>(r.samples[i].cpu_avg_vruntime[c])));
      polyline(pts, v_colour(c), r.cpus > 1 ? fmt::format("V CPU {}", c) : "V");
    }
  } else {
    for (std::size_t t = 0; t < r.tasks.size(); ++t) {
      std::string pts;
      for (std::size_t i = 0; i < n; ++i) {
        const auto& smp = r.samples[i];
        const bool on = t < smp.tasks.size() &&
                        (smp.tasks[t].state == 'r' || smp.tasks[t].state == 'q' || smp.tasks[t].state == 'd');
        if (on) {
          pts += fmt::format("{:.1f},{:.1f} ", axis.x(smp.clock), y_of(static_cast<double>(get(smp, smp.tasks[t]))));
        } else {
          polyline(pts, colour(t), r.tasks[t].name);
          pts.clear();
        }
      }
      polyline(pts, colour(t), r.tasks[t].name);
    }
  }
  for (u64 clock : marks)
    out += fmt::format("<line class=\"violation-marker\" x1=\"{:.1f}\" y1=\"0\" x2=\"{:.1f}\" y2=\"{}\"/>\n",
                       axis.x(clock), axis.x(clock), height);
  out += "</svg>\n";
  return out;
}

}  // namespace

std::string html_report(const scn::Scenario& s, const std::string& source_name, const std::string& source_text,
                        const Profile& profile, const SimResult& run, const KernelRun* vm) {
  TimeAxis axis = time_axis(run);
  const bool steps = axis.end <= 1;  // no simulated time: drawn over the steps
  const SimResult stepped = steps ? by_step(run) : SimResult{};
  const SimResult& r = steps ? stepped : run;
  if (steps) axis = {std::max<u64>(r.end_clock, 1), true};
  const auto marks = violation_clocks(r);
  std::set<int> bad_lines;
  for (const auto& v : r.violations)
    if (v.op_index >= 0 && static_cast<std::size_t>(v.op_index) < s.ops.size())
      bad_lines.insert(s.ops[static_cast<std::size_t>(v.op_index)].line);

  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += fmt::format("<title>eevdf-check report: {}</title>\n", esc(s.title.empty() ? source_name : s.title));
  out += "<style>\n"
         "body{font-family:sans-serif;margin:1em;color:#222}\n"
         // the charts, then the scenario beside them when the window is wide enough, else below them:
         // nothing is cut off at any width (a chart scales down, a long scenario line scrolls in its box)
         ".main{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}\n"
         ".charts{flex:0 1 1010px;min-width:0}\n"
         ".side{flex:1 1 28em;min-width:0;max-width:100%}\n"
         ".chart{display:block;margin-bottom:.8em;border:1px solid #ddd;background:#fff;max-width:100%;height:auto}\n"
         ".label{font-size:12px}.vm-label{font-size:9px;fill:#555}.tick{font-size:10px;fill:#666}"
         ".cpu-label{font-size:10px;fill:#fff}\n"
         ".step-mark{stroke:#444;stroke-width:1}\n"
         ".violation-marker{stroke:#d00;stroke-width:2;stroke-dasharray:4 2}\n"
         "pre#scenario{background:#f6f6f6;padding:.6em;font-size:12px;line-height:1.4;overflow:auto;max-width:100%;"
         "box-sizing:border-box}\n"
         ".violating-line{background:#fdd;font-weight:bold}\n"
         "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;"
         "overflow-wrap:anywhere}\n"
         ".ok{color:#080}.bad{color:#c00}\n"
         "</style>\n</head>\n<body>\n";
  out += fmt::format("<h1>{}</h1>\n", esc(s.title.empty() ? source_name : s.title));
  out += fmt::format("<p id=\"summary\">{} &middot; profile <b>{}</b>: {} &middot; {}{} steps, {:.3f} ms simulated "
                     "&middot; <span class=\"{}\">{}</span></p>\n",
                     esc(source_name), esc(profile.name), esc(profile.description),
                     r.cpus > 1 ? fmt::format("{} CPUs &middot; ", r.cpus) : "", r.samples.size(),
                     static_cast<double>(r.end_clock) / 1e6, r.violations.empty() && r.error.empty() ? "ok" : "bad",
                     !r.error.empty() ? esc("error: " + r.error)
                     : r.violations.empty()
                         ? std::string("no invariant violated")
                         : fmt::format("{} violation(s), first {}", r.violations.size(),
                                       inv::id_name(r.violations.front().id)));
  out += "<div class=\"main\">\n<div class=\"charts\">\n";
  out += fmt::format("<h2>Who runs when (x: {}; a mark under the lanes: each operation{})</h2>\n",
                     steps ? "steps, the run takes no simulated time" : "simulated time",
                     r.cpus > 1 ? "; in a bar: its CPU" : "");
  if (vm)
    out += fmt::format("<p class=\"vm-note\">Under each task: the booted kernel ({}), recorded by <code>eevdf-check "
                       "vm</code>. Each step that takes time is drawn over the model's span of that step, the bar as "
                       "long as the share of the step the task ran (its sum_exec over the step's measured duration); "
                       "when within the step it ran is not recorded.</p>\n",
                       esc(vm->release.empty() ? std::string("release unknown") : vm->release));
  out += timeline(s, r, axis, marks, vm);
  out += steps ? "<h2>Over the steps</h2>\n" : "<h2>Over simulated time</h2>\n";
  out += series_chart(
      r, axis, marks, "chart-vruntime", "vruntime (s64, virtual ns)", [](const Sample&, const TaskSample& t) { return t.vruntime; },
      false);
  out += series_chart(
      r, axis, marks, "chart-deadline", "deadline (s64, virtual ns)", [](const Sample&, const TaskSample& t) { return t.deadline; },
      false);
  out += series_chart(
      r, axis, marks, "chart-lag", "lag = V - vruntime (virtual ns)", [](const Sample&, const TaskSample& t) { return t.lag; },
      false);
  out += series_chart(
      r, axis, marks, "chart-V", r.cpus > 1 ? "V = avg_vruntime (s64), one line a CPU" : "V = avg_vruntime (s64)",
      [](const Sample&, const TaskSample&) { return s64{0}; }, true);
  out += "<p class=\"legend\">";
  for (std::size_t t = 0; t < r.tasks.size(); ++t)
    out += fmt::format("<span style=\"color:{}\">&#9632; {}</span> ", colour(t), esc(r.tasks[t].name));
  for (unsigned c = 0; r.cpus > 1 && c < r.cpus; ++c)
    out += fmt::format("<span style=\"color:{}\">&#9472; V CPU {}</span> ", v_colour(c), c);
  out += "<span style=\"color:#d00\">&#9474; violation</span></p>\n";
  out += "</div>\n<div class=\"side\">\n<h2>Scenario</h2>\n<pre id=\"scenario\">";
  std::size_t start = 0;
  int line = 1;
  while (start < source_text.size()) {
    std::size_t end = source_text.find('\n', start);
    if (end == std::string::npos) end = source_text.size();
    const std::string text = fmt::format("{:>3}  {}", line, esc(source_text.substr(start, end - start)));
    if (bad_lines.count(line))
      out += fmt::format("<span class=\"violating-line\" id=\"line-{}\">{}</span>\n", line, text);
    else
      out += fmt::format("<span id=\"line-{}\">{}</span>\n", line, text);
    start = end + 1;
    ++line;
  }
  out += "</pre>\n";
  out += "<h2>Violations</h2>\n";
  if (r.violations.empty()) {
    out += "<p id=\"violations\" class=\"ok\">none</p>\n";
  } else {
    out += "<table id=\"violations\"><tr><th>invariant</th><th>operation</th><th>where</th><th>what</th></tr>\n";
    for (const auto& v : r.violations) {
      const std::string op = v.op_index >= 0 && static_cast<std::size_t>(v.op_index) < s.ops.size()
                                 ? fmt::format("line {}: {}", s.ops[static_cast<std::size_t>(v.op_index)].line,
                                               scn::print_op(s.ops[static_cast<std::size_t>(v.op_index)]))
                                 : std::string("initial state");
      out += fmt::format("<tr class=\"violation\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                         esc(std::string(inv::id_name(v.id))), esc(op), esc(v.where), esc(v.what));
    }
    out += "</table>\n";
  }
  out += "</div>\n</div>\n</body>\n</html>\n";
  return out;
}

}  // namespace eevdf::bridge
