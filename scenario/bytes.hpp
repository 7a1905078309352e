// Compact byte encoding of scenarios for libFuzzer. Every byte string decodes
// to a valid scenario (the decoder never fails); encode_bytes() writes seeds
// from text scenarios whose operations it can represent.
//
// Format, versions 1 and 2
// ------------------------
//   byte 0      format version, 1, 2 or 3 (3: a runqueue byte follows). If the first byte is anything else,
//               the whole input (byte 0 included) is read as a version-1
//               payload; bytes_version_supported() lets a caller refuse such
//               input.
//   then        operations, at most kMaxBytesOps (256); the rest is ignored.
//
// Each operation is an opcode byte followed by a fixed number of argument
// bytes that depends only on the opcode (bytes missing at the end read as 0):
//
//   opcode % 12  op        argument bytes
//   0            create    nice, policy, slice
//   1            fork      parent
//   2            wake      task, flags        (flags bit 0: sync)
//   3            sleep     task
//   4            run       dur, hi, lo
//   5            tick      -
//   6            schedule  -
//   7            yield     task
//   8            nice      task, nice
//   9            policy    task, policy
//   10           slice     task, slice
//   11           exit      task
//
// Version 2 has the same operations and four more for task groups, with
// opcode % 16 (version 1 inputs decode exactly as before):
//
//   12           group     parent, shares   (group_create)
//   13           move      task, group
//   14           shares    group, shares
//   15           group_idle group, flags    (flags bit 0: idle)
//
// Groups are named G0..G7 in creation order. A parent or move-target byte
// selects (byte % (groups + 1)): a group, or the root group for the last
// value. A group byte of shares/group_idle selects group (byte % groups);
// with no group yet, both become `group` with parent root and shares 1024.
// `group` when 8 groups exist becomes `schedule`. shares: kBytesShares[byte % 9].
//
// Version 3 (several CPUs) is version 2 with a second header byte and one
// more operation, opcode % 17 (versions 1 and 2 decode exactly as before):
//
//   byte 1       runqueue count: byte % 8 + 1 (the scenario's `runqueues`)
//   16           migrate   task, cpu        (cpu: byte % runqueues)
//
// and `wake` reads its flags byte further: bit 1 set gives cpu=(flags >> 2) %
// runqueues (select_task_rq()'s answer), bit 1 clear wakes on the task's CPU.
// With more than one runqueue the group opcodes 12..15 decode as `schedule`
// (version 3 was written when task groups were modelled on one CPU only).
//
// Version 4 (task groups on several CPUs) is version 3 in every byte, but the
// group opcodes 12..15 decode as task-group operations whatever the runqueue
// count (versions 1 to 3 decode exactly as before).
//
// Version 5 (the sched debugfs reader) is version 4 with one more operation,
// opcode % 18 (versions 1 to 4 decode exactly as before):
//
//   17           debug_read queue, flags  (queue: a group or root as for move;
//                                          flags bit 0: racing, bit 1 set:
//                                          cpu=(flags >> 2) % runqueues)
//
// and bit 3 of the runqueue byte (which `% 8` never reads) set: the group
// opcodes 12..15 decode as `schedule` (a campaign without task groups).
//
// Version 6 (time off the tick grid) is version 5 with two more operations,
// opcode % 20 (versions 1 to 5 decode exactly as before):
//
//   18           run_notick dur, hi, lo   (`run DUR notick`; DUR as for run)
//   19           tick_after dur, hi, lo   (`tick DUR`; DUR as for run)
//
// and bit 4 of the runqueue byte set: debug_read (17) decodes as `schedule`
// (a campaign without the debugfs reader); bit 5 set: tick_after reads its
// duration from the first six entries of kBytesDurations only (1us .. 1ms, at
// most TICK_NSEC at any HZ: an early or punctual tick, never a late one);
// bit 6 set: run_notick decodes as `run` (a campaign without nohz_full).
//
// Version 7 (a tunable, cgroup removal and RT tasks mid-run)
// is version 6 with two more operations, opcode % 22, and one more policy
// (versions 1 to 6 decode exactly as before):
//
//   20           base_slice_ns dur        (kBytesBaseSlices[byte % 7]: the
//                                          value written to sched/base_slice_ns)
//   21           group_destroy group      (a live group, byte % live groups;
//                                          with none, `group` as for shares)
//
// create's policy byte >= kBytesCreateFifo (240) gives `policy=fifo`
// (SCHED_FIFO, nice 0, slice 0) unless bit 7 of the runqueue byte
// (kBytesNoRt, a campaign without --rt) is set: then it is policy byte % 3.
//
// A removed group keeps its name and its slot (G<n> in creation order, at
// most 8 created); the group bytes of every operation select among the live
// groups, in creation order (the same as before when no group was removed).
// group_destroy is a group operation: it decodes as `schedule` where the
// group opcodes do. The header and the runqueue byte are version 6's.
//
// Versions 9 and 10 (CPU bandwidth control) are versions 7 and 8 with one
// more operation, opcode % 23 (versions 1 to 8 decode exactly as before):
//
//   22           quota     group, quota, period, burst
//                          (a live group as for shares, with none `group`;
//                          kBytesQuotas[byte % 10] (max: the period byte is
//                          read and not used), kBytesPeriods[byte % 8],
//                          kBytesBursts[byte % 5])
//
// Versions 11 and 12 (v6.18's task-based throttle) are versions 9 and 10 with
// one more operation, opcode % 24 (versions 1 to 10 decode exactly as before):
//
//   23           return_to_user task      (the task returns to user space and
//                                          runs its throttle work, if it runs)
//
// Version 8 (wake-ups that build up record_wakee()'s flips) is
// version 7 in every byte (the same opcodes, header and runqueue byte), but a
// task byte from kBytesFanOut (64) on, three in four, of two operations reads
// as a whole set of tasks (versions 1 to 7 decode exactly as before):
//
//   2  wake   a fan-out: one `wake Ti [sync] from=C` for every task created so
//             far, in creation order round from T(task byte % tasks): the
//             task running on CPU C = (flags >> 2) % runqueues (or its idle
//             task) wakes them one after another, as a producer or a
//             wake_up_all() does (flags bit 0: sync, bit 1 not read; with one
//             runqueue no from=);
//   3  sleep  `sleep Ti` for every task created so far, in creation order: the
//             task running on each CPU blocks (consumers waiting again).
//
// The executor skips those wakes and sleeps that do not apply (a task already
// awake, not on a CPU). A set stops at kMaxBytesOps operations in all.
//
// Tasks are named T0..T15 in creation order (`create` and the child of `fork`
// take the next free name). A task byte selects task (byte % number of tasks
// created so far). nice: byte % 40 - 20. policy: byte % 3 (normal, batch,
// idle). slice: kBytesSlices[byte % 7]. dur: if dur % 16 < 12,
// kBytesDurations[dur % 16], else (hi << 8 | lo) microseconds (0..65535us).
//
// Substitutions keep every decoded sequence valid: an operation that names a
// task when no task exists becomes `create` with nice 0, policy normal and
// slice 0 (a fork creates its child under the same rule); `create` and `fork`
// when 16 tasks exist become `schedule`. The argument bytes of the original
// opcode are consumed in all cases, so a mutation of one operation does not
// shift the others.
//
// Only operations are encoded: the decoded scenario has no title, profile
// "mainline" (the profile and the features come from the command line), the
// default tunables, and no expectations. Whether an operation is applicable
// in the model's state (e.g. `sleep` of a task that is not running) is the
// executor's business: it skips the ones that are not.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace eevdf::scn {

