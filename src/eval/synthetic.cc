#include "eval/synthetic.h"

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>

#include "common/splitmix64.h"

namespace servebench::eval {
namespace {

// SplitMix64 (common/splitmix64.h): a seed means the same dataset everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : stream_(seed) {}
  uint64_t Next() { return stream_.Next(); }
  // Uniform in [lo, hi] (modulo bias is irrelevant at these sizes).
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  SplitMix64 stream_;
};

struct Person {
  std::string_view name;
  std::string_view pronoun;
};
constexpr std::array<Person, 8> kPeople = {{{"Ava", "She"},
                                            {"Ben", "He"},
                                            {"Chloe", "She"},
                                            {"David", "He"},
                                            {"Emma", "She"},
                                            {"Felix", "He"},
                                            {"Grace", "She"},
                                            {"Hugo", "He"}}};
constexpr std::array<std::string_view, 8> kItems = {"apples",  "marbles", "stickers", "pencils",
                                                    "cookies", "stamps",  "books",    "shells"};

GsmDoc MakeOne(Rng& rng) {
  const Person& person = kPeople[rng.Next() % kPeople.size()];
  std::string_view items = kItems[rng.Next() % kItems.size()];
  int64_t total = rng.Between(2, 200);
  std::string question = fmt::format("{} has {} {}.", person.name, total, items);
  std::string solution = fmt::format("{} starts with {} {}.\n", person.name, total, items);
  int64_t steps = rng.Between(1, 3);
  for (int64_t i = 0; i < steps; ++i) {
    int64_t kind = rng.Between(0, 2);
    if (kind == 1 && total == 0) kind = 0;  // nothing to give away
    int64_t before = total;
    if (kind == 0) {
      int64_t b = rng.Between(1, 99);
      total += b;
      question += fmt::format(" {} buys {} more {}.", person.pronoun, b, items);
      solution += fmt::format("{} + {} = <<{}+{}={}>>{}\n", before, b, before, b, total, total);
    } else if (kind == 1) {
      int64_t b = rng.Between(1, total);
      total -= b;
      question += fmt::format(" {} gives away {} {}.", person.pronoun, b, items);
      solution += fmt::format("{} - {} = <<{}-{}={}>>{}\n", before, b, before, b, total, total);
    } else {
      int64_t boxes = rng.Between(2, 12);
      int64_t each = rng.Between(2, 25);
      total += boxes * each;
      question += fmt::format(" {} buys {} boxes with {} {} in each box.", person.pronoun, boxes,
                              each, items);
      solution += fmt::format("{} + {} * {} = <<{}+{}*{}={}>>{}\n", before, boxes, each, before,
                              boxes, each, total, total);
    }
  }
  question += fmt::format(" How many {} does {} have now?", items, person.name);
  solution += fmt::format("#### {}", total);
  return GsmDoc{std::move(question), std::move(solution)};
}

}  // namespace

std::vector<GsmDoc> MakeSyntheticGsm(uint64_t seed, size_t count) {
  Rng rng(seed);
  std::vector<GsmDoc> docs;
  docs.reserve(count);
  for (size_t i = 0; i < count; ++i) docs.push_back(MakeOne(rng));
  return docs;
}

}  // namespace servebench::eval
