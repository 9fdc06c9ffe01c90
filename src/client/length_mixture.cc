#include "client/length_mixture.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "common/limits.h"

namespace servebench::client {
namespace {

constexpr const char* kFormat =
    "--sequence-distribution: ISL[|SD],OSL[|SD]:WEIGHT;... (e.g. \"64|10,32|8:70;256,128:30\")";

// Splits `text` at every `sep`.
std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t at = text.find(sep); at != std::string::npos; at = text.find(sep, from)) {
    out.push_back(text.substr(from, at - from));
    from = at + 1;
  }
  out.push_back(text.substr(from));
  return out;
}

bool ParseDouble(const std::string& t, double* v) {
  if (t.empty()) return false;
  char* end = nullptr;
  *v = std::strtod(t.c_str(), &end);
  return *end == '\0' && std::isfinite(*v);
}

// "MEAN" or "MEAN|SD".
bool ParseLength(const std::string& t, int64_t* mean, double* sd) {
  std::vector<std::string> p = Split(t, '|');
  double m = 0;
  if (p.size() > 2 || !ParseDouble(p[0], &m) || m != std::floor(m)) return false;
  *mean = static_cast<int64_t>(m);
  *sd = 0;
  return p.size() == 1 || ParseDouble(p[1], sd);
}

}  // namespace

StatusOr<std::vector<SequenceComponent>> ParseSequenceDistribution(const std::string& text) {
  std::vector<SequenceComponent> out;
  std::vector<std::string> parts = Split(text, ';');
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::string& part = parts[k];
    if (part.empty() && k + 1 == parts.size() && k > 0) break;  // a trailing ';'
    auto bad = [&](const std::string& what) {
      return Status::InvalidArgument(
          fmt::format("{}: component {} '{}': {}", kFormat, k + 1, part, what));
    };
    size_t colon = part.rfind(':');
    if (colon == std::string::npos) return bad("no ':WEIGHT'");
    std::vector<std::string> lens = Split(part.substr(0, colon), ',');
    if (lens.size() != 2) return bad("needs ISL,OSL before ':'");
    SequenceComponent c;
    if (!ParseLength(lens[0], &c.isl, &c.isl_stddev)) return bad("ISL is not N or N|SD");
    if (!ParseLength(lens[1], &c.osl, &c.osl_stddev)) return bad("OSL is not N or N|SD");
    if (!ParseDouble(part.substr(colon + 1), &c.weight)) return bad("WEIGHT is not a number");
    out.push_back(c);
  }
  Status ok = ValidateSequenceDistribution(out);
  if (!ok.ok()) return Status::InvalidArgument(std::string(kFormat) + ": " + ok.message());
  return out;
}

Status ValidateSequenceDistribution(const std::vector<SequenceComponent>& cs) {
  using limits::kMaxTokensPerRequest;
  for (size_t k = 0; k < cs.size(); ++k) {
    const SequenceComponent& c = cs[k];
    auto bad = [&](const std::string& what) {
      return Status::InvalidArgument(fmt::format("component {}: {}", k + 1, what));
    };
    for (auto [name, len] : {std::pair{"ISL", c.isl}, std::pair{"OSL", c.osl}}) {
      if (len < 1 || len > kMaxTokensPerRequest) {
        return bad(fmt::format("{} {}: must be 1 .. {} tokens", name, len, kMaxTokensPerRequest));
      }
    }
    for (auto [name, sd] : {std::pair{"ISL", c.isl_stddev}, std::pair{"OSL", c.osl_stddev}}) {
      if (!(sd >= 0) || !std::isfinite(sd) || sd > static_cast<double>(kMaxTokensPerRequest)) {
        return bad(fmt::format("{} standard deviation {}: must be >= 0 tokens", name, sd));
      }
    }
    if (!(c.weight > 0) || !std::isfinite(c.weight)) {
      return bad(fmt::format("weight {}: must be a number > 0", c.weight));
    }
  }
  return Status::Ok();
}

