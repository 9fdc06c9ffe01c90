// A dcgm-exporter scrape as a sampler (reference power.md §1.3): GET the
// exporter's Prometheus text once per period, one sample per GPU from
// DCGM_FI_DEV_POWER_USAGE (W; the averaged reading) or, with
// PowerReading::kInstant, DCGM_FI_DEV_POWER_USAGE_INSTANT; the counter from
// DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ). Lines carry no timestamp: a sample is
// stamped at the midpoint of its request. Blank-value sentinels (≥ 9.2e18) are N/A.
// A MIG instance label (GPU_I_ID) marks the GPU as MIG-enabled; the exporter
// repeats the whole GPU's value on each instance, so one series per GPU is kept.
// The simulated engine serves the same names on its /metrics, plus
// servebench_sim_time_scale (its time scale; docs/simulator.md).
// The GET is passed in: NetHttpGet (net/'s one-shot client) in the product, canned
// text in unit tests.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "net/tls_options.h"
#include "telemetry/sampler.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::telemetry {

// GET `url`; the body of a 200 reply, else an error naming the status.
using HttpGet = std::function<StatusOr<std::string>(const std::string& url, double timeout_s)>;

// GET over net/'s one-shot client (net/http_fetch.h) with `tls` for https URLs.
HttpGet NetHttpGet(const net::TlsOptions& tls = {});

// Scrapes once to list the GPUs. Unavailable when the URL does not answer or
// exports no DCGM power series.
StatusOr<std::unique_ptr<Sampler>> OpenDcgm(const std::string& url, const SourceOptions& options,
                                            HttpGet get);

// Several endpoints read as one source (a serve session's workers, each exporting
// its own GPUs): every period each URL is scraped in turn, its samples stamped at
// the midpoint of its own request, and each GPU is read from the endpoint that listed
// it when opened (GpuInfo::endpoint). An endpoint that does not answer one period is
// a gap for its GPUs only. Unavailable when an endpoint does not answer or exports no
// power series when opened, when two endpoints list the same GPU (it would be
// counted twice), or when simulated endpoints disagree on their time scale.
StatusOr<std::unique_ptr<Sampler>> OpenDcgmEndpoints(const std::vector<std::string>& urls,
                                                     const SourceOptions& options, HttpGet get);

}  // namespace servebench::telemetry
