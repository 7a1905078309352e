#include "bridge/rtapp_import.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace eevdf::bridge {

namespace {

using json = nlohmann::ordered_json;

struct Bad {
  std::string what;
};

u64 to_us_ns(const json& v, const std::string& where) {
  if (!v.is_number_integer() && !v.is_number_unsigned())
    throw Bad{fmt::format("{}: expected a whole number of microseconds, found {}", where, v.dump())};
  const long long us = v.get<long long>();
  if (us < 0) throw Bad{fmt::format("{}: expected a duration >= 0 us, found {}", where, us)};
  if (us > 4'000'000'000'000LL) throw Bad{fmt::format("{}: duration {} us is too large", where, us)};
  return static_cast<u64>(us) * 1000;
}

long long to_loop(const json& v, const std::string& where) {
  if (!v.is_number_integer()) throw Bad{fmt::format("{}: expected an integer loop count, found {}", where, v.dump())};
  const long long n = v.get<long long>();
  if (n < -1) throw Bad{fmt::format("{}: expected -1 (forever) or a count >= 0, found {}", where, n)};
  return n;
}

Policy to_policy(const json& v, const std::string& where) {
  if (!v.is_string()) throw Bad{fmt::format("{}: expected a policy name, found {}", where, v.dump())};
  const std::string p = v.get<std::string>();
  if (p == "SCHED_OTHER" || p == "SCHED_NORMAL") return Policy::normal;
  if (p == "SCHED_BATCH") return Policy::batch;
  if (p == "SCHED_IDLE") return Policy::idle;
  throw Bad{fmt::format("{}: policy '{}' is not modelled (only the fair class: SCHED_OTHER, SCHED_BATCH, SCHED_IDLE)",
                        where, p)};
}

// rt-app names events by prefix with an optional number: "run0", "sleep1".
std::string event_type(const std::string& key) {
  std::string base = key;
  while (!base.empty() && std::isdigit(static_cast<unsigned char>(base.back()))) base.pop_back();
  return base;
}

bool is_event_like(const std::string& key) {
  static const char* const kAll[] = {"run",  "runtime", "sleep",   "timer", "yield",  "lock",   "unlock",
                                     "wait", "signal",  "broadcast", "sync", "barrier", "suspend", "resume",
                                     "mem",  "iorun",   "fork",    "pi_enabled"};
  const std::string t = event_type(key);
  for (const char* k : kAll)
    if (t == k) return true;
  return false;
}

RtEvent parse_event(const std::string& key, const json& v, const std::string& where) {
  const std::string type = event_type(key);
  RtEvent e;
  e.key = key;
  const std::string at = fmt::format("{} event '{}'", where, key);
  if (type == "run") {
    e.kind = RtEvent::Kind::run;
    e.ns = to_us_ns(v, at);
  } else if (type == "runtime") {
    e.kind = RtEvent::Kind::runtime;
    e.ns = to_us_ns(v, at);
  } else if (type == "sleep") {
    e.kind = RtEvent::Kind::sleep;
    e.ns = to_us_ns(v, at);
  } else if (type == "yield") {
    e.kind = RtEvent::Kind::yield;
  } else if (type == "suspend") {
    e.kind = RtEvent::Kind::suspend;
  } else if (type == "resume") {
    e.kind = RtEvent::Kind::resume;
    if (!v.is_string() || v.get<std::string>().empty())
      throw Bad{fmt::format("{}: expected the name of the task to resume", at)};
    e.ref = v.get<std::string>();
  } else if (type == "timer") {
    e.kind = RtEvent::Kind::timer;
    if (!v.is_object()) throw Bad{fmt::format("{}: expected {{\"ref\": ..., \"period\": ...}}", at)};
    for (const auto& [k, x] : v.items()) {
      if (k == "ref") {
        if (!x.is_string()) throw Bad{fmt::format("{}: \"ref\" must be a string", at)};
        e.ref = x.get<std::string>();
      } else if (k == "period") {
        e.ns = to_us_ns(x, at + " period");
      } else if (k == "mode") {
        if (x == "absolute")
          e.absolute = true;
        else if (x != "relative")
          throw Bad{fmt::format("{}: timer mode {} is neither \"relative\" nor \"absolute\"", at, x.dump())};
      } else {
        throw Bad{fmt::format("{}: unknown timer key '{}'", at, k)};
      }
    }
    if (e.ns == 0) throw Bad{fmt::format("{}: a timer needs a period > 0", at)};
  } else {
    throw Bad{fmt::format("{}: unsupported rt-app event '{}' (supported: run, runtime, sleep, timer, yield, "
                          "suspend, resume)",
                          where, key)};
  }
  return e;
}

// policy, priority, dl-runtime and the keys that do not matter on one CPU;
// false when key is none of them.
bool sched_key(const std::string& key, const json& v, const std::string& where, RtSched& out) {
  if (key == "policy") {
    out.policy = to_policy(v, where + " policy");
  } else if (key == "priority") {
    if (!v.is_number_integer() || v.get<long long>() < -20 || v.get<long long>() > 19)
      throw Bad{where + ": \"priority\" of a fair task is its nice level, -20 .. 19; found " + v.dump()};
    out.nice = v.get<int>();
  } else if (key == "dl-runtime") {
    const u64 ns = to_us_ns(v, where + " dl-runtime");
    if (ns != 0 && (ns < 100000 || ns > 100000000))
      throw Bad{where + ": \"dl-runtime\" of a fair task is its slice, 100 .. 100000 us (or 0); found " + v.dump()};
    out.slice_ns = ns;
  } else if (key == "dl-period" || key == "dl-deadline") {
    throw Bad{fmt::format("{}: '{}' is SCHED_DEADLINE, which is not modelled", where, key)};
  } else if (key == "cpus") {
    out.pinned = true;  // refused on several CPUs (simulate_rtapp)
  } else if (key == "util_min" || key == "util_max" || key == "membind_nodes" || key == "nodes_membind") {
    // no uclamp or NUMA in the model: no effect on EEVDF's decisions here
  } else if (key == "taskgroup") {
    if (!v.is_string()) throw Bad{where + ": \"taskgroup\" must be a cgroup path, \"/a/b\""};
    out.taskgroup = v.get<std::string>();
  } else {
    return false;
  }
  return true;
}

std::string identifier(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "t_" + out;
  if (out == "idle") out = "idle_";
  if (out.size() > 28) out.resize(28);
  return out;
}

// "/a/b" -> the scenario groups "a", "a_b" (each named after its path)
std::vector<std::string> group_path(const std::string& path, const std::string& where) {
  std::vector<std::string> out;
  if (path.empty() || path == "/") return out;
  if (path[0] != '/') throw Bad{where + ": \"taskgroup\" is a path from the root, \"/a/b\"; found \"" + path + "\""};
  std::string name;
  std::size_t i = 1;
  while (i <= path.size()) {
    const std::size_t j = std::min(path.find('/', i), path.size());
    const std::string part = path.substr(i, j - i);
    if (part.empty()) throw Bad{where + ": an empty component in \"taskgroup\" \"" + path + "\""};
    name += (name.empty() ? "" : "_") + part;
    std::string id = identifier(name);
    if (id == "root") id = "root_";  // the root group's reserved name
    out.push_back(id);
    i = j + 1;
  }
  if (out.size() > 8) throw Bad{where + ": \"taskgroup\" deeper than 8 levels"};
  return out;
}

RtWorkload parse(const json& root) {
  if (!root.is_object()) throw Bad{"the top level must be an object with \"tasks\" (and \"global\")"};
  RtWorkload w;
  Policy default_policy = Policy::normal;
  for (const auto& [k, v] : root.items()) {
    if (k == "global") {
      if (!v.is_object()) throw Bad{"\"global\" must be an object"};
      for (const auto& [g, x] : v.items()) {
        if (g == "duration") {
          if (!x.is_number_integer()) throw Bad{"global.duration: expected whole seconds"};
          const long long d = x.get<long long>();
          if (d > 100000) throw Bad{"global.duration: more than 100000 s"};
          if (d > 0) w.duration_ns = static_cast<u64>(d) * 1'000'000'000ULL;
        } else if (g == "default_policy") {
          default_policy = to_policy(x, "global.default_policy");
        } else if (g == "calibration" || g == "logdir" || g == "log_basename" || g == "logsize" || g == "gnuplot" ||
                   g == "lock_pages" || g == "pi_enabled" || g == "ftrace" || g == "io_device" ||
                   g == "mem_buffer_size" || g == "cumulative_slack" || g == "log_size") {
          // the run environment of the real rt-app: nothing to model
        } else {
          throw Bad{fmt::format("global: unsupported key '{}'", g)};
        }
      }
    } else if (k == "tasks") {
      // handled below, after the default policy is known
    } else if (k == "resources") {
      throw Bad{"\"resources\" (mutexes, barriers, conditions) are not supported"};
    } else if (!k.empty() && k[0] == '_') {
      // comments, e.g. "_eevdf_check" written by `export --rt-app`
    } else {
      throw Bad{fmt::format("unsupported top-level key '{}'", k)};
    }
  }
  if (!root.contains("tasks") || !root["tasks"].is_object() || root["tasks"].empty())
    throw Bad{"\"tasks\" must be a non-empty object"};
  for (const auto& [tname, t] : root["tasks"].items()) {
    const std::string where = fmt::format("task '{}'", tname);
    if (!t.is_object()) throw Bad{where + ": expected an object"};
    RtThread th;
    th.rtapp_name = tname;
    th.policy = default_policy;
    long long instances = 1;
    RtPhase inline_phase;
    inline_phase.name = "(events)";
    std::vector<RtPhase> phases;
    RtSched task_sched;
    for (const auto& [k, v] : t.items()) {
      if (k == "instance") {
        if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > 64)
          throw Bad{where + ": \"instance\" must be 0 .. 64"};
        instances = v.get<long long>();
      } else if (k == "loop") {
        th.loop = to_loop(v, where + " loop");
      } else if (sched_key(k, v, where, task_sched)) {
      } else if (k == "delay") {
        th.delay_ns = to_us_ns(v, where + " delay");
      } else if (k == "phases") {
        if (!v.is_object() || v.empty()) throw Bad{where + ": \"phases\" must be a non-empty object"};
        for (const auto& [pname, p] : v.items()) {
          const std::string pw = fmt::format("{} phase '{}'", where, pname);
          if (!p.is_object()) throw Bad{pw + ": expected an object"};
          RtPhase ph;
          ph.name = pname;
          for (const auto& [ek, ev] : p.items()) {
            if (ek == "taskgroup")
              throw Bad{pw + ": \"taskgroup\" of a phase is not supported (give it to the task)"};
            if (ek == "loop")
              ph.loop = to_loop(ev, pw + " loop");
            else if (!sched_key(ek, ev, pw, ph.sched))
              ph.events.push_back(parse_event(ek, ev, pw));
          }
          if (ph.loop == -1) throw Bad{pw + ": a phase loop of -1 is not supported (loop the task instead)"};
          phases.push_back(std::move(ph));
        }
      } else if (is_event_like(k)) {
        inline_phase.events.push_back(parse_event(k, v, where));
      } else {
        throw Bad{fmt::format("{}: unsupported key '{}'", where, k)};
      }
    }
    if (task_sched.policy) th.policy = *task_sched.policy;
    if (task_sched.nice) th.nice = *task_sched.nice;
    if (task_sched.slice_ns) th.slice_ns = *task_sched.slice_ns;
    if (task_sched.taskgroup) th.groups = group_path(*task_sched.taskgroup, where);
    th.pinned = task_sched.pinned ||
                std::any_of(phases.begin(), phases.end(), [](const RtPhase& ph) { return ph.sched.pinned; });
    if (!inline_phase.events.empty()) {
      if (!phases.empty()) throw Bad{where + ": events and \"phases\" in the same task"};
      phases.push_back(std::move(inline_phase));
    }
    if (phases.empty()) throw Bad{where + ": no events"};
    th.phases = std::move(phases);
    for (long long i = 0; i < instances; ++i) {
      RtThread copy = th;
      copy.name = identifier(tname) + (instances > 1 ? fmt::format("_{}", i) : "");
      w.threads.push_back(std::move(copy));
    }
  }
  for (std::size_t i = 0; i < w.threads.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (w.threads[i].name == w.threads[j].name)
        throw Bad{fmt::format("tasks '{}' and '{}' map to the same name '{}'", w.threads[j].rtapp_name,
                              w.threads[i].rtapp_name, w.threads[i].name)};
  if (w.threads.size() > 256) throw Bad{"more than 256 threads"};
  if (w.threads.empty()) throw Bad{"no thread (every task has \"instance\": 0)"};
  for (const auto& th : w.threads)
    for (const auto& ph : th.phases)
      for (const auto& e : ph.events)
        if (e.kind == RtEvent::Kind::resume &&
            std::none_of(w.threads.begin(), w.threads.end(), [&](const RtThread& x) { return x.rtapp_name == e.ref; }))
          throw Bad{fmt::format("task '{}' phase '{}': resume of '{}', which is not a task", th.rtapp_name, ph.name,
                                e.ref)};
  return w;
}

}  // namespace

