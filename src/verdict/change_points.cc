#include "verdict/change_points.h"

#include <algorithm>
#include <cmath>

#include "verdict/robust_stats.h"

namespace servebench::verdict {
namespace {

// Prefix sums over the |x_i - x_j| matrix so every block sum is O(1):
// S(a, b, c, d) = sum over a <= i < b, c <= j < d of |x_i - x_j|.
class DistanceSums {
 public:
  explicit DistanceSums(const std::vector<double>& x) : n_(x.size()), p_((n_ + 1) * (n_ + 1), 0) {
    for (size_t i = 0; i < n_; ++i) {
      for (size_t j = 0; j < n_; ++j) {
        at(i + 1, j + 1) = std::fabs(x[i] - x[j]) + at(i, j + 1) + at(i + 1, j) - at(i, j);
      }
    }
  }
  double Block(size_t a, size_t b, size_t c, size_t d) const {
    return at(b, d) - at(a, d) - at(b, c) + at(a, c);
  }

 private:
  double& at(size_t i, size_t j) { return p_[i * (n_ + 1) + j]; }
  double at(size_t i, size_t j) const { return p_[i * (n_ + 1) + j]; }
  size_t n_;
  std::vector<double> p_;
};

struct Split {
  size_t index;
  double q;
};

// The split of [lo, hi) with the largest energy statistic (alpha = 1):
// Q = m n / (m + n) * (2/(m n) sum|x-y| - 1/m^2 sum|x-x'| - 1/n^2 sum|y-y'|).
Split BestSplit(const DistanceSums& d, size_t lo, size_t hi, size_t min_seg) {
  Split best{0, -1};
  for (size_t s = lo + min_seg; s + min_seg <= hi; ++s) {
    double m = static_cast<double>(s - lo), n = static_cast<double>(hi - s);
    double between = d.Block(lo, s, s, hi);
    double left = d.Block(lo, s, lo, s);
    double right = d.Block(s, hi, s, hi);
    double q = m * n / (m + n) * (2 * between / (m * n) - left / (m * m) - right / (n * n));
    if (q > best.q) best = {s, q};
  }
  return best;
}

double PooledTP(const std::vector<double>& a, const std::vector<double>& b) {
  double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  if (na < 2 || nb < 2) return 1;
  double sp2 = ((na - 1) * SampleVariance(a) + (nb - 1) * SampleVariance(b)) / (na + nb - 2);
  double se = std::sqrt(sp2 * (1 / na + 1 / nb));
  double diff = Mean(a) - Mean(b);
  if (se <= 0) return diff == 0 ? 1 : 0;
  return 2 * StudentTCdf(-std::fabs(diff / se), na + nb - 2);
}

void Search(const std::vector<double>& x, const DistanceSums& d, size_t lo, size_t hi,
            const VerdictSettings& s, std::vector<ChangePoint>& out) {
  if (hi - lo < 2 * s.change_point_min_segment) return;
  Split split = BestSplit(d, lo, hi, s.change_point_min_segment);
  if (split.q <= 0) return;
  std::vector<double> a(x.begin() + static_cast<long>(lo),
                        x.begin() + static_cast<long>(split.index));
  std::vector<double> b(x.begin() + static_cast<long>(split.index),
                        x.begin() + static_cast<long>(hi));
  ChangePoint cp;
  cp.index = split.index;
  cp.mean_before = Mean(a);
  cp.mean_after = Mean(b);
  cp.change_rel = cp.mean_before != 0 ? (cp.mean_after - cp.mean_before) / cp.mean_before : 0;
  cp.p = PooledTP(a, b);
  if (cp.p > s.change_point_max_p || std::fabs(cp.change_rel) < s.change_point_min_rel) return;
  out.push_back(cp);
  Search(x, d, lo, split.index, s, out);
  Search(x, d, split.index, hi, s, out);
}

}  // namespace

std::vector<ChangePoint> FindChangePoints(const std::vector<double>& x,
                                          const VerdictSettings& settings) {
  std::vector<ChangePoint> out;
  if (x.size() < 2 * settings.change_point_min_segment) return out;
  DistanceSums d(x);
  Search(x, d, 0, x.size(), settings, out);
  std::sort(out.begin(), out.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  return out;
}

}  // namespace servebench::verdict
