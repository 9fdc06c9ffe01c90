#include "eval/testing/fake_openai_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <mutex>
#include <thread>
#include <vector>

namespace servebench::eval::testing {
namespace {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;
}  // namespace

struct FakeOpenAiServer::Impl {
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::thread accept_thread;
  std::mutex mu;
  std::vector<std::shared_ptr<tcp::socket>> sockets;  // guarded by mu
  std::vector<std::thread> threads;                   // guarded by mu
  bool stopped = false;                               // guarded by mu
  Respond respond;
  uint16_t port = 0;
};

namespace {

std::string Handle(const FakeOpenAiServer::Respond& respond, const std::string& target,
                   const std::string& body, int& status) {
  boost::system::error_code ec;
  json::value request = json::parse(body, ec);
  if (ec || !request.is_object()) {
    status = 400;
    return R"({"error":{"message":"bad JSON","type":"invalid_request_error"}})";
  }
  const json::object& o = request.as_object();
  bool chat = target.find("chat") != std::string::npos;
  std::string prompt;
  if (chat) {
    prompt = std::string(o.at("messages").as_array().back().as_object().at("content").as_string());
  } else {
    prompt = std::string(o.at("prompt").as_string());
  }
  FakeReply reply = respond(prompt);
  status = reply.status;
  if (reply.status != 200) {
    return R"({"error":{"message":"injected failure","type":"server_error"}})";
  }
  json::object choice{{"index", 0}, {"finish_reason", "stop"}};
  if (chat) {
    choice["message"] = json::object{{"role", "assistant"}, {"content", reply.text}};
  } else {
    choice["text"] = reply.text;
  }
  return json::serialize(json::object{{"id", "x"},
                                      {"object", chat ? "chat.completion" : "text_completion"},
                                      {"choices", json::array{choice}}});
}

}  // namespace

FakeOpenAiServer::FakeOpenAiServer(Respond respond) : impl_(std::make_unique<Impl>()) {
  impl_->respond = std::move(respond);
  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
  impl_->acceptor.open(endpoint.protocol());
  impl_->acceptor.set_option(asio::socket_base::reuse_address(true));
  impl_->acceptor.bind(endpoint);
  impl_->acceptor.listen();
  impl_->port = impl_->acceptor.local_endpoint().port();
  impl_->accept_thread = std::thread([this] {
    for (;;) {
      auto socket = std::make_shared<tcp::socket>(impl_->ioc);
      boost::system::error_code ec;
      impl_->acceptor.accept(*socket, ec);
      if (ec) return;
      std::lock_guard lock(impl_->mu);
      if (impl_->stopped) return;
      impl_->sockets.push_back(socket);
      impl_->threads.emplace_back([this, socket] {
        beast::flat_buffer buffer;
        for (;;) {
          http::request<http::string_body> request;
          boost::system::error_code rec;
          http::read(*socket, buffer, request, rec);
          if (rec) return;
          ++requests_;
          int status = 200;
          std::string body =
              Handle(impl_->respond, std::string(request.target()), request.body(), status);
          http::response<http::string_body> response{static_cast<http::status>(status), 11};
          response.set(http::field::content_type, "application/json");
          response.keep_alive(request.keep_alive());
          response.body() = std::move(body);
          response.prepare_payload();
          http::write(*socket, response, rec);
          if (rec || !request.keep_alive()) return;
        }
      });
    }
  });
}

std::string FakeOpenAiServer::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port);
}

void FakeOpenAiServer::Stop() {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
    boost::system::error_code ec;
    for (auto& socket : impl_->sockets) socket->shutdown(tcp::socket::shutdown_both, ec);
  }
  // Wake the blocked accept() by connecting once; it sees `stopped` and returns.
  // (Closing the acceptor from this thread would race with accept().)
  {
    boost::system::error_code ec;
    asio::io_context ioc;
    tcp::socket poke(ioc);
    poke.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), impl_->port), ec);
  }
  if (impl_->accept_thread.joinable()) impl_->accept_thread.join();
  boost::system::error_code ec;
  impl_->acceptor.close(ec);
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(impl_->mu);
    threads.swap(impl_->threads);
  }
  for (auto& t : threads) t.join();
}

FakeOpenAiServer::~FakeOpenAiServer() { Stop(); }

}  // namespace servebench::eval::testing