std::variant<RtWorkload, std::string> parse_rtapp(const std::string& text, const std::string& file) {
  json root;
  try {
    root = json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    return fmt::format("{}: not valid JSON: {}", file, e.what());
  }
  try {
    return parse(root);
  } catch (const Bad& b) {
    return fmt::format("{}: {}", file, b.what);
  } catch (const json::exception& e) {
    return fmt::format("{}: {}", file, e.what());
  }
}

namespace {

struct ThreadRun {
  enum class St : std::uint8_t { waiting, runnable, done } st = St::waiting;
  u64 wake_at = 0;
  std::size_t phase = 0, event = 0;
  long long phase_loops = 0, task_loops = 0;
  bool loaded = false;  // the current event has started
  u64 remaining = 0;    // run: CPU time left
  u64 runtime_end = 0;  // runtime: wall-clock end
  u64 start = 0;        // first time on the CPU (timers count from here)
  bool started = false;
  std::vector<std::pair<std::string, u64>> timers;  // "unique..." ref -> next expiry
  bool suspended = false;
  bool exit_on_wake = false;  // its last event was a sleep: it exits once it runs again
};

class Runner {
 public:
  Runner(const RtWorkload& w, const Profile& p, u64 duration, bool keep, inv::Tolerances tol, unsigned cpus,
         unsigned smt)
      : w_(w), sim_(p, true, tol, keep, cpus, smt), end_(duration), cpus_(cpus) {
    run_.scenario.profile = p.name;
    run_.scenario.title = "rt-app workload";
    run_.scenario.runqueues = cpus;
    run_.scenario.smt = smt;
    run_.scenario.cpus = p.tunables.ncpus;
  }

