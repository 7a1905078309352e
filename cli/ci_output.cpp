#include "cli/ci_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>

namespace eevdf::cli {

namespace {

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows no control character but tab and the line ends
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

}  // namespace

std::string as_tap_comments(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += line.empty() ? "#\n" : "# " + line + "\n";
  return out;
}

void write_tap(std::ostream& out, const std::vector<TestPoint>& points) {
  out << "TAP version 13\n" << fmt::format("1..{}\n", points.size());
  std::size_t n = 0;
  for (const TestPoint& p : points) {
    ++n;
    // a '#' in the description would start a directive: the name keeps none
    std::string name = one_line(p.name);
    for (char& c : name)
      if (c == '#') c = '_';
    switch (p.status) {
      case TestPoint::Status::ok: out << fmt::format("ok {} {}\n", n, name); break;
      case TestPoint::Status::failed:
        out << fmt::format("not ok {} {}\n", n, name);
        if (!p.reason.empty()) out << "# " << one_line(p.reason) << "\n";
        break;
      case TestPoint::Status::skipped: out << fmt::format("ok {} {} # SKIP {}\n", n, name, one_line(p.reason)); break;
    }
    out << as_tap_comments(p.detail);
  }
}

void write_junit(std::ostream& out, const std::string& name, const std::vector<TestPoint>& points) {
  std::vector<std::string> suites;
  for (const TestPoint& p : points)
    if (std::find(suites.begin(), suites.end(), p.suite) == suites.end()) suites.push_back(p.suite);
  std::size_t failures = 0, skipped = 0;
  double total = 0;
  for (const TestPoint& p : points) {
    failures += p.status == TestPoint::Status::failed;
    skipped += p.status == TestPoint::Status::skipped;
    total += p.seconds;
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
                     xml_escape(name), points.size(), failures, skipped, total);
  for (const std::string& suite : suites) {
    std::size_t n = 0, f = 0, s = 0;
    double t = 0;
    for (const TestPoint& p : points)
      if (p.suite == suite) {
        ++n;
        f += p.status == TestPoint::Status::failed;
        s += p.status == TestPoint::Status::skipped;
        t += p.seconds;
      }
    out << fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\">\n",
                       xml_escape(suite.empty() ? name : suite), n, f, s, t);
    for (const TestPoint& p : points) {
      if (p.suite != suite) continue;
      out << fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"",
                         xml_escape(suite.empty() ? name : suite), xml_escape(one_line(p.name)), p.seconds);
      if (p.status == TestPoint::Status::ok && p.detail.empty()) {
        out << "/>\n";
        continue;
      }
      out << ">\n";
      if (p.status == TestPoint::Status::failed)
        out << fmt::format("      <failure message=\"{}\"/>\n", xml_escape(one_line(p.reason)));
      if (p.status == TestPoint::Status::skipped)
        out << fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(one_line(p.reason)));
      if (!p.detail.empty()) out << "      <system-out>" << xml_escape(p.detail) << "</system-out>\n";
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

bool write_junit_file(const std::string& path, const std::string& name, const std::vector<TestPoint>& points,
                      std::string& error) {
  std::ofstream out(path);
  if (out) write_junit(out, name, points);
  if (!out) {
    error = path + ": cannot write the JUnit report";
    return false;
  }
  return true;
}

}  // namespace eevdf::cli
