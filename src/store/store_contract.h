// The behaviour every Store backend must have, as value-parameterised tests
// (store_contract.cc). A backend's test binary instantiates them:
//   INSTANTIATE_TEST_SUITE_P(Sqlite, StoreContractTest, ::testing::Values(SqliteBackend()));
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "store/migrations.h"
#include "store/store.h"

namespace servebench::store::testutil {

struct Backend {
  std::string name;
  // A location nobody has used yet: a new SQLite file path or a new database URL.
  std::function<std::string()> new_location;
  // Opens `location` migrating to `migrations`.
  std::function<StatusOr<std::unique_ptr<Store>>(const std::string& location,
                                                 const std::vector<Migration>* migrations)>
      open;
};

// Test names show the backend, not the struct's bytes.
inline void PrintTo(const Backend& backend, std::ostream* os) { *os << backend.name; }

class StoreContractTest : public ::testing::TestWithParam<Backend> {
 protected:
  // Opens a fresh store with the real schema; fails the test if it cannot.
  std::unique_ptr<Store> OpenFresh();
  std::string location_;
};

}  // namespace servebench::store::testutil
