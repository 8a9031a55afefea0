// tiling/tiling_type.h: the include path an operator package's op_host code uses beside the tiling class
// framework (cannbot_host_tiling_base.h); nothing of its own is emulated.
#pragma once
#include "cannbot_host_tiling_base.h"
