// cpu_debug_launch.h: the header a single-file Ascend C program includes for its CPU-domain
// build (`#ifdef ASCENDC_CPU_DEBUG`), where the toolkit makes its <<<>>> launch run on the CPU.
// cannbot does that itself: the launch is rewritten to a recording call for the discovery run
// and the replay launches the kernel directly (docs/ascendc.md, "Samples"), so there is
// nothing to declare here. The header exists so that such a program builds unmodified.
#ifndef CANNBOT_CPU_DEBUG_LAUNCH_H
#define CANNBOT_CPU_DEBUG_LAUNCH_H
#endif  // CANNBOT_CPU_DEBUG_LAUNCH_H
