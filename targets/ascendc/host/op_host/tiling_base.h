// op_host/tiling_base.h: the include path an operator package's op_host code uses; cannbot's emulation
// of the tiling class framework is in cannbot_host_tiling_base.h (docs/ascendc.md, "Operator packages").
#pragma once
#include "cannbot_host_tiling_base.h"
