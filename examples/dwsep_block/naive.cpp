// Naive depthwise-separable block (MobileNet style), inference, NCHW, fp32:
//   d = depthwise_conv2d(x, dw_w)   m = relu(bn1(d))
//   p = pointwise 1x1 conv(m, pw_w) y = relu(bn2(p))
// The six steps run one after another as separate loops, each writing a full
// intermediate tensor (d, m, p: [n,c,oh,ow] or [n,k,oh,ow]) that the next step reads
// back; batch norm divides by sqrt(var + eps) for every element. Straightforward first
// version: padding checks in the innermost depthwise loop, and the pointwise sum over
// input channels innermost (a stride of oh*ow floats between its loads).
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void dwsep_block(const float* x, const float* dw_w, const float* bn1_gamma,
                            const float* bn1_beta, const float* bn1_mean, const float* bn1_var,
                            const float* pw_w, const float* bn2_gamma, const float* bn2_beta,
                            const float* bn2_mean, const float* bn2_var, float* y, int64_t n,
                            int64_t c, int64_t h, int64_t w_, int64_t k, int64_t kh, int64_t kw,
                            int64_t stride, int64_t pad, float eps) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  const int64_t pixels = oh * ow;
  std::vector<float> d(static_cast<size_t>(n * c * pixels));
  std::vector<float> m(static_cast<size_t>(n * c * pixels));
  std::vector<float> p(static_cast<size_t>(n * k * pixels));

  // 1. depthwise convolution
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          float acc = 0.0f;
          for (int64_t ki = 0; ki < kh; ++ki) {
            for (int64_t kj = 0; kj < kw; ++kj) {
              const int64_t ih = i * stride - pad + ki;
              const int64_t iw = j * stride - pad + kj;
              if (ih >= 0 && ih < h && iw >= 0 && iw < w_) {
                acc += x[((b * c + ch) * h + ih) * w_ + iw] * dw_w[(ch * kh + ki) * kw + kj];
              }
            }
          }
          d[(b * c + ch) * pixels + i * ow + j] = acc;
        }
      }
    }
  }
  // 2. batch norm 1 and 3. ReLU
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t q = 0; q < pixels; ++q) {
        const int64_t idx = (b * c + ch) * pixels + q;
        const float bn = bn1_gamma[ch] * (d[idx] - bn1_mean[ch]) /
                             std::sqrt(bn1_var[ch] + eps) + bn1_beta[ch];
        m[idx] = bn > 0.0f ? bn : 0.0f;
      }
    }
  }
  // 4. pointwise (1x1) convolution
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < k; ++o) {
      for (int64_t q = 0; q < pixels; ++q) {
        float acc = 0.0f;
        for (int64_t ch = 0; ch < c; ++ch) {
          acc += pw_w[o * c + ch] * m[(b * c + ch) * pixels + q];
        }
        p[(b * k + o) * pixels + q] = acc;
      }
    }
  }
  // 5. batch norm 2 and 6. ReLU
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < k; ++o) {
      for (int64_t q = 0; q < pixels; ++q) {
        const int64_t idx = (b * k + o) * pixels + q;
        const float bn = bn2_gamma[o] * (p[idx] - bn2_mean[o]) /
                             std::sqrt(bn2_var[o] + eps) + bn2_beta[o];
        y[idx] = bn > 0.0f ? bn : 0.0f;
      }
    }
  }
}