  RtRun go() {
    for (const RtThread& t : w_.threads) {
      std::string parent;
      for (const std::string& g : t.groups) {  // its cgroup path, created once
        if (std::find(groups_.begin(), groups_.end(), g) == groups_.end()) {
          scn::Op op;
          op.kind = scn::OpKind::group_create;
          op.group = g;
          op.parent = parent;
          op.value = scn::kDefaultShares;
          emit(op);
          groups_.push_back(g);
        }
        parent = g;
      }
      scn::Op op;
      op.kind = scn::OpKind::create;
      op.task = t.name;
      op.value = t.nice;
      op.policy = t.policy;
      op.slice = static_cast<s64>(t.slice_ns);
      op.group = parent;
      emit(op);
      ThreadRun tr;
      tr.wake_at = t.delay_ns;
      tr.st = ThreadRun::St::waiting;
      threads_.push_back(tr);
    }
    int idle_rounds = 0;
    while (!sim_.stopped() && !sim_stop_ && now() < end_) {
      const u64 before_ops = static_cast<u64>(run_.scenario.ops.size());
      const u64 clock = now();
      for (std::size_t i = 0; i < threads_.size(); ++i)
        if (threads_[i].st == ThreadRun::St::waiting && threads_[i].wake_at <= clock) {
          threads_[i].st = ThreadRun::St::runnable;
          wake(i, -1);
        }
      if (needs_schedule()) emit_plain(scn::OpKind::schedule);
      if (sim_.stopped()) break;
      bool changed = false;  // a CPU changed hands: look again
      for (unsigned cpu = 0; cpu < cpus_ && !changed; ++cpu) {
        const int c = curr_thread(cpu);
        if (c >= 0 && !progress(static_cast<std::size_t>(c))) changed = true;
        if (sim_.stopped() || sim_stop_) break;
      }
      if (changed) continue;
      if (sim_.stopped() || sim_stop_) break;
      if (any_resched()) continue;  // a resume or a renice asked for a switch: schedule first
      // advance to the next event: a wake-up, the end of a running task's event, the next tick, the end
      u64 to = end_;
      const u64 tick = sim_.rq().profile().tick_nsec();
      for (unsigned cpu = 0; cpu < cpus_; ++cpu) {
        const int c = curr_thread(cpu);
        if (c < 0) continue;
        // while a thread runs, stop at the next tick (it may lose the CPU there); an idle CPU waits for a wake-up
        to = std::min(to, (clock / tick + 1) * tick);
        const ThreadRun& t = threads_[static_cast<std::size_t>(c)];
        const RtEvent& e = current_event(static_cast<std::size_t>(c));
        if (e.kind == RtEvent::Kind::run) to = std::min(to, clock + t.remaining);
        if (e.kind == RtEvent::Kind::runtime) to = std::min(to, std::max(t.runtime_end, clock));
      }
      for (const auto& t : threads_)
        if (t.st == ThreadRun::St::waiting) to = std::min(to, std::max(t.wake_at, clock));
      if (to > clock) {
        scn::Op op;
        op.kind = scn::OpKind::run;
        op.value = static_cast<s64>(to - clock);
        for (unsigned cpu = 0; cpu < cpus_; ++cpu) {
          const int c = curr_thread(cpu);
          if (c >= 0 && current_event(static_cast<std::size_t>(c)).kind == RtEvent::Kind::run)
            threads_[static_cast<std::size_t>(c)].remaining -= to - clock;
        }
        emit(op);
        idle_rounds = 0;
      } else if (static_cast<u64>(run_.scenario.ops.size()) == before_ops && ++idle_rounds > 2) {
        break;  // nothing can happen any more (cannot occur: a tick is always ahead)
      }
      if (++rounds_ > 50'000'000) {
        run_.result.error = "the run did not finish (more than 50 million steps)";
        break;
      }
    }
    auto err = run_.result.error;
    run_.result = sim_.finish();
    if (!err.empty()) run_.result.error = err;
    return std::move(run_);
  }

