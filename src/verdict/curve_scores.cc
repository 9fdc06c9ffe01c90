#include "verdict/curve_scores.h"

#include <algorithm>
#include <cmath>

namespace servebench::verdict {

namespace {

double Sign(double v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }

std::vector<double> SteffenTangents(const std::vector<CurvePoint>& f) {
  size_t n = f.size();
  std::vector<double> h(n - 1), s(n - 1), m(n, 0);
  for (size_t i = 0; i + 1 < n; ++i) {
    h[i] = f[i + 1].intvty - f[i].intvty;
    s[i] = (f[i + 1].tput_per_gpu - f[i].tput_per_gpu) / h[i];
  }
  if (n == 2) {
    m[0] = m[1] = s[0];
    return m;
  }
  for (size_t i = 1; i + 1 < n; ++i) {
    double p = (s[i - 1] * h[i] + s[i] * h[i - 1]) / (h[i - 1] + h[i]);
    m[i] = (Sign(s[i - 1]) + Sign(s[i])) *
           std::min({std::fabs(s[i - 1]), std::fabs(s[i]), 0.5 * std::fabs(p)});
  }
  m[0] = (3 * s[0] - m[1]) / 2;
  m[n - 1] = (3 * s[n - 2] - m[n - 2]) / 2;
  return m;
}

}  // namespace

std::optional<double> TputAtIntvty(const std::vector<CurvePoint>& f, double x) {
  if (f.empty() || x < f.front().intvty || x > f.back().intvty) return std::nullopt;
  if (f.size() == 1) return std::max(0.0, f.front().tput_per_gpu);
  std::vector<double> m = SteffenTangents(f);
  size_t i = 0;
  while (i + 2 < f.size() && x > f[i + 1].intvty) ++i;
  double h = f[i + 1].intvty - f[i].intvty;
  double t = (x - f[i].intvty) / h;
  double t2 = t * t, t3 = t2 * t;
  double y = (2 * t3 - 3 * t2 + 1) * f[i].tput_per_gpu + (t3 - 2 * t2 + t) * h * m[i] +
             (-2 * t3 + 3 * t2) * f[i + 1].tput_per_gpu + (t3 - t2) * h * m[i + 1];
  return std::max(0.0, y);
}

std::optional<double> ParetoAuc(const std::vector<CurvePoint>& f, double lo, double hi) {
  if (hi <= lo || f.size() < 2) return std::nullopt;
  double a = std::max(lo, f.front().intvty), b = std::min(hi, f.back().intvty);
  double area = 0;
  for (size_t i = 0; i + 1 < f.size(); ++i) {
    double x0 = std::max(a, f[i].intvty), x1 = std::min(b, f[i + 1].intvty);
    if (x1 <= x0) continue;
    double slope = (f[i + 1].tput_per_gpu - f[i].tput_per_gpu) / (f[i + 1].intvty - f[i].intvty);
    double y0 = f[i].tput_per_gpu + slope * (x0 - f[i].intvty),
           y1 = f[i].tput_per_gpu + slope * (x1 - f[i].intvty);
    area += (y0 + y1) / 2 * (x1 - x0);
  }
  return area / (hi - lo);
}

}  // namespace servebench::verdict
