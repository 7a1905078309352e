// What the libFuzzer targets that read byte-encoded scenarios (scenario_fuzzer,
// kernel_fuzzer) share: the heap settings and the mutation hooks. Included by one
// translation unit of each target.
#pragma once

#include <malloc.h>

#include <cstddef>
#include <cstdint>

#include "fuzz/op_mutator.hpp"

namespace eevdf::fuzz {

// Every execution builds its runqueues and checkers afresh (hundreds of KiB,
// above glibc's mmap and trim thresholds): keep that memory in the heap
// between executions instead of returning it to the kernel and faulting it
// in again each time (page faults and brk were half the time of a one-
// operation input).
inline void keep_heap_between_runs() {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

}  // namespace eevdf::fuzz

// Operation-level mutations most of the time, libFuzzer's byte mutations
// otherwise (they still find what the operation-level ones cannot express).
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  if (seed % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  return eevdf::fuzz::mutate_ops(data, size, max_size, seed);
}

extern "C" std::size_t LLVMFuzzerCustomCrossOver(const std::uint8_t* a, std::size_t a_size, const std::uint8_t* b,
                                                 std::size_t b_size, std::uint8_t* out, std::size_t max_out,
                                                 unsigned int seed) {
  return eevdf::fuzz::cross_over_ops(a, a_size, b, b_size, out, max_out, seed);
}
