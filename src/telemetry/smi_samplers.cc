#include "telemetry/smi_samplers.h"

#include <fmt/format.h>

#include <cmath>

#include "common/clock.h"
#include "telemetry/child_process.h"
#include "telemetry/smi_csv.h"

namespace servebench::telemetry {
namespace {

constexpr double kQueryTimeoutS = 30;

std::string JoinComma(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ",") + id;
  return out;
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

std::string FirstLine(const std::string& text) {
  std::string t = text.substr(0, text.find('\n'));
  return t.empty() ? "(no output)" : t;
}

// Runs a one-shot query; Unavailable with the tool's own words when it fails.
StatusOr<std::string> Query(const std::vector<std::string>& argv) {
  StatusOr<CommandOutput> out = RunCommand(argv, kQueryTimeoutS);
  if (!out.ok()) return Status::Unavailable(out.status().message());
  if (out->exit_code != 0) {
    return Status::Unavailable(fmt::format("`{}` exited with code {}: {}", CommandLine(argv),
                                           out->exit_code, FirstLine(out->err + out->out)));
  }
  return out->out;
}

PowerSample ToSample(const SmiRow& row, const TimeAnchor& anchor) {
  PowerSample s;
  s.t_ns = anchor.MonotonicFromUnixNs(static_cast<int64_t>(std::llround(*row.unix_s * 1e9)));
  s.gpu = row.uuid.empty() ? row.gpu : row.uuid;
  s.power_w = row.power_w;
  s.energy_j = row.energy_j;
  s.temp_c = row.temp_c;
  s.sm_clock_mhz = row.sm_clock_mhz;
  s.util_pct = row.util_pct;
  s.mem_used_mib = row.mem_used_mib;
  return s;
}

// A CLI printing rows in its own loop; every row with a timestamp is a sample.
class StreamSampler : public Sampler {
 public:
  StreamSampler(SourceInfo info, std::vector<GpuInfo> gpus, std::vector<std::string> argv,
                std::vector<std::string> env, TimeAnchor anchor)
      : Sampler(std::move(info), std::move(gpus)),
        argv_(std::move(argv)),
        env_(std::move(env)),
        anchor_(anchor) {}
  ~StreamSampler() override {
    if (stream_) stream_->Stop();
  }

  Status Start() override {
    SB_ASSIGN_OR_RETURN(
        stream_, LineStream::Start(argv_, env_, [this](const std::string& line) { OnLine(line); }));
    return Status::Ok();
  }

  SampleSet Stop() override {
    bool ended_early = stream_ && stream_->ended();
    std::string err = stream_ ? stream_->Stop() : "";
    if (ended_early) {
      AddNote(fmt::format("`{}` stopped printing before the sampler was stopped{}",
                          CommandLine(argv_), err.empty() ? "" : ": " + FirstLine(err)));
    }
    AfterStop();
    return TakeSet();
  }

 protected:
  virtual void AfterStop() {}

 private:
  void OnLine(const std::string& line) {
    if (!parser_.has_header()) {
      if (!SmiCsvParser::IsHeader(line)) return;  // amd-smi prints a preamble first
      Status s = parser_.SetHeader(line);
      if (!s.ok()) AddNote(s.message());
      return;
    }
    std::optional<SmiRow> row = parser_.ParseRow(line);
    if (!row) return;
    if (!row->unix_s) {
      CountBadTimestamp();
      return;
    }
    Push(ToSample(*row, anchor_));
  }

  std::vector<std::string> argv_, env_;
  TimeAnchor anchor_;
  SmiCsvParser parser_;  // reader thread only
  std::unique_ptr<LineStream> stream_;
};

// amd-smi `metric -E --csv`: every GPU listed, and the energy (J) of those whose
// counter does not read N/A.
struct EnergyListing {
  std::vector<std::string> gpus;
  CounterSnapshot snapshot;
};

EnergyListing ParseEnergyListing(const std::string& csv) {
  EnergyListing l;
  l.snapshot.t_ns = MonotonicNowNs();
  SmiCsvParser parser;
  size_t pos = 0;
  while (pos < csv.size()) {
    size_t nl = csv.find('\n', pos);
    std::string line = csv.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? csv.size() : nl + 1;
    if (!parser.has_header()) {
      if (SmiCsvParser::IsHeader(line)) (void)parser.SetHeader(line, false, false);
      continue;
    }
    std::optional<SmiRow> row = parser.ParseRow(line);
    if (!row) continue;
    l.gpus.push_back(row->gpu);
    if (row->energy_j) l.snapshot.energy_j[row->gpu] = *row->energy_j;
  }
  return l;
}

StatusOr<CounterSnapshot> EnergySnapshot(const std::vector<std::string>& argv) {
  SB_ASSIGN_OR_RETURN(std::string out, Query(argv));
  EnergyListing l = ParseEnergyListing(out);
  if (l.gpus.empty()) {
    return Status::Unavailable(
        fmt::format("`{}` listed no GPU: {}", CommandLine(argv), FirstLine(out)));
  }
  return l.snapshot;
}

class AmdSmiSampler : public StreamSampler {
 public:
  AmdSmiSampler(SourceInfo info, std::vector<GpuInfo> gpus, std::vector<std::string> argv,
                std::vector<std::string> snapshot_argv, TimeAnchor anchor)
      : StreamSampler(std::move(info), std::move(gpus), std::move(argv), {"PYTHONUNBUFFERED=1"},
                      anchor),
        snapshot_argv_(std::move(snapshot_argv)) {}
  void SetStartSnapshot(CounterSnapshot snapshot) { SetCounterSnapshot(true, std::move(snapshot)); }
  void Note(const std::string& note) { AddNote(note); }

