// The built-in demo scenario of `eevdf-check demo`.
#include "cli/demo.hpp"

namespace eevdf::cli {

const char* demo_scenario() {
  return R"(# Demo: two tasks share the CPU, then a short-slice task arrives (mainline EEVDF)
profile mainline
task A
task B nice=5
task C slice=300us
wake A
wake B
run 3ms
wake C
run 2ms
run 1ms
run 4ms
run 2ms
expect no-violation
)";
}

}  // namespace eevdf::cli
