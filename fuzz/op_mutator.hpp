// Operation-level mutation of the byte encoding (scenario/bytes.hpp) for
// libFuzzer's LLVMFuzzerCustomMutator / LLVMFuzzerCustomCrossOver: insert,
// delete, duplicate, swap and splice whole operations, or set one argument to
// a meaningful value (nice -20/0/19, durations around TICK_NSEC, the slice
// table's ends), so that mutations stay operations and not noise.
#pragma once

#include <cstddef>
#include <cstdint>

namespace eevdf::fuzz {

// Mutates data[0..size) in place (capacity max_size); returns the new size.
// Deterministic in seed. The result starts with the format version byte.
std::size_t mutate_ops(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed);

// Operations of a then b spliced at random operation boundaries into out
// (capacity max_out); returns the size written.
std::size_t cross_over_ops(const std::uint8_t* a, std::size_t a_size, const std::uint8_t* b, std::size_t b_size,
                           std::uint8_t* out, std::size_t max_out, unsigned seed);

}  // namespace eevdf::fuzz