 protected:
  void AfterStop() override {
    StatusOr<CounterSnapshot> end = EnergySnapshot(snapshot_argv_);
    if (end.ok()) {
      SetCounterSnapshot(false, *end);
    } else {
      AddNote("no end energy snapshot: " + end.status().message());
    }
  }

 private:
  std::vector<std::string> snapshot_argv_;
};

}  // namespace

StatusOr<std::unique_ptr<Sampler>> OpenNvidiaSmi(const std::string& command,
                                                 const SourceOptions& o) {
  std::vector<std::string> select;
  if (!o.gpu_ids.empty()) select = {"-i", JoinComma(o.gpu_ids)};
  std::vector<std::string> list = {
      command, "--query-gpu=index,uuid,name,mig.mode.current,enforced.power.limit",
      "--format=csv,noheader,nounits"};
  list.insert(list.end(), select.begin(), select.end());
  SB_ASSIGN_OR_RETURN(std::string listing, Query(list));
  std::vector<GpuInfo> gpus;
  size_t pos = 0;
  while (pos < listing.size()) {
    size_t nl = listing.find('\n', pos);
    std::string line = listing.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? listing.size() : nl + 1;
    std::vector<std::string> cells = SplitCsvLine(line);
    if (cells.size() < 5 || cells[0].empty()) continue;
    GpuInfo g;
    g.index = std::atoi(cells[0].c_str());
    g.uuid = cells[1];
    g.key = g.uuid.empty() ? cells[0] : g.uuid;
    g.name = cells[2];
    if (cells[3] == "Enabled") g.mig_enabled = true;
    if (cells[3] == "Disabled") g.mig_enabled = false;
    g.power_limit_w = ParseNumberCell(cells[4]);
    gpus.push_back(g);
  }
  if (gpus.empty()) {
    return Status::Unavailable(
        fmt::format("`{}` listed no GPU: {}", CommandLine(list), FirstLine(listing)));
  }
  bool instant = o.reading == PowerReading::kInstant;
  std::string field = instant ? "power.draw.instant" : "power.draw";
  std::vector<std::string> argv = {
      command,
      "--query-gpu=timestamp,index,uuid," + field +
          ",temperature.gpu,clocks.current.sm,utilization.gpu,memory.used",
      "--format=csv", "-lms",
      std::to_string(std::max<long long>(1, std::llround(o.period_s * 1000)))};
  argv.insert(argv.end(), select.begin(), select.end());
  SourceInfo info;
  info.source = "nvidia-smi";
  info.field = field;
  info.sensor_avg_s = instant ? 0.0 : 1.0;
  info.period_s = o.period_s;
  info.where = CommandLine(argv);
  return std::unique_ptr<Sampler>(
      new StreamSampler(std::move(info), std::move(gpus), std::move(argv), {}, o.anchor));
}

StatusOr<std::unique_ptr<Sampler>> OpenAmdSmi(const std::string& command, const SourceOptions& o) {
  std::vector<std::string> select;
  if (!o.gpu_ids.empty()) {
    select.push_back("-g");
    select.insert(select.end(), o.gpu_ids.begin(), o.gpu_ids.end());
  }
  std::vector<std::string> snapshot = {command, "metric", "-E", "--csv"};
  snapshot.insert(snapshot.end(), select.begin(), select.end());
  SB_ASSIGN_OR_RETURN(std::string listing, Query(snapshot));
  EnergyListing energy = ParseEnergyListing(listing);
  std::vector<GpuInfo> gpus;
  for (const std::string& key : energy.gpus) {
    GpuInfo g;
    g.key = key;
    g.index = std::atoi(key.c_str());
    gpus.push_back(g);
  }
  if (gpus.empty()) {
    return Status::Unavailable(
        fmt::format("`{}` listed no GPU: {}", CommandLine(snapshot), FirstLine(listing)));
  }
  // amd-smi's watch interval is whole seconds.
  double period = std::max(1.0, std::ceil(o.period_s - 1e-9));
  std::vector<std::string> argv = {
      command, "metric", "-p", "-c", "-t", "-u", "-w", std::to_string(static_cast<int>(period)),
      "--csv"};
  argv.insert(argv.end(), select.begin(), select.end());
  SourceInfo info;
  info.source = "amd-smi";
  info.field = "socket_power";
  info.period_s = period;
  info.where = CommandLine(argv);
  auto sampler = std::make_unique<AmdSmiSampler>(std::move(info), std::move(gpus), std::move(argv),
                                                 snapshot, o.anchor);
  if (!energy.snapshot.energy_j.empty()) sampler->SetStartSnapshot(energy.snapshot);
  if (period != o.period_s) {
    sampler->Note(fmt::format("amd-smi samples in whole seconds: period {} s (asked {} s)", period,
                              o.period_s));
  }
  if (o.reading == PowerReading::kInstant) {
    sampler->Note("--power-reading instant applies to NVIDIA sources; amd-smi reads socket_power");
  }
  return std::unique_ptr<Sampler>(std::move(sampler));
}

}  // namespace servebench::telemetry
