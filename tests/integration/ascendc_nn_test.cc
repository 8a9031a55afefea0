// The normalisation APIs of the emulated high-level library (SoftMax with and without its
// statistics, with padded rows and half data; AdjustSoftMaxRes; LayerNorm; RmsNorm; Sum; Mean) against loops written from
// their documented formulas, each driven by the tiling its host tiling function fills
// (tiling/tiling_api.h), all checked from inside a kernel.
#include <string>

#include <gtest/gtest.h>

#include "integration/ascendc_support.h"

namespace cannbot::ascendc {
namespace {

constexpr const char* kNnProgram = R"cb(
#include "tiling/tiling_api.h"
#include "cannbot_launch.h"
using namespace AscendC;

static bool Near(float a, float b) { return std::fabs(a - b) <= 1e-6f * (1.0f + std::fabs(b)); }

static SoftMaxTiling g_softmax;
static LayerNormTiling g_layernorm;
static RmsNormTiling g_rmsnorm;

static void Body() {
  TPipe pipe;
  TBuf<TPosition::VECCALC> xb, yb, sb, mb, gb, bb, hb, hyb, tb;
  pipe.InitBuffer(xb, 3 * 16 * 4);
  pipe.InitBuffer(yb, 3 * 16 * 4);
  pipe.InitBuffer(sb, 3 * 8 * 4);
  pipe.InitBuffer(mb, 3 * 8 * 4);
  pipe.InitBuffer(gb, 16 * 4);
  pipe.InitBuffer(bb, 16 * 4);
  pipe.InitBuffer(hb, 2 * 16 * 2);
  pipe.InitBuffer(hyb, 2 * 16 * 2);
  pipe.InitBuffer(tb, 256);
  LocalTensor<float> x = xb.Get<float>(), y = yb.Get<float>(), s = sb.Get<float>(),
                     m = mb.Get<float>(), g = gb.Get<float>(), b = bb.Get<float>();
  LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
  for (int i = 0; i < 48; ++i) x.SetValue(i, 0.25f * static_cast<float>(i % 16) - 1.0f * (i / 16));
  for (int j = 0; j < 16; ++j) {
    g.SetValue(j, 1.0f + 0.5f * j);
    b.SetValue(j, -0.25f * j);
  }
  // SoftMax over 3 rows of 16 (the tiling's shape).
  SoftMax<float>(y, s, m, x, g_softmax);
  for (int r = 0; r < 3; ++r) {
    float mx = -INFINITY, sum = 0;
    for (int j = 0; j < 16; ++j) mx = std::fmax(mx, x.GetValue(r * 16 + j));
    for (int j = 0; j < 16; ++j) sum += std::exp(x.GetValue(r * 16 + j) - mx);
    for (int j = 0; j < 16; ++j)
      CHECK(Near(y.GetValue(r * 16 + j), std::exp(x.GetValue(r * 16 + j) - mx) / sum));
    for (int k = 0; k < 8; ++k) CHECK(m.GetValue(r * 8 + k) == mx && Near(s.GetValue(r * 8 + k), sum));
  }
  // Only the first 10 of each row are data: the padding is left alone.
  Duplicate(y, -7.0f, 48);
  SoftMaxShapeInfo info{3, 16, 3, 10};
  SoftMax<float>(y, x, g_softmax, info);
  CHECK(y.GetValue(10) == -7.0f && y.GetValue(15) == -7.0f);
  float rowsum = 0;
  for (int j = 0; j < 10; ++j) rowsum += y.GetValue(16 + j);
  CHECK(Near(rowsum, 1.0f));
  // half data, float statistics.
  LocalTensor<half> hx = hb.Get<half>(), hy = hyb.Get<half>();
  for (int i = 0; i < 32; ++i) hx.SetValue(i, half(0.125f * i));
  SoftMax<half>(hy, s, m, hx, g_softmax, SoftMaxShapeInfo{2, 16, 2, 16});
  CHECK(m.GetValue(0) == 0.125f * 15 && m.GetValue(8) == 0.125f * 31);
  // AdjustSoftMaxRes: the row whose max has the bits of 3.875f (row 1) becomes -1.
  const float row1_max = 0.125f * 31;
  uint32_t bits = 0;
  std::memcpy(&bits, &row1_max, 4);
  const half before = hy.GetValue(0);
  CHECK((AdjustSoftMaxRes<half, float>(hy, m, bits, half(-1.0f), SoftMaxShapeInfo{2, 16, 2, 16})));
  CHECK(hy.GetValue(16) == half(-1.0f) && hy.GetValue(31) == half(-1.0f));
  CHECK(hy.GetValue(0) == before && hy.GetValue(0) != half(-1.0f));
  CHECK(!(AdjustSoftMaxRes<half, float>(hy, m, 0xFF7FFFFFu, half(0.0f), SoftMaxShapeInfo{2, 16, 2, 16})));
  // LayerNorm over [1, 3, 16] with the tmp buffer.
  LocalTensor<float> mean = sb.Get<float>(), var = mb.Get<float>();
  LayerNorm<float>(y, mean, var, x, g, b, tmp, 1e-5f, g_layernorm);
  for (int r = 0; r < 3; ++r) {
    float mu = 0, v = 0;
    for (int j = 0; j < 16; ++j) mu += x.GetValue(r * 16 + j);
    mu /= 16;
    for (int j = 0; j < 16; ++j) v += (x.GetValue(r * 16 + j) - mu) * (x.GetValue(r * 16 + j) - mu);
    v /= 16;
    CHECK(Near(mean.GetValue(r), mu) && Near(var.GetValue(r), v));
    for (int j = 0; j < 16; ++j)
      CHECK(Near(y.GetValue(r * 16 + j), (x.GetValue(r * 16 + j) - mu) / std::sqrt(v + 1e-5f) * g.GetValue(j) + b.GetValue(j)));
  }
  // Sum and Mean of the first 5 of each 16-wide row.
  Sum<float>(mean, x, SumParams{3, 16, 5});
  CHECK(Near(mean.GetValue(1), x.GetValue(16) + x.GetValue(17) + x.GetValue(18) + x.GetValue(19) + x.GetValue(20)));
  Mean<float>(var, x, tmp, MeanParams{3, 16, 5});
  CHECK(Near(var.GetValue(2), (x.GetValue(32) + x.GetValue(33) + x.GetValue(34) + x.GetValue(35) + x.GetValue(36)) / 5));
  // RmsNorm.
  RmsNorm<float>(y, x, g, 1e-6f, g_rmsnorm);
  for (int r = 0; r < 3; ++r) {
    float sq = 0;
    for (int j = 0; j < 16; ++j) sq += x.GetValue(r * 16 + j) * x.GetValue(r * 16 + j);
    for (int j = 0; j < 16; ++j)
      CHECK(Near(y.GetValue(r * 16 + j), x.GetValue(r * 16 + j) / std::sqrt(sq / 16 + 1e-6f) * g.GetValue(j)));
  }
}

int main() {
  ge::Shape shape(std::vector<int64_t>{3, 16});
  const uint32_t ws = AscendC::GetSoftMaxMinTmpSize(shape, 4, false);
  CHECK(ws >= 16 * 4 && AscendC::GetSoftMaxMaxTmpSize(shape, 4, false) >= ws);
  AscendC::SoftMaxTilingFunc(shape, 4, ws, g_softmax);
  CHECK(g_softmax.srcM == 3 && g_softmax.srcK == 16 && g_softmax.outMaxK == 8);
  ge::Shape bsh(std::vector<int64_t>{1, 3, 16});
  uint32_t mx = 0, mn = 0;
  AscendC::GetLayerNormMaxMinTmpSize(bsh, 4, false, mx, mn);
  CHECK(mx >= mn && mn > 0);
  AscendC::GetLayerNormNDTilingInfo(bsh, mn, 4, false, g_layernorm);
  CHECK(g_layernorm.bLength == 1 && g_layernorm.sLength == 3 && g_layernorm.hLength == 16);
  CHECK(AscendC::GetRmsNormMaxMinTmpSize(bsh, 4, mx, mn));
  CHECK(AscendC::GetRmsNormTilingInfo(bsh, bsh, mn, 4, g_rmsnorm));
  std::vector<float> in(16, 0.0f), out(16, 0.0f);
  CannbotTiling tiling{};
  tiling.block_dim = 1;
  tiling.dtype_bits = 32;
  cannbot_ascendc::Launch(tiling, {in.data()}, {out.data()}, {16, 16},
                          [&](GM_ADDR*, GM_ADDR*, GM_ADDR) { Body(); });
  std::printf(failures == 0 ? "nn ok\n" : "nn FAILED\n");
  return failures == 0 ? 0 : 1;
}
)cb";

TEST(AscendcNnTest, NormalisationApisFollowTheirFormulas) {
  auto dir = TempDir::Create("cannbot-ascendc-nn");
  ASSERT_TRUE(dir.ok());
  const Status built = testing::BuildCheckProgram(*dir, "nn", kNnProgram);
  ASSERT_TRUE(built.ok()) << built.message();
  const CommandResult run = testing::RunCheckProgram(*dir, "nn");
  EXPECT_TRUE(run.exit.Success()) << run.exit.Describe() << "\n" << run.output;
  EXPECT_NE(run.output.find("nn ok"), std::string::npos) << run.output;
  // Each call counts as the passes it is built from: 3 SoftMax x 5, 2 AdjustSoftMaxRes x 2,
  // LayerNorm 13, Sum 2, Mean 3, RmsNorm 7, and the one Duplicate.
  auto stats = ParseStats(run.output);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->total.vector_instructions, 3u * 5u + 2u * 2u + 13u + 2u + 3u + 7u + 1u);
  EXPECT_EQ(stats->total.vector_complex_repeats, 3u * 2u + 2u + 1u);
}

}  // namespace
}  // namespace cannbot::ascendc
