// The extraction table: every expected value below was computed with Python's
// `re` and lm-eval's gsm8k patterns and filter logic (findall, group_select,
// first non-empty group, strip, regexes_to_ignore, lower), not with this code.
#include "eval/extraction.h"

#include <gtest/gtest.h>

#include <string>

namespace servebench::eval {
namespace {

struct Case {
  std::string response;
  std::string reference;
  std::string strict_first;  // upstream lm-eval strict-match
  std::string strict_last;   // InferenceX strict-match (group_select -1)
  std::string flexible;
  bool strict_first_correct;
  bool strict_last_correct;
  bool flexible_correct;
};

const Case kCases[] = {
    {"Natalia sold 48/2 = 24 clips in May.\n#### 72", "#### 72", "72", "72", "72", true, true,
     true},
    {"so she pays $1,234.\n#### 1,234.", "#### 1234", "1,234.", "1,234.", "1,234.", true, true,
     true},
    {"The answer is 1234.", "#### 1234", "[invalid]", "[invalid]", "1234.", false, false, true},
    {"Question recap: #### 5\nMore work... final\n#### 1234", "#### 1234", "5", "1234", "1234",
     false, true, true},
    {"#### -3", "#### -3", "-3", "-3", "-3", true, true, true},
    {"The temperature drops to -3 degrees.", "#### -3", "[invalid]", "[invalid]", "-3", false,
     false, true},
    {"#### $18", "#### 18", "[invalid]", "[invalid]", "$18", false, false, true},
    {"He earns $18.", "#### 18", "[invalid]", "[invalid]", "$18.", false, false, true},
    {"He earns $18.00 per hour, so #### 18.00", "#### 18", "18.00", "18.00", "18.00", false, false,
     false},
    {"Total is 2.5 hours\n#### 2.5", "#### 2.5", "2.5", "2.5", "2.5", true, true, true},
    {"No number here at all.", "#### 7", "[invalid]", "[invalid]", "[invalid]", false, false,
     false},
    {"", "#### 7", "[invalid]", "[invalid]", "[invalid]", false, false, false},
    {"#### ", "#### 7", "[invalid]", "[invalid]", "[invalid]", false, false, false},
    {"####5", "#### 5", "[invalid]", "[invalid]", "5", false, false, true},
    {"##### 5", "#### 5", "5", "5", "5", true, true, true},
    {"#### 5\n#### 6", "#### 6", "5", "6", "6", false, true, true},
    {"#### 1,000,000", "#### 1000000", "1,000,000", "1,000,000", "1,000,000", true, true, true},
    {"The answer is 1,000,000 dollars", "#### 1000000", "[invalid]", "[invalid]", "1,000,000",
     false, false, true},
    {"She has 3 apples and 4 pears, so 7", "#### 7", "[invalid]", "[invalid]", "7", false, false,
     true},
    {"answer: 7.", "#### 7", "[invalid]", "[invalid]", "7.", false, false, true},
    {"answer: 7..", "#### 7", "[invalid]", "[invalid]", "7..", false, false, false},
    {"#### 7.\n", "#### 7", "7.", "7.", "7.", true, true, true},
    {"The answer is 7.\n", "#### 7", "[invalid]", "[invalid]", "7.", false, false, true},
    {"#### -", "#### 7", "[invalid]", "[invalid]", "[invalid]", false, false, false},
    {"#### --5", "#### -5", "[invalid]", "[invalid]", "-5", false, false, true},
    {"value -5", "#### -5", "[invalid]", "[invalid]", "-5", false, false, true},
    {"value --5", "#### -5", "[invalid]", "[invalid]", "-5", false, false, true},
    {"It costs $5", "#### 5", "[invalid]", "[invalid]", "$5", false, false, true},
    {"It costs $", "#### 5", "[invalid]", "[invalid]", "[invalid]", false, false, false},
    {"3-4 = -1", "#### -1", "[invalid]", "[invalid]", "-1", false, false, true},
    {"Final: 42\nThe answer is 42", "#### 42", "[invalid]", "[invalid]", "42", false, false, true},
    {"So 10 + 5 = 15 apples. The answer is 15 apples", "#### 15", "[invalid]", "[invalid]", "15",
     false, false, true},
    {"Answer: .5", "#### 0.5", "[invalid]", "[invalid]", ".5", false, false, false},
    {"Answer: 0.5", "#### 0.5", "[invalid]", "[invalid]", "0.5", false, false, true},
    {"We get 12,5", "#### 125", "[invalid]", "[invalid]", "12,5", false, false, true},
    {"#### 1 2", "#### 1", "1", "1", "2", true, true, false},
    {"The answer is #### 42.", "#### 42", "42.", "42.", "42.", true, true, true},
    {"A 5", "#### 5", "[invalid]", "[invalid]", "5", false, false, true},
    {"5", "#### 5", "[invalid]", "[invalid]", "5", false, false, true},
    {"x5y", "#### 5", "[invalid]", "[invalid]", "5", false, false, true},
    {"#### 12\nreasoning recap with 99", "#### 12", "12", "12", "99", true, true, false},
    {"#### 3.14159", "#### 3.14159", "3.14159", "3.14159", "3.14159", true, true, true},
    {"$$", "#### 0", "[invalid]", "[invalid]", "$$", false, false, false},
    {"The answer is -0.", "#### 0", "[invalid]", "[invalid]", "-0.", false, false, false},
    {"Costs: $1,234.56 in total", "#### 1234.56", "[invalid]", "[invalid]", "$1,234.56", false,
     false, true},
    {"#### 4,5,6", "#### 456", "4,5,6", "4,5,6", "4,5,6", true, true, true},
    {"**Answer:** 26", "#### 26", "[invalid]", "[invalid]", "26", false, false, true},
    {"\\boxed{26}", "#### 26", "[invalid]", "[invalid]", "26", false, false, true},
    {"1. First step: 3 + 4 = 7\n2. Second step: 7 * 2 = 14\n#### 14", "#### 14", "14", "14", "14",
     true, true, true},
    {"Answer: 14\n\nQuestion: Tom has 3 apples", "#### 14", "[invalid]", "[invalid]", "3", false,
     false, false},
    {"The answer is 72.",
     "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 clips "
     "altogether in April and May.\n#### 72",
     "[invalid]", "[invalid]", "72.", false, false, true},
    {"She pays $1,000.\n#### 1000", "Total = <<2*500=1000>>1000 dollars\n#### 1,000", "1000",
     "1000", "1000", true, true, true},
};

TEST(ExtractionTest, TableHasAtLeastFortyTrickyCases) { EXPECT_GE(std::size(kCases), 40u); }

TEST(ExtractionTest, EveryTableRowMatchesLmEval) {
  for (const Case& c : kCases) {
    SCOPED_TRACE("response: " + c.response);
    EXPECT_EQ(ExtractStrict(c.response, StrictSelect::kFirst), c.strict_first);
    EXPECT_EQ(ExtractStrict(c.response, StrictSelect::kLast), c.strict_last);
    EXPECT_EQ(ExtractFlexible(c.response), c.flexible);
    EXPECT_EQ(ExactMatch(c.strict_first, c.reference), c.strict_first_correct);
    EXPECT_EQ(ExactMatch(c.strict_last, c.reference), c.strict_last_correct);
    EXPECT_EQ(ExactMatch(c.flexible, c.reference), c.flexible_correct);
  }
}

TEST(ExtractionTest, ReferenceKeepsOnlyTextAfterLastHashes) {
  EXPECT_EQ(NormalizeForExactMatch("a #### b #### $1,234."), "1234");
  EXPECT_EQ(NormalizeForExactMatch("ABC"), "abc");
  EXPECT_EQ(NormalizeForExactMatch("7.\n"), "7\n");
}

TEST(ExtractionTest, InvalidNeverMatchesANumber) {
  EXPECT_FALSE(ExactMatch(std::string(kInvalidAnswer), "#### 0"));
}

}  // namespace
}  // namespace servebench::eval
