// The bridge subcommands (docs/bridges.md): `export --kstep|--rt-app`,
// `compare`, `report`, and the `--rt-app`/`--duration` options of `run`.
// main.cpp registers them with add_bridge_commands() and, after parsing,
// hands over with run_bridge_commands().
#pragma once

#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

namespace eevdf::cli {

struct BridgeCommands;

// Adds export, compare and report to app, and --rt-app/--duration to run
// (whose scenario argument becomes optional: one of the two is needed).
std::shared_ptr<BridgeCommands> add_bridge_commands(CLI::App& app, CLI::App* run);

// The exit code when a bridge command (or `run --rt-app`) was given, nullopt otherwise.
std::optional<int> run_bridge_commands(BridgeCommands& b);

}  // namespace eevdf::cli
