#include "cli/known.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kernelsrc/kernel_backend.hpp"
#include "scenario/known.hpp"

namespace eevdf::cli {

int run_known(const KnownArgs& a) {
  const auto backend = scn::backend_from_name(a.backend);
  if (!backend || *backend == scn::Backend::lockstep) {
    std::cerr << "eevdf-check: --backend " << a.backend << ": model or kernel\n";
    return 2;
  }
  int rc = 0;
  for (const std::string& file : a.files) {
    const std::string profile = std::filesystem::path(file).stem().string();
    std::string error;
    auto set = scn::KnownSet::load(file, error);
    if (!set) {
      std::cerr << "eevdf-check: " << error << "\n";
      return 2;
    }
    if (*backend == scn::Backend::kernel && kernelsrc::judge() != profile) {
      std::cout << fmt::format("{}: skipped on the kernel backend: this build's tree (Linux {}) is judged by {}\n",
                               file, kernelsrc::kernel_version(), kernelsrc::judge());
      continue;
    }
    const auto problems = scn::replay_known(*set, profile, a.root, *backend, a.update);
    for (const std::string& p : problems) std::cout << fmt::format("{}: {}\n", file, p);
    if (!problems.empty()) rc = 1;
    if (a.update) {
      // the same file with each entry's line rewritten (comments and order kept)
      std::ifstream in(file);
      std::vector<std::string> lines;
      for (std::string line; std::getline(in, line);) lines.push_back(line);
      for (const scn::KnownFinding& k : set->entries()) {
        if (k.line < 1 || static_cast<std::size_t>(k.line) > lines.size()) continue;
        scn::KnownSet one;
        one.add(k);
        std::string text = one.print("");
        if (!text.empty() && text.back() == '\n') text.pop_back();
        lines[static_cast<std::size_t>(k.line) - 1] = text;
      }
      std::ofstream out(file);
      for (const std::string& line : lines) out << line << "\n";
    }
    std::cout << fmt::format("{}: {} entries, {} problem(s){}\n", file, set->entries().size(), problems.size(),
                             a.update ? " (updated)" : "");
  }
  return rc;
}

}  // namespace eevdf::cli
