// Stage 0's transport: one HTTP(S) GET at a time, libcurl on Linux (http_curl.cpp) and WinHTTP on
// Windows (http_winhttp.cpp), behind this interface so that the download logic is tested with a fake.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

struct HttpRequest {
  std::string url;
  std::uint64_t range_from = 0;   // > 0: ask for the bytes from here on ("Range: bytes=N-")
  std::string if_none_match;      // the ETag of a cached copy: 304 when it is still current
  std::string if_modified_since;  // the Last-Modified of a cached copy
};

struct HttpResponse {
  int status = 0;  // 200, 206, 304, 404, ... (after redirects)
  std::string etag;
  std::string last_modified;
  std::optional<std::uint64_t> content_length;  // of this response's body, when the server said
};

// The body of a 2xx response (its status: 200 or 206), in order, chunk by chunk; an error (a full
// disk) stops the transfer and get() returns it as it is. Bodies of other statuses are not passed on.
using HttpBodySink = std::function<Result<void>(int status, std::span<const char> bytes)>;

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // An HTTP status is a response; no connection or a connection dropped before the body ended are
  // ErrorCode::Network errors (the sink has had the bytes that came), which a new connection may
  // mend; a server whose certificate is not trusted is an untrusted_server error, which none will.
  virtual Result<HttpResponse> get(const HttpRequest& request, const HttpBodySink& body) = 0;
};

// The platform's client: TLS verified against the system's certificates, proxies from the usual
// environment variables (https_proxy, http_proxy, no_proxy; on Windows also the system setting).
std::unique_ptr<HttpClient> make_http_client();

// "HTTP 404 for URL (what it means and what to do)": the message of a status that is not an answer.
std::string http_failure(int status, const std::string& url);
// The TLS certificate of URL's server is not trusted (`detail`: the client's words): an
// ErrorCode::IntegrityFailure, since nothing it sends can be told from an impostor's.
std::unexpected<Error> untrusted_server(const std::string& url, const std::string& detail);

}  // namespace cudnn_install
