// `eevdf-check vm FILE.scn`: a scenario on Debian's 6.12.118 kernel booted in
// QEMU, beside the model's run (bridge/vm_runner.hpp, docs/bridges.md).
#pragma once

#include <CLI/CLI.hpp>

namespace eevdf::cli {

// Adds the subcommand; it runs from its callback and ends the program with
// its exit code (bridge::run_vm's: 0, 1, 2, 3 panic, 4 hang, 5 early stop, 77 skipped).
void add_vm_command(CLI::App& app);

}  // namespace eevdf::cli
