// RoleSettings: which part of a serve session `servebench sim` plays (docs/simulator.md
// "Roles"). An aggregated server (the default) prefills and decodes; a prefill
// worker computes a prompt's KV and hands it off; a decode worker pulls that KV over
// its link (the transfer takes kv bytes / link bandwidth) and then only decodes; a
// router takes the client's requests and runs the stack's request flow over its
// workers. cli/sim.cc maps the flags; Validate(RoleSettings) checks them.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::sim {

enum class SimRole { kAggregated, kPrefill, kDecode, kRouter };

// "aggregated", "prefill", "decode", "router".
const char* SimRoleName(SimRole role);

struct RoleSettings {
  SimRole role = SimRole::kAggregated;
  // ---- Workers (prefill, decode) ----
  // The connector the KV moves over (nixl, mooncake, mori, ucx, p2p-nccl, lmcache):
  // recorded, and named in transfer errors. The model is the same link for all: no
  // per-connector efficiency is published (docs/simulator.md "KV transfer").
  std::string kv_connector = "nixl";
  // Bandwidth each decode GPU pulls its KV shard at, GB/s (decimal). Default: one
  // 400 Gb/s RDMA NIC per GPU (ConnectX-7 in DGX/HGX H100, H200, B200 nodes).
  double kv_link_gb_per_s = 50;
  // Fixed cost of one transfer (handshake, descriptor posting), microseconds. Assumed:
  // no published per-transfer figure.
  double kv_link_latency_us = 20;
  // ---- Router ----
  std::vector<std::string> prefill_urls;  // http://host:port of each prefill worker
  std::vector<std::string> decode_urls;   // ... of each decode worker
  std::vector<std::string> worker_urls;   // aggregated workers (no P/D)
  std::string policy = "round_robin";     // round_robin | random
  // How often the router polls each worker's /health, milliseconds.
  int health_poll_ms = 200;
};

// Fails with the flag at fault: a router without workers or with both P/D and
// aggregated workers, workers given to a non-router, a link bandwidth <= 0.
Status Validate(const RoleSettings& settings);

}  // namespace servebench::sim
