// tiling/tiling_api.h: the CANN include path for the host side of the Ascend C high-level APIs;
// cannbot's emulation of what it declares is in cannbot_host_tiling.h (docs/ascendc.md,
// "High-level APIs").
#pragma once
#include "cannbot_host_tiling.h"
