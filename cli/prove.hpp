// `eevdf-check prove`: the Z3 proof obligations of smt/ as a table or JSON.
#pragma once

#include <CLI/CLI.hpp>

namespace eevdf::cli {

// Adds the subcommand; it runs from its callback and ends the program with
// its exit code (0 done, 2 bad input).
void add_prove_command(CLI::App& app);

}  // namespace eevdf::cli
