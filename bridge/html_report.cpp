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

double x_of(std::size_t i, std::size_t n) {
  return kLeft + (n <= 1 ? 0.0 : static_cast<double>(i) * kWidth / static_cast<double>(n - 1));
}

// The step (sample) that ends the operation a violation was raised by.
std::set<std::size_t> violation_samples(const SimResult& r) {
  std::set<std::size_t> out;
  for (const auto& v : r.violations) {
    for (std::size_t i = r.samples.size(); i-- > 0;)
      if (r.samples[i].op_index == v.op_index) {
        out.insert(i);
        break;
      }
  }
  return out;
}

std::string timeline(const SimResult& r, const std::set<std::size_t>& marks) {
  const std::size_t n = r.samples.size();
  const std::size_t tasks = r.tasks.size();
  const int height = static_cast<int>(tasks) * kLane + 40;
  std::string out = fmt::format(
      "<svg id=\"timeline\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"who runs at every step\">\n",
      kLeft + kWidth + 20, height, kLeft + kWidth + 20, height);
  out += "<title>Per-task timeline: a bar while the task is on the CPU, a thin line while it is queued</title>\n";
  for (std::size_t t = 0; t < tasks; ++t) {
    const int y = 10 + static_cast<int>(t) * kLane;
    out += fmt::format("<g class=\"lane\" id=\"lane-{}\" data-task=\"{}\">\n", esc(r.tasks[t].name),
                       esc(r.tasks[t].name));
    out += fmt::format("<text x=\"4\" y=\"{}\" class=\"label\">{}</text>\n", y + 14, esc(r.tasks[t].name));
    for (std::size_t i = 0; i + 1 < n; ++i) {
      if (t >= r.samples[i].tasks.size()) continue;
      const char st = r.samples[i].tasks[t].state;
      const double x0 = x_of(i, n), x1 = x_of(i + 1, n);
      if (st == 'r') {
        // on several CPUs the bar says which (the tooltip, and the CPU's number at a change)
        const int cpu = r.samples[i].tasks[t].cpu;
        const bool new_cpu = r.cpus > 1 && (i == 0 || r.samples[i - 1].tasks.size() <= t ||
                                            r.samples[i - 1].tasks[t].state != 'r' ||
                                            r.samples[i - 1].tasks[t].cpu != cpu);
        out += fmt::format("<rect class=\"run\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"16\" fill=\"{}\">"
                           "<title>{} runs{} from {} ns (step {})</title></rect>\n",
                           x0, y + 2, std::max(x1 - x0, 1.0), colour(t), esc(r.tasks[t].name),
                           r.cpus > 1 ? fmt::format(" on CPU {}", cpu) : "", r.samples[i].clock, i);
        if (new_cpu)
          out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"cpu-label\">{}</text>\n", x0 + 1, y + 14, cpu);
      } else if (st == 'q' || st == 'd') {
        out += fmt::format("<rect class=\"{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"2\" fill=\"{}\"/>\n",
                           st == 'q' ? "queued" : "delayed", x0, y + 9, std::max(x1 - x0, 1.0), colour(t));
      }
    }
    out += "</g>\n";
  }
  const int axis = static_cast<int>(tasks) * kLane + 14;
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\"/>\n", kLeft, axis, kLeft + kWidth,
                     axis);
  const std::size_t label_every = std::max<std::size_t>(1, n / 10);
  for (std::size_t i = 0; i < n; i += label_every)
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"tick\">#{} {}us</text>\n", x_of(i, n), axis + 14, i,
                       r.samples[i].clock / 1000);
  bool first = true;
  for (std::size_t i : marks) {
    out += fmt::format("<line {}class=\"violation-marker\" x1=\"{:.1f}\" y1=\"0\" x2=\"{:.1f}\" y2=\"{}\">"
                       "<title>violation at step {}</title></line>\n",
                       first ? "id=\"violation-marker\" " : "", x_of(i, n), x_of(i, n), axis, i);
    first = false;
  }
  out += "</svg>\n";
  return out;
}

template <class Get>
std::string series_chart(const SimResult& r, const std::set<std::size_t>& marks, const std::string& id,
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
          pts += fmt::format("{:.1f},{:.1f} ", x_of(i, n), y_of(static_cast<double>(r.samples[i].cpu_avg_vruntime[c])));
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
          pts += fmt::format("{:.1f},{:.1f} ", x_of(i, n), y_of(static_cast<double>(get(smp, smp.tasks[t]))));
        } else {
          polyline(pts, colour(t), r.tasks[t].name);
          pts.clear();
        }
      }
      polyline(pts, colour(t), r.tasks[t].name);
    }
  }
  for (std::size_t i : marks)
    out += fmt::format("<line class=\"violation-marker\" x1=\"{:.1f}\" y1=\"0\" x2=\"{:.1f}\" y2=\"{}\"/>\n",
                       x_of(i, n), x_of(i, n), height);
  out += "</svg>\n";
  return out;
}

}  // namespace

std::string html_report(const scn::Scenario& s, const std::string& source_name, const std::string& source_text,
                        const Profile& profile, const SimResult& r) {
  const auto marks = violation_samples(r);
  std::set<int> bad_lines;
  for (const auto& v : r.violations)
    if (v.op_index >= 0 && static_cast<std::size_t>(v.op_index) < s.ops.size())
      bad_lines.insert(s.ops[static_cast<std::size_t>(v.op_index)].line);

  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += fmt::format("<title>eevdf-check report: {}</title>\n", esc(s.title.empty() ? source_name : s.title));
  out += "<style>\n"
         "body{font-family:sans-serif;margin:1em;color:#222}\n"
         ".main{display:flex;gap:1.5em;align-items:flex-start}\n"
         ".charts{flex:none}\n"
         ".chart{display:block;margin-bottom:.8em;border:1px solid #ddd;background:#fff}\n"
         ".label{font-size:12px}.tick{font-size:10px;fill:#666}.cpu-label{font-size:10px;fill:#fff}\n"
         ".violation-marker{stroke:#d00;stroke-width:2;stroke-dasharray:4 2}\n"
         "pre#scenario{background:#f6f6f6;padding:.6em;font-size:12px;line-height:1.4;max-width:40em;overflow:auto}\n"
         ".violating-line{background:#fdd;font-weight:bold}\n"
         "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}\n"
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
  out += r.cpus > 1 ? "<h2>Who runs when (x: steps; labels: clock; in a bar: the CPU it starts on)</h2>\n"
                    : "<h2>Who runs when (x: steps; labels: clock)</h2>\n";
  out += timeline(r, marks);
  out += "<h2>Over the steps</h2>\n";
  out += series_chart(
      r, marks, "chart-vruntime", "vruntime (s64, virtual ns)", [](const Sample&, const TaskSample& t) { return t.vruntime; },
      false);
  out += series_chart(
      r, marks, "chart-deadline", "deadline (s64, virtual ns)", [](const Sample&, const TaskSample& t) { return t.deadline; },
      false);
  out += series_chart(
      r, marks, "chart-lag", "lag = V - vruntime (virtual ns)", [](const Sample&, const TaskSample& t) { return t.lag; },
      false);
  out += series_chart(
      r, marks, "chart-V", r.cpus > 1 ? "V = avg_vruntime (s64), one line a CPU" : "V = avg_vruntime (s64)",
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
