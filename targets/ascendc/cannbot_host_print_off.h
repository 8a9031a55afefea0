// cannbot_host_print_off.h: ends what cannbot_host_print_on.h began (printf, cout and cerr are the
// library's again). No include guard.
#undef printf
#undef cout
#undef cerr
