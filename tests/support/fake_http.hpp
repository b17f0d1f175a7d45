// An HttpClient that serves files from memory: Range, ETag/304, a connection dropped after N bytes,
// a server that ignores Range, and unreachable hosts; it records every request it got.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "cudnn_install/http.hpp"

namespace cudnn_install::test {

class FakeHttp final : public HttpClient {
 public:
  struct File {
    File(std::string body = {}, std::string etag = {}) : body(std::move(body)), etag(std::move(etag)) {}
    std::string body;
    std::string etag;
    int status = 200;
  };
  std::map<std::string, File> files;  // by URL
  std::vector<HttpRequest> requests;
  std::vector<std::size_t> drop_after;  // per request, in order: bytes sent before the connection drops
  bool ignore_range = false;
  bool unreachable = false;

  Result<HttpResponse> get(const HttpRequest& request, const HttpBodySink& body) override {
    requests.push_back(request);
    if (unreachable) return fail(ErrorCode::Network, request.url + ": could not connect");
    auto it = files.find(request.url);
    if (it == files.end() || it->second.status != 200) return answer(it == files.end() ? 404 : it->second.status);
    const auto& file = it->second;
    if (!request.if_none_match.empty() && request.if_none_match == file.etag) return answer(304, file.etag);
    std::size_t from = ignore_range ? 0 : request.range_from;
    if (from > file.body.size()) return answer(416);
    int status = from > 0 ? 206 : 200;
    std::string_view rest = std::string_view(file.body).substr(from);
    std::size_t limit = rest.size();
    bool drop = false;
    if (!drop_after.empty()) {
      drop = drop_after.front() < rest.size();
      limit = std::min(limit, drop_after.front());
      drop_after.erase(drop_after.begin());
    }
    for (std::size_t at = 0; at < limit; at += 7) {  // small chunks, as a network gives them
      auto chunk = rest.substr(at, std::min<std::size_t>(7, limit - at));
      if (auto r = body(status, std::span<const char>(chunk.data(), chunk.size())); !r)
        return std::unexpected(r.error());
    }
    if (drop) return fail(ErrorCode::Network, request.url + ": connection reset");
    auto response = answer(status, file.etag);
    response.content_length = rest.size();
    return response;
  }

 private:
  static HttpResponse answer(int status, std::string etag = {}) {
    HttpResponse response;
    response.status = status;
    response.etag = std::move(etag);
    return response;
  }
};

}  // namespace cudnn_install::test
