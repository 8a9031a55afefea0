// tikicpulib.h: the header a sample's main.cpp includes for its CPU-debug build; cannbot's is
// cannbot_sample.h (GmAlloc, GmFree, SetKernelMode, ICPU_RUN_KF, ICPU_SET_TILING_KEY).
#pragma once
#include "kernel_operator.h"
#include "cannbot_sample.h"
