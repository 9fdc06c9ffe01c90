#include "common/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/testing/files.h"

namespace servebench {
namespace {

std::string TempDir() { return servebench::testing::FreshTestDir("atomic"); }

TEST(AtomicFileTest, WriteThenReadRoundTripsAndCreatesFolders) {
  std::string path = TempDir() + "/a/b/record.json";
  ASSERT_TRUE(WriteFileAtomically(path, "{\"x\":1}").ok());
  auto read = ReadFile(path);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, "{\"x\":1}");
}

TEST(AtomicFileTest, OverwriteLeavesNoTemporaryFiles) {
  std::string dir = TempDir();
  ASSERT_TRUE(WriteFileAtomically(dir + "/f", "one").ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/f", "two").ok());
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  EXPECT_EQ(*ReadFile(dir + "/f"), "two");
}

TEST(AtomicFileTest, MissingFileIsNotFound) {
  EXPECT_EQ(ReadFile(TempDir() + "/nope").status().code(), StatusCode::kNotFound);
}

TEST(AtomicFileTest, OversizedFileIsRefused) {
  std::string path = TempDir() + "/big";
  ASSERT_TRUE(WriteFileAtomically(path, std::string(100, 'x')).ok());
  auto read = ReadFile(path, 10);
  EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(read.status().message().find("limit is 10"), std::string::npos);
}

TEST(AtomicFileTest, UnwritableFolderIsDataLoss) {
  if (::geteuid() == 0) {
    // root writes anywhere; /proc refuses even root.
    EXPECT_EQ(WriteFileAtomically("/proc/servebench_test/x", "x").code(), StatusCode::kDataLoss);
  } else {
    EXPECT_EQ(WriteFileAtomically("/x/y", "x").code(), StatusCode::kDataLoss);
  }
}

}  // namespace
}  // namespace servebench
