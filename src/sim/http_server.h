// HttpServer: a minimal HTTP/1.1 server on an EventLoop, made for one job: many
// concurrent keep-alive connections, each carrying either a small JSON response or a
// long Server-Sent-Events stream (chunked transfer encoding, as uvicorn sends vLLM's
// streams). Bytes written during one loop iteration are coalesced and leave in one
// write() per socket just before the loop blocks.
//
// Send-time stamps (`servebench sim --send-time-field`): a chunk may carry
// placeholders of kSendStampWidth characters; each is overwritten with
// CLOCK_MONOTONIC nanoseconds immediately before the send() that carries its
// bytes, so the stamp says when the bytes left, not when the chunk was built
// (which, with coalescing, can be a whole loop iteration earlier).
//
// Requests on one connection are handled one at a time (a pipelined request waits
// until the previous response is complete). Request bodies need Content-Length;
// chunked request bodies get 501. Connections are named by ConnId values that stay
// safe to use after the connection is gone (calls on a closed id do nothing).
// Not thread-safe: loop thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sim/event_loop.h"

namespace servebench::sim {

using ConnId = uint64_t;

struct HttpRequest {
  std::string method;
  std::string target;  // path and query, as sent
  std::string body;
  std::string authorization;  // the Authorization header's value, if any
  bool keep_alive = true;
};

class HttpServer {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // A complete request. Respond now or later (Respond / BeginStream...).
    virtual void OnRequest(ConnId conn, HttpRequest& request) = 0;
    // The peer went away (or Abort was called) while a response was unfinished.
    virtual void OnConnectionLost(ConnId conn) = 0;
  };

  // Binds host:port (port 0 picks a free one) and starts accepting.
  // A send-time placeholder: valid JSON (-1, "not stamped") until stamped, and wide
  // enough for any non-negative int64 right-aligned with leading spaces.
  static constexpr std::string_view kSendStampPlaceholder = "                  -1";
  static constexpr size_t kSendStampWidth = kSendStampPlaceholder.size();

  static StatusOr<std::unique_ptr<HttpServer>> Listen(EventLoop* loop, const std::string& host,
                                                      int port, Handler* handler);
  ~HttpServer();

  int port() const { return port_; }
  size_t open_connections() const { return open_connections_; }
  // Bytes queued on all connections that the kernel has not taken yet.
  size_t total_pending_bytes() const { return pending_total_; }

  // A whole response with Content-Length.
  void Respond(ConnId conn, int status, std::string_view content_type, std::string_view body);
  // Starts a chunked response; each WriteChunk is one HTTP chunk; EndStream ends it.
  void BeginStream(ConnId conn, int status, std::string_view content_type);
  // `send_stamps`: offsets in `data` of send-time placeholders (kSendStampPlaceholder).
  void WriteChunk(ConnId conn, std::string_view data, std::span<const size_t> send_stamps = {});
  void EndStream(ConnId conn);
  // Sends what is queued (one attempt) and closes the socket, response unfinished
  // (fault injection).
  void Abort(ConnId conn);
  bool IsOpen(ConnId conn) const;
  // Bytes queued on `conn` that the kernel has not taken yet.
  size_t PendingBytes(ConnId conn) const;

 private:
  class Listener;
  struct Connection;
  HttpServer(EventLoop* loop, Handler* handler);
  Connection* Find(ConnId conn) const;
  void Accept();
  void OnConnectionEvents(Connection* c, uint32_t events);
  void ReadFrom(Connection* c);
  void ParseRequests(Connection* c);
  void MarkDirty(Connection* c);
  void Flush(Connection* c);
  // send() of c's unsent bytes, stamping their placeholders first; < 0 on error.
  ssize_t SendPending(Connection* c);
  void FlushAll();
  void Close(Connection* c, bool notify);
  void FinishResponse(Connection* c);
  void ReapClosed();

  EventLoop* loop_;
  Handler* handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::unique_ptr<Listener> listener_;
  std::vector<std::unique_ptr<Connection>> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<uint32_t> closed_slots_;  // freed at the end of the iteration
  std::vector<Connection*> dirty_;
  size_t open_connections_ = 0;
  size_t pending_total_ = 0;
};

// "200 OK", "400 Bad Request"...: the status line reason for `status`.
std::string_view HttpReason(int status);

}  // namespace servebench::sim
