#include "run/inferencex_result.h"

#include <boost/json.hpp>
#include <filesystem>

#include "common/atomic_file.h"
#include "recipe/result_name.h"
#include "recipe/topology.h"

namespace servebench::run {

std::string InferenceXResultPath(const std::string& out_dir, const recipe::Point& point,
                                 const std::string& runner_node,
                                 const std::vector<int>& session_concurrencies) {
  if (!recipe::HasTopology(point.serve)) return "";
  auto topology = recipe::SessionTopology(point.serve);
  if (!topology.ok()) return "";
  const std::string base = recipe::InferenceXResultName(point, runner_node, session_concurrencies);
  return out_dir + "/inferencex/" +
         recipe::MultinodeResultFile(base, point.load.concurrency, topology->prefill_gpus,
                                     topology->decode_gpus);
}

StatusOr<std::string> WriteInferenceXResult(const std::string& out_dir, const recipe::Point& point,
                                            const std::string& runner_node,
                                            const std::vector<int>& session_concurrencies,
                                            const LoadOutcome& load) {
  if (!load.completed) return std::string();
  const std::string path = InferenceXResultPath(out_dir, point, runner_node, session_concurrencies);
  if (path.empty()) return path;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) {
    return Status::Internal("cannot create " + std::filesystem::path(path).parent_path().string() +
                            ": " + ec.message());
  }
  SB_RETURN_IF_ERROR(WriteFileAtomically(path, boost::json::serialize(load.summary) + "\n"));
  return path;
}

}  // namespace servebench::run
