// Naive int8 quantisation: divide by the scale in float, round half to even with
// std::nearbyint (the default rounding mode), clamp to [-128, 127] before converting, so
// large values and infinities saturate instead of wrapping.
#include <cmath>
#include <cstdint>

extern "C" void quantize_int8(const float* x, int8_t* y, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) {
    float q = std::nearbyint(x[i] / scale);
    if (q > 127.0f) q = 127.0f;
    if (q < -128.0f) q = -128.0f;
    y[i] = static_cast<int8_t>(q);
  }
}
