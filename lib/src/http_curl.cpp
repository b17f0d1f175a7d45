// HttpClient over libcurl (linked normally): TLS verified (curl's default, never turned off),
// proxies from http_proxy/https_proxy/no_proxy (curl reads them itself), redirects followed
// within http and https only.
#include <curl/curl.h>

#include <mutex>
#include <string_view>

#include "base/util.hpp"
#include "cudnn_install/http.hpp"

namespace cudnn_install {
namespace {

struct Transfer {
  CURL* curl = nullptr;
  const HttpBodySink* body = nullptr;
  HttpResponse response;
  std::optional<Error> sink_error;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return s;
}

// One header line; a status line starts a new response (after a redirect or a 100 Continue).
size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) t.response = {};
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;
  auto name = util::lower(std::string(line.substr(0, colon)));
  auto value = trim(line.substr(colon + 1));
  if (name == "etag") t.response.etag = value;
  if (name == "last-modified") t.response.last_modified = value;
  if (name == "content-length") {
    t.response.content_length = util::leading_uint64(value);  // not a number: unknown, as without one
  }
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  long status = 0;
  curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) return size * count;  // an error page: not the file
  if (auto r = (*t.body)(static_cast<int>(status), std::span<const char>(data, size * count)); !r) {
    t.sink_error = r.error();
    return 0;  // CURLE_WRITE_ERROR: the transfer stops
  }
  return size * count;
}

class CurlClient final : public HttpClient {
 public:
  Result<HttpResponse> get(const HttpRequest& request, const HttpBodySink& body) override {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) return fail(ErrorCode::Network, "libcurl cannot start a transfer (out of memory?)");
    Transfer t{curl.get(), &body, {}, std::nullopt};
    char error_text[CURL_ERROR_SIZE] = {};
    curl_slist* headers = nullptr;
    if (!request.if_none_match.empty())
      headers = curl_slist_append(headers, ("If-None-Match: " + request.if_none_match).c_str());
    if (!request.if_modified_since.empty())
      headers = curl_slist_append(headers, ("If-Modified-Since: " + request.if_modified_since).c_str());
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(headers, curl_slist_free_all);
    auto range = std::to_string(request.range_from) + "-";
    CURL* c = curl.get();
    curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_USERAGENT, "cudnn-install");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);  // a stalled connection counts as dropped
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    if (request.range_from > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
    CURLcode code = curl_easy_perform(c);
    if (t.sink_error) return std::unexpected(*t.sink_error);
    if (code == CURLE_PEER_FAILED_VERIFICATION)
      return untrusted_server(request.url, error_text[0] ? error_text : curl_easy_strerror(code));
    if (code != CURLE_OK)
      return fail(ErrorCode::Network,
                  request.url + ": " + (error_text[0] ? error_text : curl_easy_strerror(code)) +
                      ". Check the network, the proxy variables (https_proxy) or the --mirror address, and try again.",
                  request.url);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    t.response.status = static_cast<int>(status);
    return t.response;
  }
};

}  // namespace

std::unique_ptr<HttpClient> make_http_client() { return std::make_unique<CurlClient>(); }

}  // namespace cudnn_install