inline constexpr std::uint8_t kBytesFormatVersion = 1;
inline constexpr std::uint8_t kBytesFormatVersion2 = 2;  // with task-group operations
inline constexpr std::size_t kBytesOpKinds2 = 16;         // create .. group_idle
inline constexpr std::uint8_t kBytesFormatVersion3 = 3;  // with several runqueues
inline constexpr std::size_t kBytesOpKinds3 = 17;         // create .. group_idle, migrate
inline constexpr std::uint8_t kBytesFormatVersion4 = 4;  // version 3 with task groups on several runqueues
inline constexpr std::uint8_t kBytesFormatVersion5 = 5;  // version 4 with debug_read
inline constexpr std::size_t kBytesOpKinds5 = 18;         // create .. migrate, debug_read
inline constexpr std::uint8_t kBytesFormatVersion6 = 6;  // version 5 with run_notick and tick_after
inline constexpr std::size_t kBytesOpKinds6 = 20;         // create .. debug_read, run_notick, tick_after
// Version 7: version 6 with base_slice_ns and group_destroy,
// and create's policy byte from kBytesCreateFifo (240) on makes an RT task,
// `task T<n> policy=fifo` (nice 0, the base slice; the nice and slice bytes are
// read and not used). Versions 1 to 6 decode exactly as before.
inline constexpr std::uint8_t kBytesFormatVersion7 = 7;
inline constexpr std::size_t kBytesOpKinds7 = 22;         // create .. tick_after, base_slice, group_destroy
inline constexpr std::uint8_t kBytesCreateFifo = 240;
// Version 8: version 7 whose wake and sleep read a task byte from
// kBytesFanOut (64) on as every task (a fan-out wake from one CPU, each CPU's
// running task blocking). Versions 1 to 7 decode exactly as before.
inline constexpr std::uint8_t kBytesFormatVersion8 = 8;
inline constexpr std::uint8_t kBytesFanOut = 64;
// Versions 9 and 10: versions 7 and 8 with one more operation, quota
// (opcode 22, kBytesOpKinds9 kinds). Versions 1 to 8 decode exactly as before.
inline constexpr std::uint8_t kBytesFormatVersion9 = 9;
inline constexpr std::uint8_t kBytesFormatVersion10 = 10;
inline constexpr std::size_t kBytesOpKinds9 = 23;         // create .. group_destroy, quota
// Versions 11 and 12: versions 9 and 10 with one more operation,
// return_to_user (opcode 23, kBytesOpKinds11 kinds). Versions 1 to 10 decode exactly as before.
inline constexpr std::uint8_t kBytesFormatVersion11 = 11;
inline constexpr std::uint8_t kBytesFormatVersion12 = 12;
inline constexpr std::size_t kBytesOpKinds11 = 24;        // create .. quota, return_to_user
// quota's values: the quota (ns, -1: max), the period and the burst (ns, -1:
// the group's own); 500 us and 2 s are refused by the kernel (-EINVAL)
inline constexpr std::array<s64, 10> kBytesQuotas = {-1,         1'000'000,  2'000'000,  3'000'000,  5'000'000,
                                                     10'000'000, 20'000'000, 50'000'000, 100'000'000, 500'000};
inline constexpr std::array<s64, 8> kBytesPeriods = {5'000'000,  10'000'000,    20'000'000,   50'000'000,
                                                     100'000'000, 1'000'000,    1'000'000'000, 2'000'000'000};
inline constexpr std::array<s64, 5> kBytesBursts = {-1, 0, 1'000'000, 5'000'000, 20'000'000};
// base_slice_ns values (ns): the edges of the range, the defaults normalized and at 8 CPUs, others
inline constexpr std::array<s64, 7> kBytesBaseSlices = {100'000,   700'000,    750'000,    2'800'000,
                                                        3'000'000, 20'000'000, 100'000'000};
inline constexpr std::uint8_t kBytesNoGroups = 8;        // version 5 to 7 runqueue byte: group opcodes decode as schedule
inline constexpr std::uint8_t kBytesNoDebugRead = 16;    // version 6 runqueue byte: debug_read decodes as schedule
inline constexpr std::uint8_t kBytesEarlyTicks = 32;     // version 6 runqueue byte: tick_after within 1ms
inline constexpr std::uint8_t kBytesNoTickless = 64;     // version 6 runqueue byte: run_notick decodes as run
inline constexpr std::uint8_t kBytesNoRt = 128;          // version 7 runqueue byte: no SCHED_FIFO tasks (policy byte % 3)
inline constexpr std::size_t kMaxBytesGroups = 8;
inline constexpr std::array<s64, 9> kBytesShares = {1024, 2, 3, 15, 100, 512, 2048, 10240, 262144};
inline constexpr std::size_t kMaxBytesOps = 256;
inline constexpr std::size_t kMaxBytesTasks = 16;
inline constexpr std::uint8_t kBytesForkRacing = 240;  // a fork's parent byte from here: 'fork ... racing'
inline constexpr std::size_t kBytesOpKinds = 12;  // create .. exit (no expect kinds)

inline constexpr std::array<s64, 12> kBytesDurations = {
    1'000,   100'000,   500'000,   700'000,    999'999,    1'000'000,
    1'000'001, 2'000'000, 3'000'000, 4'000'000, 10'000'000, 100'000'000};
inline constexpr std::array<s64, 7> kBytesSlices = {0, 100'000, 700'000, 1'000'000, 3'000'000, 20'000'000,
                                                    100'000'000};

// Number of argument bytes that follow an opcode of this kind (0 for the
// expect kinds, which the format does not have).
std::size_t bytes_arg_count(OpKind kind);

// Opcode count of the version in byte 0 (kBytesOpKinds2 for version 2,
// kBytesOpKinds3 for versions 3 and 4, kBytesOpKinds5 for version 5,
// kBytesOpKinds6 for version 6, kBytesOpKinds7 for versions 7 and 8, else
// kBytesOpKinds).
std::size_t bytes_op_kinds(const std::uint8_t* data, std::size_t size);
// Header bytes before the first operation: 0 (no version byte), 1, or 2 (versions 3 to 8).
std::size_t bytes_header_size(const std::uint8_t* data, std::size_t size);
// The runqueue byte of versions 3 to 8 for `runqueues` (1 .. 8).
inline std::uint8_t bytes_runqueue_byte(unsigned runqueues) { return static_cast<std::uint8_t>(runqueues - 1); }
// The operation of an opcode byte under a version's opcode count.
OpKind bytes_op_kind(std::uint8_t opcode, std::size_t kinds);

// True for an empty input and for one whose first byte is a supported version.
bool bytes_version_supported(const std::uint8_t* data, std::size_t size);

// Never fails; see the format above.
Scenario decode_bytes(const std::uint8_t* data, std::size_t size);
// The same into s (which is replaced), reusing its storage; decodes at most
// max_ops operations (capped at kMaxBytesOps). The fuzz engines call this for
// every input.
void decode_bytes_into(const std::uint8_t* data, std::size_t size, Scenario& s,
                       std::size_t max_ops = kMaxBytesOps);
inline Scenario decode_bytes(const std::vector<std::uint8_t>& b) { return decode_bytes(b.data(), b.size()); }

// The version-1 bytes of `s` (version 2 if it has a task-group operation,
// version 3 if it has more than one runqueue, a migrate or a wake cpu=,
// version 5 if it has a debug_read, version 6 if it has a run_notick or
// tick_after), or nullopt (with the reason in *why) when `s` is
// not representable: a task not named T<n> in creation order, a group not
// named G<n> in creation order, a `task ... group=` (use `move`), a duration or
// slice outside the tables and not a whole number of microseconds up to
// 65535us, more than 256 operations, an expect operation, or (unless
// ops_only) a title, a non-default directive (the run settings included)
// or a whole-run expectation.
// With ops_only, the header, positional expect operations and whole-run
// expectations are dropped and the rest is encoded. For a representable s,
// same_scenario(decode_bytes(*encode_bytes(s)), s).
std::optional<std::vector<std::uint8_t>> encode_bytes(const Scenario& s, bool ops_only = false,
                                                      std::string* why = nullptr);

}  // namespace eevdf::scn
