#pragma once

namespace eevdf::cli {
const char* demo_scenario();
}
