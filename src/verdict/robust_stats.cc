#include "verdict/robust_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace servebench::verdict {

double Median(std::vector<double> x) {
  if (x.empty()) return 0;
  size_t mid = x.size() / 2;
  std::nth_element(x.begin(), x.begin() + mid, x.end());
  double hi = x[mid];
  if (x.size() % 2 == 1) return hi;
  double lo = *std::max_element(x.begin(), x.begin() + mid);
  return (lo + hi) / 2;
}

double Mad(const std::vector<double>& x) {
  if (x.empty()) return 0;
  double m = Median(x);
  std::vector<double> dev;
  dev.reserve(x.size());
  for (double v : x) dev.push_back(std::fabs(v - m));
  return Median(std::move(dev));
}

std::vector<double> RollingMedianResiduals(const std::vector<double>& x, size_t width) {
  std::vector<double> out;
  if (x.empty()) return out;
  size_t half = width / 2;
  size_t n = x.size();
  for (size_t i = 0; i < n; ++i) {
    // Clamp the window inside [0, n) while keeping its width where possible.
    size_t w = std::min(width, n);
    size_t lo = i >= half ? i - half : 0;
    if (lo + w > n) lo = n - w;
    std::vector<double> win(x.begin() + lo, x.begin() + lo + w);
    double m = Median(std::move(win));
    out.push_back(m != 0 ? (x[i] - m) / m : 0);
  }
  return out;
}

double ResidualNoiseScale(const std::vector<double>& r) {
  if (r.empty()) return 0;
  constexpr double kMadConsistency = 0.765;      // E[1.4826 MAD] / sigma, simulated
  constexpr double kMeanAbsConsistency = 0.832;  // E[mean|r| sqrt(pi/2)] / sigma, simulated
  double sigma_mad = 1.4826 * Mad(r) / kMadConsistency;
  double clip = 3.5 * sigma_mad;
  double sum = 0;
  for (double v : r) sum += clip > 0 ? std::min(std::fabs(v), clip) : std::fabs(v);
  return sum / static_cast<double>(r.size()) * std::sqrt(M_PI / 2) / kMeanAbsConsistency;
}

double Mean(const std::vector<double>& x) {
  if (x.empty()) return 0;
  return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

double SampleVariance(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  double m = Mean(x), ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return ss / static_cast<double>(x.size() - 1);
}

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

namespace {

// Continued fraction for the regularized incomplete beta (modified Lentz).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < 1e-14) break;
  }
  return h;
}

double RegularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double ln_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  double front = std::exp(ln_front);
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

}  // namespace

double StudentTCdf(double t, double df) {
  if (df <= 0) return NormalCdf(t);
  double x = df / (df + t * t);
  double tail = 0.5 * RegularizedIncompleteBeta(df / 2, 0.5, x);
  return t >= 0 ? 1 - tail : tail;
}

WelchResult WelchTTest(const std::vector<double>& a, const std::vector<double>& b) {
  WelchResult r;
  if (a.size() < 2 || b.size() < 2) return r;
  double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  double va = SampleVariance(a) / na, vb = SampleVariance(b) / nb;
  double se = std::sqrt(va + vb);
  if (se <= 0) return r;
  r.t = (Mean(a) - Mean(b)) / se;
  double denom = va * va / (na - 1) + vb * vb / (nb - 1);
  r.df = denom > 0 ? (va + vb) * (va + vb) / denom : na + nb - 2;
  r.p_two_sided = 2 * StudentTCdf(-std::fabs(r.t), r.df);
  return r;
}

double MannWhitneyP(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 1;
  struct Item {
    double v;
    int group;
  };
  std::vector<Item> all;
  for (double v : a) all.push_back({v, 0});
  for (double v : b) all.push_back({v, 1});
  std::sort(all.begin(), all.end(), [](const Item& x, const Item& y) { return x.v < y.v; });
  double n = static_cast<double>(all.size());
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].v == all[i].v) ++j;
    double avg_rank = (static_cast<double>(i + j) + 1) / 2;  // ranks are 1-based
    double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (size_t k = i; k < j; ++k) {
      if (all[k].group == 0) rank_sum_a += avg_rank;
    }
    i = j;
  }
  double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  double u = rank_sum_a - na * (na + 1) / 2;
  double mu = na * nb / 2;
  double var = na * nb / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var <= 0) return 1;
  double z = (std::fabs(u - mu) - 0.5) / std::sqrt(var);
  if (z < 0) z = 0;
  return std::min(1.0, 2 * (1 - NormalCdf(z)));
}

double KolmogorovSmirnovP(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 1;
  std::vector<double> x = a, y = b;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  double na = static_cast<double>(x.size()), nb = static_cast<double>(y.size());
  size_t i = 0, j = 0;
  double d = 0;
  while (i < x.size() && j < y.size()) {
    double v = std::min(x[i], y[j]);
    while (i < x.size() && x[i] == v) ++i;
    while (j < y.size() && y[j] == v) ++j;
    d = std::max(d, std::fabs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  double ne = na * nb / (na + nb);
  double lambda = (std::sqrt(ne) + 0.12 + 0.11 / std::sqrt(ne)) * d;
  // Q_KS(lambda) = 2 * sum (-1)^(k-1) exp(-2 k^2 lambda^2).
  if (lambda < 1e-3) return 1;
  double sum = 0, sign = 1;
  for (int k = 1; k <= 100; ++k) {
    double term = sign * std::exp(-2.0 * k * k * lambda * lambda);
    sum += term;
    if (std::fabs(term) < 1e-12) break;
    sign = -sign;
  }
  return std::clamp(2 * sum, 0.0, 1.0);
}

double McNemarExactP(long b, long c) {
  long n = b + c;
  if (n <= 0) return 1;
  long k = std::min(b, c);
  // P[X <= k] for X ~ Bin(n, 1/2), summed in log space.
  double cdf = 0;
  for (long i = 0; i <= k; ++i) {
    double ln = std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) -
                static_cast<double>(n) * std::log(2.0);
    cdf += std::exp(ln);
  }
  return std::min(1.0, 2 * cdf);
}

double TwoProportionP(double p1, long n1, double p2, long n2) {
  if (n1 <= 0 || n2 <= 0) return 1;
  double pooled = (p1 * n1 + p2 * n2) / static_cast<double>(n1 + n2);
  double se = std::sqrt(pooled * (1 - pooled) * (1.0 / n1 + 1.0 / n2));
  if (se <= 0) return p1 == p2 ? 1 : 0;
  double z = std::fabs(p1 - p2) / se;
  return std::min(1.0, 2 * (1 - NormalCdf(z)));
}

std::vector<bool> BenjaminiHochberg(const std::vector<double>& p, double q) {
  size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  size_t last = 0;  // largest rank k with p_(k) <= k q / m
  for (size_t k = 1; k <= m; ++k) {
    if (p[order[k - 1]] <= static_cast<double>(k) * q / static_cast<double>(m)) last = k;
  }
  std::vector<bool> out(m, false);
  for (size_t k = 0; k < last; ++k) out[order[k]] = true;
  return out;
}

}  // namespace servebench::verdict
