// cannbot_host_print_on.h: from here on, printf, std::cout and std::cerr in an operator package's host code prints
// tagged lines (cannbot_print.h). The generated host include brings it in before the package's
// own sources and cannbot_host_print_off.h after them. No include guard: each use turns it on.
#include <cstdio>
#include <iostream>

#include "cannbot_print.h"

#define printf cannbot_ascendc_host_printf
#define cout cannbot_ascendc_host_cout
#define cerr cannbot_ascendc_host_cout