 private:
  const RtWorkload& w_;
  Sim sim_;
  u64 end_;
  unsigned cpus_;
  RtRun run_;
  std::vector<ThreadRun> threads_;
  std::vector<std::string> groups_;  // created so far
  long long rounds_ = 0;
  bool sim_stop_ = false;
  std::vector<std::pair<std::string, u64>> shared_timers_;  // other refs: shared by every thread
  int zero_time_ops_ = 0;
  u64 zero_time_clock_ = ~u64{0};

  u64 now() const { return sim_.rq().clock_task; }

  int curr_thread(unsigned cpu) const {
    const Rq& rq = sim_.system().rq(cpu);
    const int c = rq.curr;
    if (c < 0) return -1;
    return rq.tasks[static_cast<std::size_t>(c)].name.empty() ? -1 : thread_of_task(c);
  }
  int thread_of_task(int task) const {
    // threads are created first and in order: task id == thread index
    return task < static_cast<int>(threads_.size()) ? task : -1;
  }
  bool any_resched() const {
    for (unsigned cpu = 0; cpu < cpus_; ++cpu)
      if (sim_.system().rq(cpu).need_resched) return true;
    return false;
  }
  bool needs_schedule() const {
    for (unsigned cpu = 0; cpu < cpus_; ++cpu) {
      const Rq& rq = sim_.system().rq(cpu);
      if (rq.need_resched || (rq.curr < 0 && rq.cfs.nr_queued)) return true;
    }
    return false;
  }

