// bench_event_decode: the client's per-event user-space work, with no socket in the
// way (issue 19, item 6: where bench_client_ceiling's CPU per event goes). It takes
// one real streamed response from `servebench sim` (its exact bytes, read off a
// socket), then feeds it again and again, in slices the size of the ceiling's reads,
// through each stage of the path a load worker runs on every read:
//   1. HttpResponseParser alone (chunked decoding; the body is dropped)
//   2. + SseParser (lines and events; the events are dropped)
//   3. + StreamDecoder (ReadChunk's JSON pass and the RequestRecord's events): the
//      whole per-event path
//   4. ReadChunk alone, on each event's data
// and prints ns per event for each, so the cost of a stage is the step between two
// rows. CPU time, one thread; the median of --repeats R runs (default 5).
#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "client/chunk_reader.h"
#include "client/client.h"
#include "client/dataset.h"
#include "client/openai_stream.h"
#include "client/request_builder.h"
#include "client/sse_parser.h"
#include "net/http_response_parser.h"
#include "net/url.h"
#include "sim/testing/sim_process.h"

namespace servebench::client {
namespace {

using sim::testing::SimProcess;

double ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// One streamed response of `output_len` tokens, as the sim sent it (headers included).
std::string FetchResponse(const SimProcess& sim, int64_t output_len, std::string* error) {
  BenchSettings s;
  s.base_url = sim.base_url();
  s.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.ignore_eos = true;
  s.num_prompts = 1;
  s.random_input_len = 64;
  s.random_output_len = output_len;
  auto url = net::ParseUrl(s.base_url);
  auto prompts = MakePrompts(s, /*chat=*/false, {});
  if (!url.ok() || !prompts.ok()) {
    *error = !url.ok() ? url.status().ToString() : prompts.status().ToString();
    return "";
  }
  auto tmpl = MakeRequestTemplate(s, *url, "");
  if (!tmpl.ok()) {
    *error = tmpl.status().ToString();
    return "";
  }
  std::string request = BuildRequest(*tmpl, prompts->measured.at(0), true);
  request.replace(request.find("keep-alive"), 10, "close");
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(sim.port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
          static_cast<ssize_t>(request.size())) {
    *error = std::string("could not send to the sim: ") + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return "";
  }
  std::string response;
  char buf[65536];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) response.append(buf, n);
  ::close(fd);
  return response;
}

struct Stage {
  const char* name;
  std::vector<double> ns_per_event;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Main(int argc, char** argv) {
  int repeats = 5;
  size_t slice = 12 * 1024;  // bench_client_ceiling's reads carry 20-80 events of 336 B
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--repeats" && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
    if (a == "--slice" && i + 1 < argc) slice = std::max(1, std::atoi(argv[++i]));
  }
  SimProcess sim({"--time-scale", "0"}, /*wait_ready=*/true, 60);
  if (!sim.ready()) {
    std::printf("could not start servebench sim: %s\n", sim.output().c_str());
    return 1;
  }
  std::string error;
  const std::string wire = FetchResponse(sim, 1024, &error);
  if (wire.empty()) {
    std::printf("could not read a response: %s\n", error.c_str());
    return 1;
  }
  // The events' data, for stage 4.
  std::vector<std::string> datas;
  {
    SseParser sse([&](std::string_view, std::string_view d, int64_t) { datas.emplace_back(d); });
    net::HttpResponseParser body([&](std::string_view b) { (void)sse.Feed(b, 0); });
    if (Status s = body.Feed(wire); !s.ok() || !body.complete()) {
      std::printf("the sim's response does not parse: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  const int64_t events = static_cast<int64_t>(datas.size()) - 1;  // [DONE] is not counted
  const int passes = std::max<int>(1, static_cast<int>(20'000'000 / wire.size()));

  Stage stages[4] = {{"1. HTTP (chunked decoding)", {}},
                     {"2. HTTP + SSE", {}},
                     {"3. HTTP + SSE + StreamDecoder (the whole path)", {}},
                     {"4. ReadChunk alone", {}}};
  int64_t sink = 0;
  for (int r = 0; r < repeats; ++r) {
    for (int stage = 0; stage < 3; ++stage) {
      double t0 = ThreadCpuNs();
      for (int p = 0; p < passes; ++p) {
        metrics::RequestRecord record;
        StreamDecoder decoder(&record, false);
        SseParser sse([&](std::string_view, std::string_view d, int64_t t) {
          if (stage == 2) {
            decoder.OnData(d, t);
          } else {
            sink += static_cast<int64_t>(d.size());
          }
        });
        net::HttpResponseParser http([&](std::string_view b) {
          if (stage == 0) {
            sink += static_cast<int64_t>(b.size());
          } else {
            (void)sse.Feed(b, p);
          }
        });
        for (size_t off = 0; off < wire.size(); off += slice) {
          (void)http.Feed(std::string_view(wire).substr(off, slice));
        }
        if (stage == 2) {
          decoder.OnEnd();
          sink += static_cast<int64_t>(record.events.size());
        }
      }
      stages[stage].ns_per_event.push_back((ThreadCpuNs() - t0) / (passes * double(events)));
    }
    double t0 = ThreadCpuNs();
    for (int p = 0; p < passes; ++p) {
      for (size_t i = 0; i + 1 < datas.size(); ++i) {
        ChunkFacts facts;
        (void)ReadChunk(datas[i], &facts, nullptr);
        sink += facts.channels;
      }
    }
    stages[3].ns_per_event.push_back((ThreadCpuNs() - t0) / (passes * double(events)));
  }
  std::printf("one sim response: %lld events, %zu bytes (%.0f B/event), fed in %zu-byte slices\n",
              static_cast<long long>(events), wire.size(),
              static_cast<double>(wire.size()) / static_cast<double>(events), slice);
  for (const Stage& s : stages) {
    std::printf("%-50s %7.1f ns/event (range %.1f-%.1f, n=%d)\n", s.name, Median(s.ns_per_event),
                *std::min_element(s.ns_per_event.begin(), s.ns_per_event.end()),
                *std::max_element(s.ns_per_event.begin(), s.ns_per_event.end()), repeats);
  }
  return sink == 42 ? 2 : 0;  // keeps `sink` alive
}

}  // namespace
}  // namespace servebench::client

int main(int argc, char** argv) { return servebench::client::Main(argc, argv); }
