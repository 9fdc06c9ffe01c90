// Small, exact statistics the verdicts need: medians and MAD, the rolling-median
// noise estimate of regression.md §2, Welch's t test with Student-t p-values,
// Mann-Whitney U and Kolmogorov-Smirnov two-sample p-values (large-sample forms),
// the exact binomial sign test behind McNemar, and Benjamini-Hochberg.
// Pure functions on values; thread-safe.
#pragma once

#include <cstddef>
#include <vector>

namespace servebench::verdict {

// Median of `x` (mean of the two middle values when the size is even); 0 if empty.
double Median(std::vector<double> x);

// Median absolute deviation around the median (unscaled); 0 if empty.
double Mad(const std::vector<double>& x);

// Relative residuals (x_i - m_i) / m_i around a centred rolling median m of odd
// `width` (clamped at the ends, so every point gets a residual).
std::vector<double> RollingMedianResiduals(const std::vector<double>& x, size_t width);

// The noise scale sigma_rel of regression.md §2 from rolling-median residuals `r`,
// made consistent for Gaussian noise. 1.4826 x MAD of such residuals reads only
// ~0.77 sigma (the window's own median point always has residual 0) and varies by
// ~42 % between 14-night histories (simulated), which makes thresholds jump; so the
// MAD only sets a clip at 3.5 sigma, and the scale is the mean absolute clipped
// residual x sqrt(pi/2) / 0.83 (0.83: its mean on Gaussian noise at width 5,
// 14 nights): consistent, ~26 % spread, still bounded against outlier nights.
double ResidualNoiseScale(const std::vector<double>& r);

double Mean(const std::vector<double>& x);
// Sample variance (n - 1); 0 when fewer than two values.
double SampleVariance(const std::vector<double>& x);

// Standard normal CDF.
double NormalCdf(double z);
// Student-t CDF with (possibly fractional) `df` degrees of freedom.
double StudentTCdf(double t, double df);

struct WelchResult {
  double t = 0;   // (mean(a) - mean(b)) / se; 0 when se is 0
  double df = 0;  // Welch-Satterthwaite degrees of freedom
  double p_two_sided = 1;
};
// Welch's unequal-variance t test of a against b. Needs >= 2 values in each;
// otherwise returns t = 0, p = 1.
WelchResult WelchTTest(const std::vector<double>& a, const std::vector<double>& b);

// Two-sided Mann-Whitney U p-value (normal approximation with tie correction and
// continuity correction); 1 when either sample is empty.
double MannWhitneyP(const std::vector<double>& a, const std::vector<double>& b);

// Two-sided two-sample Kolmogorov-Smirnov p-value (asymptotic Kolmogorov
// distribution with the Stephens small-sample correction); 1 when either is empty.
double KolmogorovSmirnovP(const std::vector<double>& a, const std::vector<double>& b);

// Exact two-sided sign-test p-value: min(1, 2 * P[X <= min(b, c)]), X ~ Bin(b + c, 1/2).
// This is McNemar's exact test on the discordant counts b and c (evals.md §5).
double McNemarExactP(long b, long c);

// Two-sided p-value of a difference of two binomial proportions (pooled z test),
// for accuracy without per-item results. 1 when either n is 0.
double TwoProportionP(double p1, long n1, double p2, long n2);

// Benjamini-Hochberg: which of `p` are discoveries at false-discovery rate `q`.
std::vector<bool> BenjaminiHochberg(const std::vector<double>& p, double q);

}  // namespace servebench::verdict
