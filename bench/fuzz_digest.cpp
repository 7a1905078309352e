// A digest of everything the executor computes for a fixed stream of random
// byte inputs: the violations (identifier, operation, site, text, entity
// snapshots), the executed/skipped counts, and, with tracing, the full state
// after every operation. Used to show that a speed change is a pure speed
// change: the digest before and after must be equal.
//
//   fuzz_digest [runs=20000] [seed=1] [version=1] [profiles=mainline,v7.1]
//
// (prints one line per profile). version is the byte format of the inputs: 2
// adds task groups; 4 with runqueues=N (a fifth argument) groups on N CPUs.
// FUZZ_DIGEST_SHOW=1 also prints every violating input as a scenario, with
// the violation, to stderr. FUZZ_DIGEST_ONLY=I-SUM,I-LAG (or FUZZ_DIGEST_SKIP=...)
// checks only those invariants (or all but those), as `fuzz --only/--skip`:
// the digest of a partial selection, for a change to the checker's bookkeeping
// that depends on the selection; FUZZ_DIGEST_ONLY=none checks none.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/bytes.hpp"
#include "scenario/executor.hpp"
#include "scenario/scenario_print.hpp"

namespace {

struct Fnv {
  std::uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  template <class T>
  void pod(T v) { bytes(&v, sizeof v); }
  void str(const std::string& s) { pod(s.size()); bytes(s.data(), s.size()); }
  void entity(const eevdf::inv::EntitySnapshot& e) {
    str(e.task);
    for (auto v : {e.vruntime, e.deadline, e.vprot, e.slice, e.weight, e.min_vruntime, e.min_slice, e.max_slice}) pod(v);
    pod(e.vlag);
    pod(e.key);
    for (bool b : {e.on_rq, e.curr, e.sched_delayed, e.rel_deadline, e.custom_slice, e.eligible}) pod(b);
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace eevdf;
  const std::uint64_t runs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const auto version = static_cast<std::uint8_t>(argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 1);
  const std::string profile_list = argc > 4 ? argv[4] : "mainline,v7.1";
  const auto runqueues = static_cast<std::uint8_t>(argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 1);
  std::vector<std::string> names;
  for (std::size_t at = 0; at <= profile_list.size();) {
    const std::size_t comma = std::min(profile_list.find(',', at), profile_list.size());
    names.push_back(profile_list.substr(at, comma - at));
    at = comma + 1;
  }
  for (const std::string& name : names) {
    std::string error;
    scn::ProfileOverride o;
    o.profile = name;
    const auto profile = scn::build_profile(o, error);
    if (!profile) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 2;
    }
    scn::ExecOptions plain;
    plain.strict = false;
    const char* only = std::getenv("FUZZ_DIGEST_ONLY");
    const char* skip = std::getenv("FUZZ_DIGEST_SKIP");
    if (only && std::string_view(only) == "none") {
      plain.selection.on.fill(false);
    } else if (only || skip) {
      const std::string bad = inv::parse_selection(only ? only : "", skip ? skip : "", plain.selection);
      if (!bad.empty()) {
        std::fprintf(stderr, "%s\n", bad.c_str());
        return 2;
      }
    }
    scn::ExecOptions all = plain;  // every violation, and the state after every operation
    all.keep_going = true;
    all.trace = true;
    scn::Executor fast(*profile, plain), traced(*profile, all);
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> bytes;
    scn::Scenario s;  // reused, as the engines do
    Fnv h;
    std::uint64_t ops = 0, violations = 0;
    const bool show = std::getenv("FUZZ_DIGEST_SHOW") != nullptr;
    for (std::uint64_t run = 0; run < runs; ++run) {
      bytes.resize(8 + rng() % 400);
      for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
      bytes[0] = version;
      if (scn::bytes_header_size(bytes.data(), bytes.size()) == 2) bytes[1] = scn::bytes_runqueue_byte(runqueues);
      scn::decode_bytes_into(bytes.data(), bytes.size(), s);
      for (scn::Executor* ex : {&fast, &traced}) {
        if (ex == &traced && run % 8 != 0) continue;  // tracing is slow; every 8th input
        const scn::ExecResult r = ex->run(s);
        h.pod(r.executed);
        h.pod(r.skipped);
        h.pod(r.oops);
        h.str(r.error);
        h.pod(r.violations.size());
        for (const auto& v : r.violations) {
          h.pod(v.id);
          h.pod(v.op_index);
          h.str(v.where);
          h.str(v.what);
          for (const auto& e : v.entities) h.entity(e);
        }
        for (const auto& t : r.trace) {
          h.pod(t.op_index);
          h.pod(t.clock);
          h.str(t.curr);
          h.pod(t.avg_vruntime);
          h.pod(t.sum_w_vruntime);
          h.pod(t.sum_weight);
          h.pod(t.zero_vruntime);
          h.pod(t.nr_queued);
          h.pod(t.need_resched);
          for (const auto& e : t.tasks) h.entity(e);
          for (const auto& st : t.task_state) h.str(st);
        }
        if (ex == &fast) {
          ops += static_cast<std::uint64_t>(r.executed + r.skipped);
          violations += r.violations.size();
          if (show && !r.violations.empty())
            std::fprintf(stderr, "# run %llu: %s in %s: %s\n%s\n", static_cast<unsigned long long>(run),
                         std::string(inv::id_name(r.violations[0].id)).c_str(), r.violations[0].where.c_str(),
                         r.violations[0].what.c_str(), scn::print_scenario(s).c_str());
        }
      }
    }
    std::printf("%-8s format %u runs %llu seed %llu ops %llu violations %llu digest %016llx\n", name.c_str(),
                unsigned{version}, static_cast<unsigned long long>(runs), static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(ops), static_cast<unsigned long long>(violations),
                static_cast<unsigned long long>(h.h));
  }
  return 0;
}