  // Wakes thread i: its first wake-up on CPU i mod cpus (several CPUs), later
  // ones where select_task_rq_fair() puts them, made from CPU `from` (-1: its own).
  void wake(std::size_t i, int from) {
    scn::Op op;
    op.kind = scn::OpKind::wake;
    op.task = w_.threads[i].name;
    if (cpus_ > 1) {
      const Task& t = sim_.rq().tasks[i];
      if (t.state == TaskState::new_)
        op.cpu = static_cast<int>(i % cpus_);
      else if (from >= 0 && from != t.cpu)
        op.from = from;
    }
    emit(op);
  }

  const RtEvent& current_event(std::size_t i) const {
    const ThreadRun& t = threads_[i];
    return w_.threads[i].phases[t.phase].events[t.event];
  }

  void emit(scn::Op op) {
    if (now() == zero_time_clock_) {
      if (++zero_time_ops_ > 100000) {
        run_.result.error = fmt::format("no time passes at {} ns: an event loop without run, runtime, sleep or timer",
                                        now());
        sim_stop_ = true;
      }
    } else {
      zero_time_clock_ = now();
      zero_time_ops_ = 0;
    }
    if (sim_stop_) return;
    run_.scenario.ops.push_back(op);
    if (!sim_.apply(op)) sim_stop_ = true;
  }

