// The names people read for a record's configuration, workload and series: one
// definition each, used by the run report, `results list`, the dashboard, the regress
// reports (Markdown, JUnit, JSON) and `matrix --format buildkite` step labels, so a
// configuration is called the same everywhere. Extend these (not a copy elsewhere) to
// show more of a configuration. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "record/record.h"

namespace servebench::record {

// A configuration's short name, everything that tells two sessions of one workload
// apart: parallelism ("tp2", "tp8 pp2", "tp8 ep8 dpa"; pp, pcp and ep only when > 1),
// speculative decoding as method and draft length ("eagle3 n3"; "n" left out when the
// draft length is unknown) and disaggregation ("disagg P8 D16": prefill and decode
// GPUs of a multinode deployment, "1P×TP2 2D×TP2 P2 D4" when its topology is known;
// "disagg" alone for prefill/decode on one node).
std::string ConfigLabel(const Deployment& deployment);

// What was offered to it: "recipe · model · hardware · 1024/1024" (ISL/OSL when known).
std::string WorkloadLabel(const Record& record);

// One series in a verdict report: "recipe model hardware engine 1024/1024 tp2 eagle3
// n3 c8": the curve, the configuration and the concurrency.
std::string SeriesLabel(const Record& record);

// The curve a series belongs to: the workload on one engine, every configuration of it
// ("recipe model hardware engine 1024/1024"); the curve verdict compares frontiers.
std::string CurveLabel(const Record& record);

// A simulated record's time scale (Record::time_scale; records of schema 1: from the
// point it ran): wall seconds per simulated second its clock ran at (0.1: ten times
// faster than the hardware; 0: as fast as the CPU allows). Its numbers are simulated
// time whatever the scale (docs/metrics.md). nullopt for a measured record or scale 1.
std::optional<double> SimTimeScale(const Record& record);

}  // namespace servebench::record
