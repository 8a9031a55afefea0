// Naive int8 dequantisation: widen each int8 value to float and multiply by the scale, one
// element at a time (the product is rounded once, like the reference).
#include <cstdint>

extern "C" void dequantize_int8(const int8_t* x, float* y, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<float>(x[i]) * scale;
  }
}
