// kernel_tiling/kernel_tiling.h: the include path a kernel uses for GET_TILING_DATA and the
// tiling structs of the high-level APIs; cannbot's emulation of what it declares is in
// kernel_operator.h (docs/ascendc.md, "Operator packages").
#pragma once
#include "kernel_operator.h"
