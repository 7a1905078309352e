#include "scenario/bytes.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "scenario/op_table.hpp"

namespace eevdf::scn {

namespace {

// The kind of every opcode, from the operation table (scenario/op_table.hpp):
// create .. exit (version 1), the group kinds (2), migrate (3), debug_read (5),
// run_notick and tick_after (6), base_slice and group_destroy (7).
constexpr std::array<OpKind, kBytesOpKinds11> kOpcodeKinds = [] {
  std::array<OpKind, kBytesOpKinds11> kinds{};
  for (const OpSpec& spec : kOpTable)
    if (spec.opcode >= 0) kinds[static_cast<std::size_t>(spec.opcode)] = spec.kind;
  return kinds;
}();
constexpr bool every_opcode_once() {
  std::size_t n = 0;
  for (const OpSpec& spec : kOpTable) {
    if (spec.opcode < 0) continue;
    if (static_cast<std::size_t>(spec.opcode) >= kBytesOpKinds11 || kOpcodeKinds[static_cast<std::size_t>(spec.opcode)] != spec.kind)
      return false;
    ++n;
  }
  return n == kBytesOpKinds11;
}
static_assert(every_opcode_once(), "the opcodes of the operation table are 0 .. kBytesOpKinds11 - 1, each once");
static_assert(kOpcodeKinds[kBytesOpKinds - 1] == OpKind::exit && kOpcodeKinds[kBytesOpKinds2 - 1] == OpKind::group_idle &&
                  kOpcodeKinds[kBytesOpKinds3 - 1] == OpKind::migrate &&
                  kOpcodeKinds[kBytesOpKinds5 - 1] == OpKind::debug_read &&
                  kOpcodeKinds[kBytesOpKinds6 - 1] == OpKind::tick_after &&
                  kOpcodeKinds[kBytesOpKinds7 - 1] == OpKind::group_destroy &&
                  kOpcodeKinds[kBytesOpKinds9 - 1] == OpKind::quota,
              "each format version's opcodes end where they did: old inputs decode as before");

// create, fork, wake, group and debug_read pack their options and flags into
// bits of their own; every other row's argument bytes are its arguments, in
// order, a byte each and three for a duration (decode_args, encode_args).
constexpr bool packs_own_bytes(OpKind k) {
  return k == OpKind::create || k == OpKind::fork || k == OpKind::wake || k == OpKind::group_create ||
         k == OpKind::debug_read || k == OpKind::quota;
}
constexpr bool table_byte_args() {
  for (const OpSpec& spec : kOpTable) {
    if (spec.opcode < 0 || packs_own_bytes(spec.kind)) continue;
    std::size_t n = 0;
    for (std::size_t i = 0; i < spec.nargs(); ++i) {
      switch (spec.args[i].kind) {
        case Arg::task: case Arg::nice: case Arg::policy: case Arg::slice: case Arg::cpu: case Arg::group:
        case Arg::group_or_root: case Arg::shares: case Arg::idle: case Arg::base_slice: n += 1; break;
        case Arg::duration: n += 3; break;
        default: return false;
      }
    }
    if (n != spec.byte_args) return false;
  }
  return true;
}
static_assert(table_byte_args(), "a row whose bytes are its arguments has a byte for each (three for a duration)");

constexpr std::string_view kGroupNames[] = {"G0", "G1", "G2", "G3", "G4", "G5", "G6", "G7"};
static_assert(std::size(kGroupNames) == kMaxBytesGroups);

bool is_group_op(OpKind k) { return op_spec(k).group_op; }

constexpr Policy kPolicies[3] = {Policy::normal, Policy::batch, Policy::idle};

// "T0".."T15" (kMaxBytesTasks); each fits std::string's small buffer.
constexpr std::string_view kTaskNames[] = {"T0", "T1", "T2",  "T3",  "T4",  "T5",  "T6",  "T7",
                                           "T8", "T9", "T10", "T11", "T12", "T13", "T14", "T15"};
static_assert(std::size(kTaskNames) == kMaxBytesTasks);
std::string_view task_name(std::size_t i) { return kTaskNames[i]; }

class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  std::uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// The byte that selects v from a table of the byte format (its index), if v is in it.
template <class Table>
bool table_byte(const Table& table, s64 v, std::uint8_t& b) {
  const auto it = std::find(table.begin(), table.end(), v);
  if (it == table.end()) return false;
  b = static_cast<std::uint8_t>(it - table.begin());
  return true;
}

int opcode_of(OpKind k) { return static_cast<std::size_t>(k) < kOpTable.size() ? op_spec(k).opcode : -1; }

// Index of a name "<prefix><n>" with n < count, or -1.
int name_index(std::string_view name, std::size_t count, char prefix) {
  if (name.size() < 2 || name.size() > 3 || name[0] != prefix) return -1;
  int n = 0;
  for (char c : name.substr(1)) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  if (name.size() == 3 && name[1] == '0') return -1;  // "T05" is not T5
  return static_cast<std::size_t>(n) < count ? n : -1;
}
int task_index(std::string_view name, std::size_t count) { return name_index(name, count, 'T'); }

}  // namespace

std::size_t bytes_op_kinds(const std::uint8_t* data, std::size_t size) {
  if (data == nullptr || size == 0) return kBytesOpKinds;
  if (data[0] == kBytesFormatVersion11 || data[0] == kBytesFormatVersion12) return kBytesOpKinds11;
  if (data[0] == kBytesFormatVersion9 || data[0] == kBytesFormatVersion10) return kBytesOpKinds9;
  if (data[0] == kBytesFormatVersion7 || data[0] == kBytesFormatVersion8) return kBytesOpKinds7;
  if (data[0] == kBytesFormatVersion6) return kBytesOpKinds6;
  if (data[0] == kBytesFormatVersion5) return kBytesOpKinds5;
  if (data[0] == kBytesFormatVersion3 || data[0] == kBytesFormatVersion4) return kBytesOpKinds3;
  return data[0] == kBytesFormatVersion2 ? kBytesOpKinds2 : kBytesOpKinds;
}

std::size_t bytes_header_size(const std::uint8_t* data, std::size_t size) {
  if (data == nullptr || size == 0) return 0;
  if (data[0] == kBytesFormatVersion3 || data[0] == kBytesFormatVersion4 || data[0] == kBytesFormatVersion5 ||
      data[0] == kBytesFormatVersion6 || data[0] == kBytesFormatVersion7 || data[0] == kBytesFormatVersion8 ||
      data[0] == kBytesFormatVersion9 || data[0] == kBytesFormatVersion10 || data[0] == kBytesFormatVersion11 ||
      data[0] == kBytesFormatVersion12)
    return 2;
  return data[0] == kBytesFormatVersion || data[0] == kBytesFormatVersion2 ? 1 : 0;
}

OpKind bytes_op_kind(std::uint8_t opcode, std::size_t kinds) { return kOpcodeKinds[opcode % kinds]; }

std::size_t bytes_arg_count(OpKind kind) {
  return static_cast<std::size_t>(kind) < kOpTable.size() ? op_spec(kind).byte_args : 0;
}

bool bytes_version_supported(const std::uint8_t* data, std::size_t size) {
  return size == 0 || (data != nullptr && (data[0] == kBytesFormatVersion || data[0] == kBytesFormatVersion2 ||
                                           data[0] == kBytesFormatVersion3 || data[0] == kBytesFormatVersion4 ||
                                           data[0] == kBytesFormatVersion5 || data[0] == kBytesFormatVersion6 ||
                                           data[0] == kBytesFormatVersion7 || data[0] == kBytesFormatVersion8 ||
                                           data[0] == kBytesFormatVersion9 || data[0] == kBytesFormatVersion10 ||
                                           data[0] == kBytesFormatVersion11 || data[0] == kBytesFormatVersion12));
}

void decode_bytes_into(const std::uint8_t* data, std::size_t size, Scenario& s, std::size_t max_ops) {
  // Reuses the storage of s: the operation vector keeps its capacity and each
  // operation's strings keep theirs (a fuzz engine decodes millions of inputs).
  std::vector<Op> ops = std::move(s.ops);
  s = Scenario{};
  if (max_ops > kMaxBytesOps) max_ops = kMaxBytesOps;
  if (data == nullptr) size = 0;
  Reader r(data, size);
  const std::size_t kinds = bytes_op_kinds(data, size);
  const std::size_t header = bytes_header_size(data, size);
  if (header >= 1) r.next();
  const std::uint8_t rq_byte = header == 2 ? r.next() : 0;
  if (header == 2) s.runqueues = static_cast<unsigned>(rq_byte % 8) + 1;
  const unsigned nrq = s.runqueues;
  const bool v8 = header == 2 && (data[0] == kBytesFormatVersion8 || data[0] == kBytesFormatVersion10 ||
                                  data[0] == kBytesFormatVersion12);  // version 7 + fan-out wakes and sleeps
  const bool v9 = header == 2 && (data[0] == kBytesFormatVersion9 || data[0] == kBytesFormatVersion10 ||
                                  data[0] == kBytesFormatVersion11 || data[0] == kBytesFormatVersion12);  // + quota (11, 12: + return_to_user)
  const bool v7 = header == 2 && (data[0] == kBytesFormatVersion7 || v8 || v9);  // version 6 + base_slice_ns, group_destroy, SCHED_FIFO
  const bool v6 = header == 2 && (data[0] == kBytesFormatVersion6 || v7);  // version 6 or later
  const bool v5 = header == 2 && (data[0] == kBytesFormatVersion5 || v6);  // version 5 or later
  const bool no_groups = v5 && (rq_byte & kBytesNoGroups) != 0;  // version 5 without task groups
  const bool no_debug_read = v6 && (rq_byte & kBytesNoDebugRead) != 0;  // version 6 without the reader
  const bool early_ticks = v6 && (rq_byte & kBytesEarlyTicks) != 0;      // version 6: no late tick
  const bool no_tickless = v6 && (rq_byte & kBytesNoTickless) != 0;      // version 6: run_notick is run
  const bool rt = v7 && (rq_byte & kBytesNoRt) == 0;                      // version 7: SCHED_FIFO tasks
  // groups on several CPUs (versions 4 to 6)
  const bool smp_groups = header == 2 && (data[0] == kBytesFormatVersion4 || v5);
  if (ops.capacity() < std::min(size, max_ops)) ops.reserve(std::min(size, max_ops));  // one byte or more per op
  std::size_t ntasks = 0;
  std::size_t ngroups = 0;
  // Version 7: the groups not removed, by creation index, in creation order. Without a
  // group_destroy (versions 1 to 6) live[i] == i and nlive == ngroups: the selections below
  // are the ones those versions always made.
  std::array<std::uint8_t, kMaxBytesGroups> live{};
  std::size_t nlive = 0;
  std::size_t n = 0;  // operations decoded into ops[0, n)
  auto next_op = [&]() -> Op& {
    if (n == ops.size()) ops.emplace_back();
    Op& op = ops[n++];
    op = Op{};  // the names below fit the small-string buffer: no allocation
    return op;
  };
  auto pick = [&](std::uint8_t b) { return task_name(b % ntasks); };
  while (!r.done() && n < max_ops) {
    const OpKind kind = kOpcodeKinds[r.next() % kinds];
    std::uint8_t a[4] = {0, 0, 0, 0};
    for (std::size_t i = 0; i < bytes_arg_count(kind); ++i) a[i] = r.next();
    Op& op = next_op();
    op.kind = kind == OpKind::run_notick && no_tickless ? OpKind::run : kind;
    // version 3: groups on one CPU only; version 5 without groups
    if ((nrq > 1 && !smp_groups && is_group_op(kind)) || (no_groups && is_group_op(kind)) ||
        (no_debug_read && kind == OpKind::debug_read)) {
      op.kind = OpKind::schedule;
      continue;
    }
    // a group or the root group (byte % (groups + 1), the last value is root)
    auto group_or_root = [&](std::uint8_t b) {
      const std::size_t i = b % (nlive + 1);
      return i == nlive ? std::string_view{} : kGroupNames[live[i]];
    };
    auto new_group = [&]() {
      live[nlive++] = static_cast<std::uint8_t>(ngroups);
      return kGroupNames[ngroups++];
    };
    // The row's arguments (scenario/op_table.hpp) from their bytes.
    auto decode_args = [&](OpKind k, const std::uint8_t* b, Op& o) {
      const OpSpec& spec = op_spec(k);
      for (std::size_t i = 0; i < spec.nargs(); ++i) {
        switch (spec.args[i].kind) {
          case Arg::task: o.task = pick(*b); break;
          case Arg::nice: o.value = static_cast<s64>(*b % 40) - 20; break;
          case Arg::policy: o.policy = kPolicies[*b % 3]; break;
          case Arg::slice: o.value = kBytesSlices[*b % kBytesSlices.size()]; break;
          case Arg::cpu: o.cpu = static_cast<int>(*b % nrq); break;
          case Arg::group: o.group = kGroupNames[live[*b % nlive]]; break;
          case Arg::group_or_root: o.group = group_or_root(*b); break;
          case Arg::shares: o.value = kBytesShares[*b % kBytesShares.size()]; break;
          case Arg::idle: o.value = *b & 1; break;
          case Arg::base_slice: o.value = kBytesBaseSlices[*b % kBytesBaseSlices.size()]; break;  // version 7
          case Arg::duration:
            if (k == OpKind::tick_after && early_ticks)
              o.value = kBytesDurations[b[0] % 6];  // 1us .. 1ms
            else if (b[0] % 16 < kBytesDurations.size())
              o.value = kBytesDurations[b[0] % 16];
            else
              o.value = static_cast<s64>((unsigned{b[1]} << 8) | b[2]) * 1000;
            b += 2;
            break;
          default: break;  // not a row the default case decodes (static_assert below)
        }
        ++b;
      }
    };
    if ((kind == OpKind::shares || kind == OpKind::group_idle || kind == OpKind::group_destroy ||
         kind == OpKind::quota) &&
        nlive == 0) {
      if (ngroups >= kMaxBytesGroups) {  // version 7 only: every group removed
        op.kind = OpKind::schedule;
        continue;
      }
      op.kind = OpKind::group_create;  // parent root, shares 1024
      op.group = new_group();
      op.value = kBytesShares[0];
      continue;
    }
    if (op_spec(kind).byte_needs_task && ntasks == 0) {
      op.kind = OpKind::create;  // nice 0, policy normal, slice 0
      op.task = task_name(ntasks++);
      continue;
    }
    switch (kind) {
      case OpKind::create:
        if (ntasks >= kMaxBytesTasks) {
          op.kind = OpKind::schedule;
          break;
        }
        op.task = task_name(ntasks++);
        // version 7 only: a policy byte from kBytesCreateFifo on is an RT task
        // (SCHED_FIFO; nice 0, the base slice: its nice and slice bytes are read, not used)
        if (rt && a[1] >= kBytesCreateFifo) {
          op.policy = Policy::fifo;
          break;
        }
        op.value = static_cast<s64>(a[0] % 40) - 20;
        op.policy = kPolicies[a[1] % 3];
        op.slice = kBytesSlices[a[2] % kBytesSlices.size()];
        break;
      case OpKind::fork:
        if (ntasks >= kMaxBytesTasks) {
          op.kind = OpKind::schedule;
          break;
        }
        op.task = pick(a[0]);
        op.racing = a[0] >= kBytesForkRacing;
        op.child = task_name(ntasks++);
        break;
      case OpKind::wake:
        if (v8 && a[0] >= kBytesFanOut) {  // version 8: every task, woken from CPU C one after another
          const std::size_t first = a[0] % ntasks;
          const int from = nrq > 1 ? static_cast<int>((a[1] >> 2) % nrq) : -1;
          --n;  // op's slot holds the first wake
          for (std::size_t k = 0; k < ntasks && n < max_ops; ++k) {
            Op& w = next_op();
            w.kind = OpKind::wake;
            w.task = task_name((first + k) % ntasks);
            w.sync = (a[1] & 1) != 0;
            w.from = from;
          }
          break;
        }
        op.task = pick(a[0]);
        op.sync = (a[1] & 1) != 0;
        // bit 1: cpu= from bits 2..7; else those bits give from= (the value nrq: the task's own CPU)
        if (header == 2 && (a[1] & 2) != 0) op.cpu = static_cast<int>((a[1] >> 2) % nrq);
        if (header == 2 && (a[1] & 2) == 0 && nrq > 1) {
          const int from = static_cast<int>((a[1] >> 2) % (nrq + 1));
          op.from = from == static_cast<int>(nrq) ? -1 : from;
        }
        break;
      case OpKind::sleep:
        if (v8 && a[0] >= kBytesFanOut) {  // version 8: every task (those running block)
          --n;  // op's slot holds the first sleep
          for (std::size_t k = 0; k < ntasks && n < max_ops; ++k) {
            Op& z = next_op();
            z.kind = OpKind::sleep;
            z.task = task_name(k);
          }
          break;
        }
        decode_args(kind, a, op);
        break;
      case OpKind::group_create:
        if (ngroups >= kMaxBytesGroups) {
          op.kind = OpKind::schedule;
          break;
        }
        op.parent = group_or_root(a[0]);
        op.group = new_group();
        op.value = kBytesShares[a[1] % kBytesShares.size()];
        break;
      case OpKind::quota:  // versions 9 and 10
        op.group = kGroupNames[live[a[0] % nlive]];
        op.value = kBytesQuotas[a[1] % kBytesQuotas.size()];
        op.period = op.value < 0 ? 0 : kBytesPeriods[a[2] % kBytesPeriods.size()];
        op.burst = kBytesBursts[a[3] % kBytesBursts.size()];
        break;
      case OpKind::debug_read:
        op.group = group_or_root(a[0]);
        op.racing = (a[1] & 1) != 0;
        if ((a[1] & 2) != 0) op.cpu = static_cast<int>((a[1] >> 2) % nrq);
        break;
      default:  // the row's arguments, a byte each (three for a duration)
        decode_args(kind, a, op);
        if (kind == OpKind::group_destroy) {  // version 7: the group leaves the live list
          const std::size_t i = a[0] % nlive;
          std::copy(live.begin() + static_cast<std::ptrdiff_t>(i) + 1, live.begin() + static_cast<std::ptrdiff_t>(nlive),
                    live.begin() + static_cast<std::ptrdiff_t>(i));
          --nlive;
        }
        break;
    }
  }
  ops.resize(n);  // shrinking keeps the capacity
  s.ops = std::move(ops);
}

Scenario decode_bytes(const std::uint8_t* data, std::size_t size) {
  Scenario s;
  decode_bytes_into(data, size, s);
  return s;
}

std::optional<std::vector<std::uint8_t>> encode_bytes(const Scenario& s, bool ops_only, std::string* why) {
  auto refuse = [&](std::string msg) -> std::optional<std::vector<std::uint8_t>> {
    if (why) *why = std::move(msg);
    return std::nullopt;
  };
  if (!ops_only) {
    if (!s.title.empty()) return refuse("the byte format has no title");
    if (s.profile != "mainline" || !s.features.empty() || !s.bug.empty())
      return refuse("the byte format has no profile, features or bug (they come from the command line)");
    if (s.cpus != 8 || s.hz != 1000 || s.base_slice)
      return refuse("the byte format has no cpus, hz or base_slice directive");
    if (s.runqueues < 1 || s.runqueues > 8) return refuse("runqueues must be 1 .. 8");
    if (s.smt != 1) return refuse("the byte format has no smt directive (it comes from the command line: fuzz --smt)");
    if (!s.skip.empty() || !s.tolerate || s.keep_going || s.backend != Backend::model)
      return refuse("the byte format has no skip, tolerate, keep_going or backend directive (run settings: from the "
                    "command line)");
    if (!s.expectations.empty()) return refuse("the byte format has no expectations");
  }
  const bool v2 = std::any_of(s.ops.begin(), s.ops.end(), [](const Op& op) { return is_group_op(op.kind); });
  const bool v3 = s.runqueues != 1 || std::any_of(s.ops.begin(), s.ops.end(), [](const Op& op) {
                    return op.kind == OpKind::migrate || (op.kind == OpKind::wake && op.cpu >= 0);
                  });
  if (s.runqueues < 1 || s.runqueues > 8) return refuse("runqueues must be 1 .. 8");
  // version 4 only where version 3 would decode the group operations as `schedule`
  const bool v4 = v3 && v2 && s.runqueues != 1;
  const bool v5 = std::any_of(s.ops.begin(), s.ops.end(), [](const Op& op) { return op.kind == OpKind::debug_read; });
  const bool v7 = std::any_of(s.ops.begin(), s.ops.end(), [](const Op& op) {
    return (op.kind == OpKind::create && op.policy == Policy::fifo) || op.kind == OpKind::base_slice ||
           op.kind == OpKind::group_destroy;
  });
  const bool v6 = v7 || std::any_of(s.ops.begin(), s.ops.end(), [](const Op& op) {
    return op.kind == OpKind::run_notick || op.kind == OpKind::tick_after;
  });
  const bool v11 =
      std::any_of(s.ops.begin(), s.ops.end(), [](const Op& op) { return op.kind == OpKind::return_to_user; });
  const bool v9 = v11 || std::any_of(s.ops.begin(), s.ops.end(), [](const Op& op) { return op.kind == OpKind::quota; });
  std::vector<std::uint8_t> out{v11  ? kBytesFormatVersion11
                                : v9 ? kBytesFormatVersion9
                                : v7 ? kBytesFormatVersion7
                                : v6 ? kBytesFormatVersion6
                                : v5 ? kBytesFormatVersion5
                                : v4 ? kBytesFormatVersion4
                                : v3 ? kBytesFormatVersion3
                                : v2 ? kBytesFormatVersion2
                                     : kBytesFormatVersion};
  if (v3 || v5 || v6 || v7 || v9) out.push_back(bytes_runqueue_byte(s.runqueues));
  const int nrq = static_cast<int>(s.runqueues);
  std::size_t ntasks = 0;
  std::size_t ngroups = 0;
  std::vector<int> live;  // the groups not removed, by creation index (the decoder's selection)
  // the position of a live group G<n> among the live groups, or -1
  auto live_index = [&](const std::string& name) {
    const int g = name_index(name, ngroups, 'G');
    const auto it = std::find(live.begin(), live.end(), g);
    return g < 0 || it == live.end() ? -1 : static_cast<int>(it - live.begin());
  };
  // a group or root as the decoder selects it: byte % (live groups + 1), root last
  auto group_or_root_arg = [&](const std::string& name, std::uint8_t& b) {
    if (name.empty()) {
      b = static_cast<std::uint8_t>(live.size());
      return true;
    }
    const int i = live_index(name);
    if (i < 0) return false;
    b = static_cast<std::uint8_t>(i);
    return true;
  };
  std::size_t nops = 0;
  auto task_arg = [&](const std::string& name, std::uint8_t& b) {
    const int i = task_index(name, ntasks);
    if (i < 0) return false;
    b = static_cast<std::uint8_t>(i);
    return true;
  };
  auto nice_arg = [](s64 v, std::uint8_t& b) {
    if (v < -20 || v > 19) return false;
    b = static_cast<std::uint8_t>(v + 20);
    return true;
  };
  auto policy_arg = [](Policy p, std::uint8_t& b) {
    for (std::uint8_t i = 0; i < 3; ++i)
      if (kPolicies[i] == p) {
        b = i;
        return true;
      }
    return false;
  };
  // The row's arguments (scenario/op_table.hpp) as the decoder reads them back.
  auto encode_args = [&](const Op& op, std::uint8_t* b) {
    const OpSpec& spec = op_spec(op.kind);
    for (std::size_t i = 0; i < spec.nargs(); ++i) {
      bool ok = true;
      switch (spec.args[i].kind) {
        case Arg::task: ok = task_arg(op.task, *b); break;
        case Arg::nice: ok = nice_arg(op.value, *b); break;
        case Arg::policy: ok = policy_arg(op.policy, *b); break;
        case Arg::slice: ok = table_byte(kBytesSlices, op.value, *b); break;
        case Arg::cpu:
          ok = op.cpu >= 0 && op.cpu < nrq;
          *b = static_cast<std::uint8_t>(op.cpu < 0 ? 0 : op.cpu);
          break;
        case Arg::group: {
          const int g = live_index(op.group);
          ok = g >= 0;
          *b = static_cast<std::uint8_t>(g < 0 ? 0 : g);
          break;
        }
        case Arg::group_or_root: ok = group_or_root_arg(op.group, *b); break;
        case Arg::shares: ok = table_byte(kBytesShares, op.value, *b); break;
        case Arg::idle:
          ok = op.value == 0 || op.value == 1;
          *b = static_cast<std::uint8_t>(op.value);
          break;
        case Arg::base_slice: ok = table_byte(kBytesBaseSlices, op.value, *b); break;  // version 7
        case Arg::duration:  // its index in the table, else 12 and the microseconds in two bytes
          ok = table_byte(kBytesDurations, op.value, b[0]);
          if (!ok && op.value >= 0 && op.value % 1000 == 0 && op.value / 1000 <= 65535) {
            b[0] = 12;
            b[1] = static_cast<std::uint8_t>((op.value / 1000) >> 8);
            b[2] = static_cast<std::uint8_t>((op.value / 1000) & 0xff);
            ok = true;
          }
          b += 2;
          break;
        default: ok = false; break;  // not a row encode_args writes
      }
      if (!ok) return false;
      ++b;
    }
    return true;
  };
  // Why an operation's arguments cannot be written (encode_args failed).
  auto args_refusal = [](OpKind k) -> std::string {
    switch (k) {
      case OpKind::run:
      case OpKind::run_notick:
      case OpKind::tick_after: return "run duration is neither in the table nor a whole number of us up to 65535us";
      case OpKind::slice: return "slice must name an existing T<n> and be in the slice table";
      case OpKind::group_destroy: return "group_destroy must name a live G<n>";
      case OpKind::base_slice: return "base_slice_ns must be a value of the byte format's table";
      default: return "task must be an existing T<n> (and values in range)";
    }
  };
  for (std::size_t k = 0; k < s.ops.size(); ++k) {
    const Op& op = s.ops[k];
    const std::string where = "operation " + std::to_string(k + 1) + ": ";
    if (is_expectation(op.kind)) {
      if (ops_only) continue;
      return refuse(where + "the byte format has no expect operations");
    }
    if (++nops > kMaxBytesOps) return refuse("more than 256 operations");
    std::uint8_t a[4] = {0, 0, 0, 0};
    bool ok = true;
    switch (op.kind) {
      case OpKind::create:
        if (!op.group.empty()) return refuse(where + "the byte format creates tasks in the root group (use move)");
        if (op.policy == Policy::fifo) {  // version 7: nice 0, slice 0, policy byte kBytesCreateFifo
          ok = ntasks < kMaxBytesTasks && op.task == task_name(ntasks) && op.value == 0 && op.slice == 0;
          if (!ok) return refuse(where + "a created task must be T<n> in creation order (at most 16)");
          a[0] = 20;  // nice 0 (not read)
          a[1] = kBytesCreateFifo;
          ++ntasks;
          break;
        }
        ok = ntasks < kMaxBytesTasks && op.task == task_name(ntasks) && nice_arg(op.value, a[0]) &&
             policy_arg(op.policy, a[1]) && table_byte(kBytesSlices, op.slice, a[2]);
        if (ok) ++ntasks;
        else return refuse(where + "a created task must be T<n> in creation order (at most 16), with a slice "
                                   "from the table");
        break;
      case OpKind::fork:
        ok = ntasks < kMaxBytesTasks && task_arg(op.task, a[0]) && op.child == task_name(ntasks);
        // racing: the byte in [kBytesForkRacing, 255] that picks the same parent (16 values cover every residue)
        if (ok && op.racing)
          a[0] = static_cast<std::uint8_t>(kBytesForkRacing + (a[0] + ntasks - kBytesForkRacing % ntasks) % ntasks);
        if (ok) ++ntasks;
        else return refuse(where + "fork needs an existing parent and the child T<n> in creation order");
        break;
      case OpKind::wake:
        ok = task_arg(op.task, a[0]) && op.cpu < nrq && op.from < nrq;  // one runqueue: from= changes nothing
        a[1] = static_cast<std::uint8_t>((op.sync ? 1 : 0) | (op.cpu >= 0   ? 2 | (op.cpu << 2)
                                                               : nrq > 1     ? (op.from >= 0 ? op.from : nrq) << 2
                                                                             : 0));
        break;
      case OpKind::tick:
        if (op.nopreempt) return refuse(where + "the byte format has no 'tick nopreempt'");
        break;
      case OpKind::group_create:
        ok = ngroups < kMaxBytesGroups && op.group == kGroupNames[ngroups] && group_or_root_arg(op.parent, a[0]) &&
             table_byte(kBytesShares, op.value, a[1]);
        if (!ok) return refuse(where + "a group must be G<n> in creation order (at most 8), shares from the table");
        live.push_back(static_cast<int>(ngroups++));
        break;
      case OpKind::quota: {  // versions 9 and 10
        const int g = live_index(op.group);
        ok = g >= 0 && table_byte(kBytesQuotas, op.value, a[1]) &&
             (op.value < 0 ? op.period == 0 : table_byte(kBytesPeriods, op.period, a[2])) &&
             table_byte(kBytesBursts, op.burst, a[3]);
        a[0] = static_cast<std::uint8_t>(g < 0 ? 0 : g);
        if (!ok) return refuse(where + "quota must name a live G<n>, with quota, period and burst from the tables");
        break;
      }
      case OpKind::debug_read:
        ok = group_or_root_arg(op.group, a[0]) && op.cpu < nrq;
        a[1] = static_cast<std::uint8_t>((op.racing ? 1 : 0) | (op.cpu >= 0 ? 2 | (op.cpu << 2) : 0));
        if (!ok) return refuse(where + "debug_read must read root or an existing G<n>, on a CPU below runqueues");
        break;
      case OpKind::expect_curr:
      case OpKind::expect_field:
      case OpKind::expect_queue: break;
      default:  // the row's arguments, a byte each (three for a duration)
        if (!encode_args(op, a)) return refuse(where + args_refusal(op.kind));
        if (op.kind == OpKind::group_destroy) live.erase(live.begin() + a[0]);  // version 7
        break;
    }
    if (!ok) return refuse(where + "task must be an existing T<n> (and values in range)");
    const int opcode = opcode_of(op.kind);
    if (opcode < 0) return refuse(where + "invalid operation kind");
    out.push_back(static_cast<std::uint8_t>(opcode));
    for (std::size_t i = 0; i < bytes_arg_count(op.kind); ++i) out.push_back(a[i]);
  }
  return out;
}

}  // namespace eevdf::scn