std::vector<int> AssignComponents(const std::vector<SequenceComponent>& cs, int64_t n,
                                  std::mt19937_64& rng) {
  std::vector<int> out;
  if (cs.empty() || n <= 0) return out;
  double total = 0;
  for (const SequenceComponent& c : cs) total += c.weight;
  std::vector<int64_t> count(cs.size());
  std::vector<std::pair<double, size_t>> remainder;
  int64_t given = 0;
  for (size_t k = 0; k < cs.size(); ++k) {
    double exact = static_cast<double>(n) * cs[k].weight / total;
    count[k] = static_cast<int64_t>(std::floor(exact));
    given += count[k];
    remainder.emplace_back(exact - std::floor(exact), k);
  }
  std::stable_sort(remainder.begin(), remainder.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; given < n; ++i, ++given) ++count[remainder[i % remainder.size()].second];
  out.reserve(static_cast<size_t>(n));
  for (size_t k = 0; k < cs.size(); ++k) out.insert(out.end(), count[k], static_cast<int>(k));
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

int64_t DrawLength(int64_t mean, double sd, std::mt19937_64& rng) {
  double v = static_cast<double>(mean);
  if (sd > 0) v = std::normal_distribution<double>(v, sd)(rng);
  return std::clamp<int64_t>(std::llround(v), 1, limits::kMaxTokensPerRequest);
}

boost::json::array RealisedMixtureJson(const std::vector<SequenceComponent>& cs,
                                       const std::vector<int>& component_of,
                                       const std::vector<metrics::RequestRecord>& records) {
  struct Acc {
    int64_t n = 0;
    double isl = 0, isl2 = 0, osl = 0, osl2 = 0;
  };
  std::vector<Acc> acc(cs.size());
  int64_t completed = 0;
  for (const metrics::RequestRecord& r : records) {
    if (r.warmup || !r.ok() || r.index < 0 ||
        r.index >= static_cast<int64_t>(component_of.size())) {
      continue;
    }
    Acc& a = acc[static_cast<size_t>(component_of[static_cast<size_t>(r.index)])];
    double in = static_cast<double>(metrics::ResolvePromptTokens(r).n);
    double out = static_cast<double>(metrics::ResolveOutputTokens(r).n);
    ++a.n;
    a.isl += in;
    a.isl2 += in * in;
    a.osl += out;
    a.osl2 += out * out;
    ++completed;
  }
  double total_weight = 0;
  for (const SequenceComponent& c : cs) total_weight += c.weight;
  auto mean = [](double sum, int64_t n) { return n > 0 ? sum / static_cast<double>(n) : 0.0; };
  auto sd = [&](double sum, double sum2, int64_t n) {
    if (n < 2) return 0.0;
    double m = mean(sum, n);
    return std::sqrt(
        std::max(0.0, (sum2 - static_cast<double>(n) * m * m) / static_cast<double>(n - 1)));
  };
  boost::json::array out;
  for (size_t k = 0; k < cs.size(); ++k) {
    const SequenceComponent& c = cs[k];
    const Acc& a = acc[k];
    out.push_back(boost::json::object{
        {"component", k},
        {"isl", c.isl},
        {"isl_stddev", c.isl_stddev},
        {"osl", c.osl},
        {"osl_stddev", c.osl_stddev},
        {"weight", c.weight},
        {"configured_share_pct", 100 * c.weight / total_weight},
        {"completed", a.n},
        {"share_pct",
         completed > 0 ? 100 * static_cast<double>(a.n) / static_cast<double>(completed) : 0.0},
        {"realised_isl_mean", mean(a.isl, a.n)},
        {"realised_isl_stddev", sd(a.isl, a.isl2, a.n)},
        {"realised_osl_mean", mean(a.osl, a.n)},
        {"realised_osl_stddev", sd(a.osl, a.osl2, a.n)}});
  }
  return out;
}

}  // namespace servebench::client
