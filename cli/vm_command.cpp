#include "cli/vm_command.hpp"

#include <cstdlib>
#include <iostream>
#include <memory>

#include "bridge/vm_runner.hpp"

namespace eevdf::cli {

void add_vm_command(CLI::App& app) {
  auto o = std::make_shared<bridge::VmOptions>();
  auto* cmd = app.add_subcommand(
      "vm", "replay a scenario on a kernel booted in QEMU (Debian's 6.12.118, a bzImage, or one built from a tree), "
      "beside the model (docs/bridges.md)");
  cmd->add_option("file", o->file, "scenario (.scn)")->required();
  cmd->add_option("--kernel-tree", o->kernel_tree,
                  "build the kernel to boot from this tree (a directory or a linux-source-*.tar.xz; "
                  "scripts/vm-kernel.sh, cached per tree)");
  cmd->add_option("--kernel", o->kernel_image, "boot this bzImage");
  cmd->add_option("--patch", o->patches, "apply this patch (patch -p1) to a copy of the tree first (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--fix", o->fixes,
                  "apply this project's fix of a finding to a copy of the tree first: K1, K2, F10 "
                  "(kernelsrc/fixes.json; repeatable)");
  cmd->add_option("--profile", o->profile,
                  "the model's profile (default: the profile of the booted release, else the scenario's)");
  cmd->add_option("--out", o->out_dir, "where the plan, the console log and the kernel's JSON lines go "
                                       "(default: the cache's runs/NAME)");
  cmd->add_option("--cache", o->cache_dir, "kernel package, driver and runs (default: $EEVDF_VM_CACHE, else BUILD/vm)");
  cmd->add_option("--timeout", o->timeout_s, "seconds before the machine counts as hung (default: 90 + 1.5 x the scenario's time)");
  cmd->add_option("--append", o->append, "more kernel command line (e.g. 'rcu_nocbs=1')");
  cmd->add_option("--script", o->script, "the boot script (default: scripts/vm-run.sh of the source tree)");
  cmd->add_flag("--plan", o->plan_only, "print the driver's plan and the caveats, boot nothing");
  cmd->add_option("--results", o->results,
                  "compare a recorded run (its results.jsonl) with the model instead of booting");
  cmd->callback([o] {
    const int rc = bridge::run_vm(*o, std::cout, std::cerr);
    std::cout.flush();
    std::exit(rc);
  });
}

}  // namespace eevdf::cli
