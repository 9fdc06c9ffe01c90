// record/README.md's field table and example are the codec's own output: this test
// fails when they differ, and SERVEBENCH_UPDATE_DOCS=1 rewrites them.
#include "record/record_doc.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "common/testing/files.h"
#include "record/record_json.h"

namespace servebench::record {
namespace {

const std::string kReadme = std::string(SERVEBENCH_SOURCE_DIR) + "/src/record/README.md";

// Replaces the text between "<!-- generated:NAME -->\n" and "<!-- end generated:NAME -->"
// with `body`; false when the markers are missing.
bool Splice(std::string& text, const std::string& name, const std::string& body) {
  std::string begin = "<!-- generated:" + name + " -->\n";
  std::string end = "<!-- end generated:" + name + " -->";
  size_t b = text.find(begin), e = text.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b) return false;
  text.replace(b + begin.size(), e - b - begin.size(), body);
  return true;
}

TEST(RecordDocTest, ReadmeShowsWhatTheCodecWrites) {
  std::string readme = servebench::testing::ReadFileOrEmpty(kReadme);
  ASSERT_FALSE(readme.empty()) << kReadme;
  std::string wanted = readme;
  ASSERT_TRUE(Splice(wanted, "fields", FieldTableMarkdown()));
  ASSERT_TRUE(Splice(wanted, "example", "```json\n" + ExampleRecordJson() + "```\n"));
  if (wanted != readme && std::getenv("SERVEBENCH_UPDATE_DOCS") != nullptr) {
    std::ofstream(kReadme) << wanted;
    readme = wanted;
  }
  EXPECT_EQ(readme, wanted) << "src/record/README.md is out of date: run this test with "
                               "SERVEBENCH_UPDATE_DOCS=1 to regenerate it";
}

TEST(RecordDocTest, ExampleIsAValidRecord) {
  StatusOr<Record> r = FromJson(ToJson(ExampleRecord()));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, ExampleRecord());
  EXPECT_DOUBLE_EQ(*r->headline->tput_per_gpu, 4500) << "9000 tok/s over tp 2";
}

TEST(RecordDocTest, FieldTableListsEveryFieldTheCodecWrites) {
  std::string table = FieldTableMarkdown();
  for (const auto& [key, value] : ToJson(ExampleRecord())) {
    EXPECT_NE(table.find("| `" + std::string(key) + "` |"), std::string::npos) << key;
  }
  EXPECT_NE(table.find("| `provenance.started_at` |"), std::string::npos);
  EXPECT_NE(table.find("| `tput_per_gpu` | tok/s/GPU |"), std::string::npos);
}

}  // namespace
}  // namespace servebench::record
