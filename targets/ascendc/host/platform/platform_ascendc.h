// platform/platform_ascendc.h: the include path an operator package's op_host code uses; cannbot's emulation
// of everything it declares is in cannbot_host_api.h (docs/ascendc.md, "Operator packages").
#pragma once
#include "cannbot_host_api.h"
