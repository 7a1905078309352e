#include "fuzz/op_mutator.hpp"

#include <algorithm>
#include <random>
#include <vector>

#include "scenario/bytes.hpp"

namespace eevdf::fuzz {

using namespace scn;  // the scenario layer the engines drive

namespace {

using Record = std::vector<std::uint8_t>;  // opcode + its argument bytes

// Opcodes per version: 12 (version 1), 16 (version 2, with task groups), 17
// (versions 3 and 4, several runqueues), 18 (version 5, debug_read) or 20
// (version 6, run_notick and tick_after) or 22 (version 7, base_slice and
// group_destroy); the header bytes are kept as they are.
thread_local std::size_t g_kinds = kBytesOpKinds;
thread_local std::uint8_t g_header[2] = {kBytesFormatVersion, 0};
thread_local std::size_t g_header_size = 1;
void read_header(const std::uint8_t* data, std::size_t size) {
  g_kinds = bytes_op_kinds(data, size);
  g_header_size = bytes_header_size(data, size) == 2 ? 2 : 1;
  g_header[0] = g_header_size == 2          ? data[0]  // version 3 to 7
                : g_kinds == kBytesOpKinds2 ? kBytesFormatVersion2
                                            : kBytesFormatVersion;
  g_header[1] = g_header_size == 2 && size > 1 ? data[1] : 0;
}
OpKind kind_of(std::uint8_t opcode) { return bytes_op_kind(opcode, g_kinds); }

// Splits the payload (after the version byte) into operation records.
std::vector<Record> split(const std::uint8_t* data, std::size_t size, std::size_t header) {
  std::vector<Record> ops;
  std::size_t i = std::min(size, header);
  while (i < size && ops.size() < kMaxBytesOps) {
    const std::size_t n = 1 + bytes_arg_count(kind_of(data[i]));
    Record r(data + i, data + std::min(size, i + n));
    r.resize(n, 0);
    ops.push_back(std::move(r));
    i += n;
  }
  return ops;
}

std::size_t join(const std::vector<Record>& ops, std::uint8_t* out, std::size_t max_out) {
  std::size_t n = 0;
  if (max_out == 0) return 0;
  for (std::size_t h = 0; h < g_header_size && n < max_out; ++h) out[n++] = g_header[h];
  for (const Record& r : ops) {
    if (n + r.size() > max_out) break;
    std::copy(r.begin(), r.end(), out + n);
    n += r.size();
  }
  return n;
}

Record random_op(std::mt19937& rng) {
  const auto opcode = static_cast<std::uint8_t>(rng() % g_kinds);
  Record r(1 + bytes_arg_count(kind_of(opcode)));
  r[0] = opcode;
  for (std::size_t i = 1; i < r.size(); ++i) r[i] = static_cast<std::uint8_t>(rng());
  return r;
}

// Index of a value in a table, as the byte the decoder folds to it.
template <class Table>
std::uint8_t index_of(const Table& table, s64 value) {
  return static_cast<std::uint8_t>(std::find(table.begin(), table.end(), value) - table.begin());
}

// Sets one argument of r to a value at a boundary that matters to EEVDF.
void mutate_argument(Record& r, std::mt19937& rng) {
  if (r.size() < 2) return;
  const OpKind kind = kind_of(r[0]);
  const std::size_t arg = 1 + rng() % (r.size() - 1);
  switch (kind) {
    case OpKind::create:
      if (arg == 1) r[1] = static_cast<std::uint8_t>(std::array<int, 4>{0, 20, 39, 21}[rng() % 4]);  // nice -20, 0, 19, 1
      // normal, batch, idle, or (version 7: kBytesCreateFifo) an RT task; older versions read 240 % 3: normal
      if (arg == 2) r[2] = std::array<std::uint8_t, 4>{0, 1, 2, kBytesCreateFifo}[rng() % 4];
      if (arg == 3) r[3] = static_cast<std::uint8_t>(rng() % kBytesSlices.size());
      return;
    case OpKind::nice:
      if (arg == 2) r[2] = static_cast<std::uint8_t>(std::array<int, 4>{0, 20, 39, 21}[rng() % 4]);
      else r[1] = static_cast<std::uint8_t>(rng() % kMaxBytesTasks);
      return;
    case OpKind::run:
    case OpKind::run_notick:
    case OpKind::tick_after:
      // durations around TICK_NSEC and the base slice, or a raw value
      r[1] = std::array<std::uint8_t, 5>{index_of(kBytesDurations, 999'999), index_of(kBytesDurations, 1'000'000),
                                         index_of(kBytesDurations, 1'000'001), index_of(kBytesDurations, 700'000),
                                         static_cast<std::uint8_t>(12 + rng() % 4)}[rng() % 5];
      r[2] = static_cast<std::uint8_t>(rng());
      r[3] = static_cast<std::uint8_t>(rng());
      return;
    case OpKind::slice:
      if (arg == 2) r[2] = static_cast<std::uint8_t>(rng() % 2 ? 1 : kBytesSlices.size() - 1);  // 0.1 ms or 100 ms
      else r[1] = static_cast<std::uint8_t>(rng() % kMaxBytesTasks);
      return;
    case OpKind::group_create:
    case OpKind::shares:
      // MIN_SHARES, MAX_SHARES or the default; or a group selector
      if (arg == 2) r[2] = std::array<std::uint8_t, 3>{1, 8, 0}[rng() % 3];
      else r[1] = static_cast<std::uint8_t>(rng() % (kMaxBytesGroups + 1));
      return;
    case OpKind::migrate:  // a CPU selector or a task selector
      r[arg] = static_cast<std::uint8_t>(rng() % (arg == 2 ? 8 : kMaxBytesTasks));
      return;
    case OpKind::move:
      if (arg == 2) r[2] = static_cast<std::uint8_t>(rng() % (kMaxBytesGroups + 1));
      else r[1] = static_cast<std::uint8_t>(rng() % kMaxBytesTasks);
      return;
    case OpKind::base_slice:  // the edges of the range (0.1 ms, 100 ms) or the default at 8 CPUs (2.8 ms)
      r[1] = std::array<std::uint8_t, 3>{index_of(kBytesBaseSlices, 100'000), index_of(kBytesBaseSlices, 100'000'000),
                                         index_of(kBytesBaseSlices, 2'800'000)}[rng() % 3];
      return;
    case OpKind::group_destroy:  // a group selector
      r[1] = static_cast<std::uint8_t>(rng() % kMaxBytesGroups);
      return;
    case OpKind::debug_read:  // racing or not; or a queue selector
      if (arg == 2) r[2] = static_cast<std::uint8_t>(r[2] ^ 1);
      else r[1] = static_cast<std::uint8_t>(rng() % (kMaxBytesGroups + 1));
      return;
    default:
      r[arg] = static_cast<std::uint8_t>(rng() % kMaxBytesTasks);  // a task selector (or flags)
      return;
  }
}

}  // namespace

std::size_t mutate_ops(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed) {
  std::mt19937 rng(seed);
  read_header(data, size);
  std::vector<Record> ops = split(data, size, g_header_size);
  const unsigned choice = ops.empty() ? 0 : rng() % 6;
  const auto pick = [&] { return static_cast<std::size_t>(rng() % ops.size()); };
  switch (choice) {
    case 0:  // insert
      ops.insert(ops.begin() + static_cast<long>(ops.empty() ? 0 : rng() % (ops.size() + 1)), random_op(rng));
      break;
    case 1:  // delete
      ops.erase(ops.begin() + static_cast<long>(pick()));
      break;
    case 2: {  // duplicate a run of up to 4 operations
      const std::size_t from = pick();
      const std::size_t len = std::min<std::size_t>(1 + rng() % 4, ops.size() - from);
      std::vector<Record> copy(ops.begin() + static_cast<long>(from), ops.begin() + static_cast<long>(from + len));
      ops.insert(ops.begin() + static_cast<long>(from + len), copy.begin(), copy.end());
      break;
    }
    case 3:  // swap
      std::swap(ops[pick()], ops[pick()]);
      break;
    default:  // one argument
      mutate_argument(ops[pick()], rng);
      break;
  }
  if (ops.size() > kMaxBytesOps) ops.resize(kMaxBytesOps);
  return join(ops, data, max_size);
}

std::size_t cross_over_ops(const std::uint8_t* a, std::size_t a_size, const std::uint8_t* b, std::size_t b_size,
                           std::uint8_t* out, std::size_t max_out, unsigned seed) {
  std::mt19937 rng(seed);
  read_header(a, a_size);
  std::vector<Record> x = split(a, a_size, g_header_size);
  // b's records are read with a's opcodes (the result has a's header)
  const std::vector<Record> y = split(b, b_size, bytes_header_size(b, b_size) == 2 ? 2 : 1);
  const std::size_t cut_x = x.empty() ? 0 : rng() % (x.size() + 1);
  const std::size_t cut_y = y.empty() ? 0 : rng() % (y.size() + 1);
  x.resize(cut_x);
  x.insert(x.end(), y.begin() + static_cast<long>(cut_y), y.end());
  if (x.size() > kMaxBytesOps) x.resize(kMaxBytesOps);
  return join(x, out, max_out);
}

}  // namespace eevdf::fuzz