  void emit_task(scn::OpKind k, std::size_t i) {
    scn::Op op;
    op.kind = k;
    op.task = w_.threads[i].name;
    emit(op);
  }
  void emit_plain(scn::OpKind k) {
    scn::Op op;
    op.kind = k;
    emit(op);
  }

  // Moves to the next event of thread i; false when the thread has finished.
  bool next_event(std::size_t i) {
    ThreadRun& t = threads_[i];
    const RtThread& th = w_.threads[i];
    t.loaded = false;
    if (++t.event < th.phases[t.phase].events.size()) return true;
    t.event = 0;
    if (++t.phase_loops < th.phases[t.phase].loop) return true;
    t.phase_loops = 0;
    if (++t.phase < th.phases.size()) return skip_empty(i);
    t.phase = 0;
    ++t.task_loops;
    if (th.loop >= 0 && t.task_loops >= th.loop) return false;
    return skip_empty(i);
  }
  // phases with loop 0 are skipped
  bool skip_empty(std::size_t i) {
    ThreadRun& t = threads_[i];
    const RtThread& th = w_.threads[i];
    std::size_t guard = 0;
    while (th.phases[t.phase].loop == 0) {
      if (++guard > th.phases.size()) return false;
      if (++t.phase >= th.phases.size()) {
        t.phase = 0;
        ++t.task_loops;
        if (th.loop >= 0 && t.task_loops >= th.loop) return false;
      }
    }
    return true;
  }

