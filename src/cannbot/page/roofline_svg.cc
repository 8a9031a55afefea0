#include "cannbot/page/roofline_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cannbot/page/html.h"

namespace cannbot::page {
namespace {

constexpr double kWidth = 680, kHeight = 380;
constexpr double kLeft = 64, kRight = 16, kTop = 16, kBottom = 48;

// Log-scale mapping of [lo, hi] onto [from, to].
struct Axis {
  double lo, hi, from, to;
  double operator()(double v) const {
    return from + (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * (to - from);
  }
};

std::string Fixed(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", v);
  return text;
}

std::string Tick(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), v >= 1 ? "%.0f" : "%g", v);
  return text;
}

const char* Colour(const std::string& kind) {
  if (kind == "baseline") return "#6b7280";
  if (kind == "accepted") return "#16a34a";
  return "#2563eb";
}

}  // namespace

std::string RooflineSvg(const Roofs& roofs, const std::vector<RooflinePoint>& points) {
  if (roofs.peak_gflops <= 0 || roofs.gbps <= 0) return "";
  const double ridge = roofs.peak_gflops / roofs.gbps;
  double x_lo = ridge, x_hi = ridge, y_lo = roofs.peak_gflops;
  int skipped = 0;
  for (const RooflinePoint& p : points) {
    if (p.intensity <= 0 || p.gflops <= 0) {
      ++skipped;
      continue;
    }
    x_lo = std::min(x_lo, p.intensity);
    x_hi = std::max(x_hi, p.intensity);
    y_lo = std::min(y_lo, p.gflops);
  }
  // Whole decades around everything, so the ticks are round numbers.
  const Axis x{std::pow(10, std::floor(std::log10(x_lo / 2))),
               std::pow(10, std::ceil(std::log10(x_hi * 2))), kLeft, kWidth - kRight};
  const Axis y{std::pow(10, std::floor(std::log10(y_lo / 2))),
               std::pow(10, std::ceil(std::log10(roofs.peak_gflops * 2))), kHeight - kBottom, kTop};
  std::string svg = "<svg class=\"roofline\" role=\"img\" viewBox=\"0 0 " + Fixed(kWidth) + " " +
                    Fixed(kHeight) + "\" width=\"" + Fixed(kWidth) + "\" height=\"" +
                    Fixed(kHeight) + "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  svg += "<title>Roofline: " + Escape(roofs.label) + "</title>\n";
  for (double t = x.lo; t <= x.hi * 1.0001; t *= 10) {
    svg += "<line x1=\"" + Fixed(x(t)) + "\" y1=\"" + Fixed(kTop) + "\" x2=\"" + Fixed(x(t)) +
           "\" y2=\"" + Fixed(kHeight - kBottom) + "\" stroke=\"#eef1f5\"/><text x=\"" +
           Fixed(x(t)) + "\" y=\"" + Fixed(kHeight - kBottom + 16) +
           "\" text-anchor=\"middle\">" + Tick(t) + "</text>\n";
  }
  for (double t = y.lo; t <= y.hi * 1.0001; t *= 10) {
    svg += "<line x1=\"" + Fixed(kLeft) + "\" y1=\"" + Fixed(y(t)) + "\" x2=\"" +
           Fixed(kWidth - kRight) + "\" y2=\"" + Fixed(y(t)) + "\" stroke=\"#eef1f5\"/><text x=\"" +
           Fixed(kLeft - 6) + "\" y=\"" + Fixed(y(t) + 4) + "\" text-anchor=\"end\">" + Tick(t) +
           "</text>\n";
  }
  svg += "<text x=\"" + Fixed((kLeft + kWidth) / 2) + "\" y=\"" + Fixed(kHeight - 8) +
         "\" text-anchor=\"middle\">arithmetic intensity, FLOP/byte</text>\n";
  svg += "<text transform=\"translate(14," + Fixed((kTop + kHeight - kBottom) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">GFLOP/s</text>\n";
  // The roof: bandwidth-bound up to the ridge, compute-bound after it.
  const double start = std::max(x.lo, y.lo / roofs.gbps);
  svg += "<polyline class=\"roof\" fill=\"none\" stroke=\"#111827\" stroke-width=\"2\" points=\"" +
         Fixed(x(start)) + "," + Fixed(y(start * roofs.gbps)) + " " + Fixed(x(ridge)) + "," +
         Fixed(y(roofs.peak_gflops)) + " " + Fixed(x(x.hi)) + "," + Fixed(y(roofs.peak_gflops)) +
         "\"/>\n";
  svg += "<text x=\"" + Fixed(x(ridge) + 6) + "\" y=\"" + Fixed(y(roofs.peak_gflops) - 6) +
         "\">" + Escape(roofs.label) + "</text>\n";
  for (const RooflinePoint& p : points) {
    if (p.intensity <= 0 || p.gflops <= 0) continue;
    char coords[96];
    std::snprintf(coords, sizeof(coords), "%.1f FLOP/byte, %.2f GFLOP/s", p.intensity, p.gflops);
    svg += "<circle class=\"point\" data-kind=\"" + Escape(p.kind) + "\" data-label=\"" +
           Escape(p.label) + "\" cx=\"" + Fixed(x(p.intensity)) + "\" cy=\"" + Fixed(y(p.gflops)) +
           "\" r=\"" + (p.kind == "attempt" ? "4" : "6") + "\" fill=\"" + Colour(p.kind) +
           "\" fill-opacity=\"0.8\"><title>" + Escape(p.label) + ": " + coords +
           "</title></circle>\n";
  }
  svg += "</svg>\n";
  if (skipped > 0) {
    svg += "<p class=\"muted\">" + std::to_string(skipped) +
           " timed kernel(s) with no floating-point work are not on the plot.</p>\n";
  }
  return svg;
}

}  // namespace cannbot::page
