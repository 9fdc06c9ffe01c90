#include <boost/json/serialize.hpp>

#include "recipe/recipe.h"
#include "record/migrate.h"
#include "record/record_builder.h"

namespace servebench::record::internal {

void MigrateFromV1(Record* r) {
  Deployment& d = r->deployment;
  if (r->point && r->point->contains("serve")) {
    StatusOr<recipe::Point> point = recipe::PointFromJson(boost::json::serialize(*r->point));
    if (point.ok()) {
      Deployment derived = DeploymentOf(point->serve);
      d.pp = derived.pp;
      d.pcp_size = derived.pcp_size;
      d.num_speculative_tokens = derived.num_speculative_tokens;
      d.disagg = derived.disagg;
      // Schema 1 counted tp x pp x pcp even for multinode deployments; the split of
      // the current writer keeps a series' numbers continuous across the change.
      if (derived.prefill_gpus > 0) {
        d.num_gpus = derived.num_gpus;
        d.prefill_gpus = derived.prefill_gpus;
        d.decode_gpus = derived.decode_gpus;
      }
    }
  }
  if (d.num_gpus <= 0) d.num_gpus = std::max(1, d.tp);
  if (r->summary) SetLoadResult(r, std::move(*r->summary));
  if (r->evals) SetEvals(r, std::move(*r->evals));
}

}  // namespace servebench::record::internal