  // The thread on the CPU performs what takes no time. Returns false when it
  // gave up the CPU (sleep, yield, exit), true when it now runs for a while.
  bool progress(std::size_t i) {
    ThreadRun& t = threads_[i];
    const RtThread& th = w_.threads[i];
    if (t.exit_on_wake) return finish(i);
    if (!t.started) {
      t.started = true;
      t.start = now();
      if (th.loop == 0 || !skip_empty(i)) return finish(i);
    }
    for (int guard = 0; guard < 1000000; ++guard) {
      const RtEvent& e = current_event(i);
      if (!t.loaded) {
        if (t.event == 0 && !apply_phase_sched(i)) return false;
        t.loaded = true;
        switch (e.kind) {
          case RtEvent::Kind::run: t.remaining = e.ns; break;
          case RtEvent::Kind::runtime: t.runtime_end = now() + e.ns; break;
          case RtEvent::Kind::sleep:
            if (e.ns == 0) break;
            t.st = ThreadRun::St::waiting;
            t.wake_at = now() + e.ns;
            if (!next_event(i)) t.exit_on_wake = true;
            emit_task(scn::OpKind::sleep, i);
            return false;
          case RtEvent::Kind::timer: {
            // rt-app: the timer starts at its first use; "unique..." refs belong to the thread,
            // others are shared by every thread that names them.
            auto& list = e.ref.rfind("unique", 0) == 0 ? t.timers : shared_timers_;
            auto it = std::find_if(list.begin(), list.end(), [&](const auto& x) { return x.first == e.ref; });
            if (it == list.end()) {
              list.emplace_back(e.ref, now());
              it = list.end() - 1;
            }
            it->second += e.ns;
            if (it->second > now()) {
              t.st = ThreadRun::St::waiting;
              t.wake_at = it->second;
              if (!next_event(i)) t.exit_on_wake = true;
              emit_task(scn::OpKind::sleep, i);
              return false;
            }
            if (!e.absolute) it->second = now();  // relative: a missed period restarts from now
            break;
          }
          case RtEvent::Kind::suspend:
            t.st = ThreadRun::St::waiting;
            t.wake_at = ~u64{0};
            t.suspended = true;
            if (!next_event(i)) t.exit_on_wake = true;
            emit_task(scn::OpKind::sleep, i);
            return false;
          case RtEvent::Kind::resume:
            for (std::size_t j = 0; j < threads_.size(); ++j)
              if (j != i && threads_[j].suspended && w_.threads[j].rtapp_name == e.ref) {
                threads_[j].suspended = false;
                threads_[j].st = ThreadRun::St::runnable;
                wake(j, sim_.rq_of(static_cast<int>(i)).task(static_cast<int>(i))->cpu);
              }
            break;
          case RtEvent::Kind::yield:
            if (!next_event(i)) return finish(i);
            emit_task(scn::OpKind::yield, i);
            return false;
        }
      }
      const bool done = (e.kind == RtEvent::Kind::run && t.remaining == 0) ||
                        (e.kind == RtEvent::Kind::runtime && now() >= t.runtime_end) ||
                        e.kind == RtEvent::Kind::sleep || e.kind == RtEvent::Kind::timer ||
                        e.kind == RtEvent::Kind::resume;
      if (!done) return true;
      if (!next_event(i)) return finish(i);
    }
    return true;
  }

  // A phase's policy/priority/dl-runtime, set as the phase starts. False if the thread lost the CPU.
  bool apply_phase_sched(std::size_t i) {
    const ThreadRun& t = threads_[i];
    const RtSched& sc = w_.threads[i].phases[t.phase].sched;
    const Task& task = sim_.rq().tasks[i];
    auto op_for = [&](scn::OpKind k) {
      scn::Op op;
      op.kind = k;
      op.task = w_.threads[i].name;
      return op;
    };
    if (sc.policy && *sc.policy != task.policy) {
      auto op = op_for(scn::OpKind::policy);
      op.policy = *sc.policy;
      emit(op);
    }
    if (sc.nice && *sc.nice != task.nice) {
      auto op = op_for(scn::OpKind::nice);
      op.value = *sc.nice;
      emit(op);
    }
    if (sc.slice_ns && *sc.slice_ns != (task.se.custom_slice ? task.se.slice : 0)) {
      auto op = op_for(scn::OpKind::slice);
      op.value = static_cast<s64>(*sc.slice_ns);
      emit(op);
    }
    return sim_.rq_of(static_cast<int>(i)).curr == static_cast<int>(i);
  }

  bool finish(std::size_t i) {
    threads_[i].st = ThreadRun::St::done;
    emit_task(scn::OpKind::exit, i);
    return false;
  }
};

}  // namespace

RtRun simulate_rtapp(const RtWorkload& w, const Profile& profile, u64 duration_ns, bool keep_samples,
                     inv::Tolerances tolerances, unsigned cpus, unsigned smt) {
  if (cpus > 1)
    for (const RtThread& t : w.threads)
      if (t.pinned) {
        RtRun refused;
        refused.result.error = fmt::format("task '{}' has \"cpus\": affinity is not modelled, and on {} CPUs it "
                                           "would change where it runs (remove the key to let the model choose)",
                                           t.rtapp_name, cpus);
        return refused;
      }
  Runner r(w, profile, duration_ns, keep_samples, tolerances, cpus, smt);
  return r.go();
}

}  // namespace eevdf::bridge
