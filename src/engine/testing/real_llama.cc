#include "engine/testing/real_llama.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <filesystem>

#include "common/atomic_file.h"
#include "engine/adapter.h"
#include "engine/free_port.h"
#include "metrics/prometheus.h"
#include "net/http_fetch.h"

namespace servebench::engine::testing {

StatusOr<RealLlama> LoadRealLlama() {
  const std::string path = SERVEBENCH_REALENGINE_ENV;
  auto text = ReadFile(path);
  if (!text.ok()) {
    return Status::FailedPrecondition(fmt::format(
        "{} is missing: the realengine_setup test writes it (ctest -L realengine runs it "
        "first; or scripts/llamacpp-setup.sh build/src/cli/servebench {})",
        path, path));
  }
  RealLlama out;
  size_t at = 0;
  while (at < text->size()) {
    size_t eol = text->find('\n', at);
    std::string line = text->substr(at, eol == std::string::npos ? std::string::npos : eol - at);
    at = eol == std::string::npos ? text->size() : eol + 1;
    if (line.rfind("LLAMA_SERVER=", 0) == 0) out.server = line.substr(13);
    if (line.rfind("LLAMA_MODELS=", 0) == 0) out.models = line.substr(13);
  }
  if (out.server.empty() || out.models.empty() || !std::filesystem::exists(out.server)) {
    return Status::FailedPrecondition(path + ": no usable LLAMA_SERVER / LLAMA_MODELS");
  }
  std::string dir = std::filesystem::path(out.server).parent_path().string();
  const char* old = getenv("PATH");
  std::string current = old != nullptr ? old : "";
  if (current.rfind(dir + ":", 0) != 0) setenv("PATH", (dir + ":" + current).c_str(), 1);
  return out;
}

recipe::ServeSpec LlamaServeSpec(const RealLlama& llama, const LlamaServerOptions& o) {
  recipe::ServeSpec spec;
  spec.engine = "llamacpp";
  spec.model = llama.Model(o.model);
  spec.served_model_name = o.model;
  spec.max_model_len = o.max_model_len;
  spec.extra_args = o.extra_args;
  spec.readiness_timeout_s = 60;
  if (!o.draft.empty()) {
    spec.spec.method = recipe::SpecMethod::kDraftModel;
    spec.spec.draft_model = llama.Model(o.draft);
    spec.spec.num_speculative_tokens = o.draft_tokens;
    if (o.synthetic_acceptance_length > 0) {
      spec.spec.acceptance = recipe::AcceptanceMode::kSyntheticTarget;
      spec.spec.synthetic_acceptance_length = o.synthetic_acceptance_length;
    }
  }
  return spec;
}

StatusOr<std::unique_ptr<Supervisor>> StartSupervised(const recipe::ServeSpec& spec, int slots,
                                                      const std::string& log_path, int port) {
  RenderOptions render;
  render.port = port;
  if (render.port == 0) {
    SB_ASSIGN_OR_RETURN(render.port, FindFreePort());
  }
  render.max_concurrency = slots;
  SB_ASSIGN_OR_RETURN(ServerCommand command, RenderServerCommand(spec, render));
  SupervisorOptions sup;
  sup.log_path = log_path;
  sup.stop_grace_s = 5;
  return Supervisor::Start(command, sup);
}

StatusOr<std::unique_ptr<LlamaServer>> LlamaServer::Start(const RealLlama& llama,
                                                          const LlamaServerOptions& o,
                                                          const std::string& log_path) {
  std::unique_ptr<LlamaServer> server(new LlamaServer);
  SB_ASSIGN_OR_RETURN(server->supervisor_,
                      StartSupervised(LlamaServeSpec(llama, o), o.slots, log_path));
  SB_ASSIGN_OR_RETURN(server->ready_, server->supervisor_->WaitUntilReady());
  return server;
}

std::string LlamaServer::base_url() const {
  return fmt::format("http://{}:{}", supervisor_->command().host, supervisor_->command().port);
}

StatusOr<std::map<std::string, double>> ScrapeLlamaMetrics(const std::string& base_url) {
  SB_ASSIGN_OR_RETURN(net::Url url, net::ParseUrl(base_url));
  SB_ASSIGN_OR_RETURN(net::HttpReply reply, net::HttpFetch(url, "/metrics", "", 10));
  if (reply.status != 200) {
    return Status::Unavailable(fmt::format("{}/metrics: HTTP {}", base_url, reply.status));
  }
  SB_ASSIGN_OR_RETURN(std::vector<metrics::PromSample> samples,
                      metrics::ParsePrometheusText(reply.body));
  std::map<std::string, double> out;
  for (const metrics::PromSample& s : samples) {
    if (s.name.rfind("llamacpp:", 0) == 0) out[s.name] += s.value;
  }
  return out;
}

}  // namespace servebench::engine::testing
