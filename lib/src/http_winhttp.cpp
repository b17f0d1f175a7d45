// HttpClient over WinHTTP (part of Windows: no DLL ships with the tool). TLS is verified (WinHTTP's
// default, never turned off); proxies from https_proxy/http_proxy (and no_proxy) when set, with the
// user:password of the variable given when the proxy asks (407), else the system's proxy setting;
// redirects followed (WinHTTP's default, never from https to http).
#include <windows.h>

#include <winhttp.h>

#include <cstdlib>
#include <vector>

#include "base/util.hpp"
#include "base/win32_util.hpp"
#include "cudnn_install/http.hpp"
#include "cudnn_install/utf8.hpp"
#include "http_proxy_name.hpp"

namespace cudnn_install {
namespace {

struct Internet {
  HINTERNET h = nullptr;
  explicit Internet(HINTERNET handle) : h(handle) {}
  ~Internet() {
    if (h) WinHttpCloseHandle(h);
  }
  Internet(const Internet&) = delete;
  Internet& operator=(const Internet&) = delete;
};

std::string proxy_env(const char* upper, const char* lower) {
  for (const char* name : {lower, upper})
    if (auto value = environment_variable(name)) return *value;
  return {};
}

// The proxy of https_proxy (else http_proxy); an empty name: none set, WinHTTP's system setting.
WinHttpProxy proxy_from_environment() {
  auto value = proxy_env("HTTPS_PROXY", "https_proxy");
  if (value.empty()) value = proxy_env("HTTP_PROXY", "http_proxy");
  return winhttp_proxy(value);
}

HINTERNET open_session(const WinHttpProxy& proxy) {
  if (!proxy.name.empty()) {
    auto name = win32::widen(proxy.name);
    auto bypass = win32::widen(proxy_env("NO_PROXY", "no_proxy"));
    for (auto& c : bypass)
      if (c == L',') c = L';';
    return WinHttpOpen(L"cudnn-install", WINHTTP_ACCESS_TYPE_NAMED_PROXY, name.c_str(),
                       bypass.empty() ? WINHTTP_NO_PROXY_BYPASS : bypass.c_str(), 0);
  }
  if (HINTERNET h = WinHttpOpen(L"cudnn-install", WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY, WINHTTP_NO_PROXY_NAME,
                                WINHTTP_NO_PROXY_BYPASS, 0))
    return h;
  return WinHttpOpen(L"cudnn-install", WINHTTP_ACCESS_TYPE_DEFAULT_PROXY, WINHTTP_NO_PROXY_NAME,
                     WINHTTP_NO_PROXY_BYPASS, 0);  // before Windows 8.1
}

DWORD status_of(HINTERNET request) {
  DWORD status = 0, size = sizeof status;
  WinHttpQueryHeaders(request, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER, WINHTTP_HEADER_NAME_BY_INDEX,
                      &status, &size, WINHTTP_NO_HEADER_INDEX);
  return status;
}

// After a 407: the proxy's first offered scheme with the variable's user and password, for the
// request to be sent again. Without credentials in the variable the 407 is the answer.
bool give_proxy_credentials(HINTERNET request, const WinHttpProxy& proxy) {
  DWORD supported = 0, first = 0, target = 0;
  if (proxy.user.empty() || !WinHttpQueryAuthSchemes(request, &supported, &first, &target)) return false;
  auto user = win32::widen(proxy.user), password = win32::widen(proxy.password);
  return WinHttpSetCredentials(request, WINHTTP_AUTH_TARGET_PROXY, first, user.c_str(), password.c_str(), nullptr);
}

std::unexpected<Error> network_error(const std::string& url, const char* what) {
  return fail(ErrorCode::Network,
              url + ": " + what + ": " + win32::error_text(GetLastError()) +
                  ". Check the network, the proxy (https_proxy or the system setting) or the --mirror address, and try "
                  "again.",
              url);
}

// The send failed because the server's certificate is not trusted (a new connection will not mend it).
bool certificate_refused(DWORD error) {
  switch (error) {
    case ERROR_WINHTTP_SECURE_FAILURE:
    case ERROR_WINHTTP_SECURE_INVALID_CA:
    case ERROR_WINHTTP_SECURE_CERT_CN_INVALID:
    case ERROR_WINHTTP_SECURE_CERT_DATE_INVALID:
    case ERROR_WINHTTP_SECURE_INVALID_CERT:
    case ERROR_WINHTTP_SECURE_CERT_REVOKED:
      return true;
    default:
      return false;
  }
}

std::unexpected<Error> send_failure(const std::string& url, const char* what) {
  DWORD error = GetLastError();
  if (certificate_refused(error)) return untrusted_server(url, win32::error_text(error));
  // Wine reports a refused certificate as this; on Windows it also means no TLS version was agreed.
  if (error == ERROR_WINHTTP_SECURE_CHANNEL_ERROR)
    return untrusted_server(url, "or no TLS version was agreed: WinHTTP error 12157, a secure channel error");
  SetLastError(error);
  return network_error(url, what);
}

std::string header(HINTERNET request, DWORD which) {
  DWORD bytes = 0;
  WinHttpQueryHeaders(request, which, WINHTTP_HEADER_NAME_BY_INDEX, nullptr, &bytes, WINHTTP_NO_HEADER_INDEX);
  if (GetLastError() != ERROR_INSUFFICIENT_BUFFER || bytes == 0) return {};
  std::wstring value(bytes / sizeof(wchar_t), L'\0');
  if (!WinHttpQueryHeaders(request, which, WINHTTP_HEADER_NAME_BY_INDEX, value.data(), &bytes, WINHTTP_NO_HEADER_INDEX))
    return {};
  value.resize(bytes / sizeof(wchar_t));
  return win32::narrow(value);
}

std::wstring request_headers(const HttpRequest& request) {
  std::string text;
  if (request.range_from > 0) text += "Range: bytes=" + std::to_string(request.range_from) + "-\r\n";
  if (!request.if_none_match.empty()) text += "If-None-Match: " + request.if_none_match + "\r\n";
  if (!request.if_modified_since.empty()) text += "If-Modified-Since: " + request.if_modified_since + "\r\n";
  return win32::widen(text);
}

Result<HttpResponse> read_response(HINTERNET request, const std::string& url, const HttpBodySink& body) {
  HttpResponse response;
  DWORD status = status_of(request);
  if (status == 0) return network_error(url, "no status");
  response.status = static_cast<int>(status);
  response.etag = header(request, WINHTTP_QUERY_ETAG);
  response.last_modified = header(request, WINHTTP_QUERY_LAST_MODIFIED);
  response.content_length = util::leading_uint64(header(request, WINHTTP_QUERY_CONTENT_LENGTH));  // none: unknown
  if (status < 200 || status >= 300) return response;
  std::vector<char> buffer(1 << 16);
  std::uint64_t received = 0;
  for (;;) {
    DWORD read = 0;
    if (!WinHttpReadData(request, buffer.data(), static_cast<DWORD>(buffer.size()), &read))
      return network_error(url, "the connection dropped");
    if (read == 0) break;
    received += read;
    if (auto r = body(static_cast<int>(status), std::span<const char>(buffer.data(), read)); !r)
      return std::unexpected(r.error());
  }
  if (response.content_length && received < *response.content_length)
    return fail(ErrorCode::Network,
                url + ": the connection dropped after " + std::to_string(received) + " of " +
                    std::to_string(*response.content_length) + " bytes",
                url);
  return response;
}

class WinHttpClient final : public HttpClient {
 public:
  Result<HttpResponse> get(const HttpRequest& request, const HttpBodySink& body) override {
    auto wide_url = win32::widen(request.url);
    URL_COMPONENTS parts{};
    parts.dwStructSize = sizeof parts;
    parts.dwHostNameLength = parts.dwUrlPathLength = parts.dwExtraInfoLength = static_cast<DWORD>(-1);
    if (!WinHttpCrackUrl(wide_url.c_str(), 0, 0, &parts)) return network_error(request.url, "not a valid URL");
    std::wstring host(parts.lpszHostName, parts.dwHostNameLength);
    std::wstring path(parts.lpszUrlPath, parts.dwUrlPathLength + parts.dwExtraInfoLength);
    WinHttpProxy proxy = proxy_from_environment();
    Internet session(open_session(proxy));
    if (!session.h) return network_error(request.url, "WinHTTP cannot start");
    WinHttpSetTimeouts(session.h, 0, 30000, 60000, 60000);
    Internet connection(WinHttpConnect(session.h, host.c_str(), parts.nPort, 0));
    if (!connection.h) return network_error(request.url, "cannot connect");
    DWORD flags = parts.nScheme == INTERNET_SCHEME_HTTPS ? WINHTTP_FLAG_SECURE : 0;
    Internet handle(WinHttpOpenRequest(connection.h, L"GET", path.empty() ? L"/" : path.c_str(), nullptr,
                                       WINHTTP_NO_REFERER, WINHTTP_DEFAULT_ACCEPT_TYPES, flags));
    if (!handle.h) return network_error(request.url, "cannot open the request");
    auto headers = request_headers(request);
    if (!send(handle.h, headers)) return send_failure(request.url, "no answer");
    if (status_of(handle.h) == 407 && give_proxy_credentials(handle.h, proxy) && !send(handle.h, headers))
      return send_failure(request.url, "no answer after the proxy's credentials");
    return read_response(handle.h, request.url, body);
  }

 private:
  static bool send(HINTERNET request, const std::wstring& headers) {
    return WinHttpSendRequest(request, headers.empty() ? WINHTTP_NO_ADDITIONAL_HEADERS : headers.c_str(),
                              headers.empty() ? 0 : static_cast<DWORD>(-1L), WINHTTP_NO_REQUEST_DATA, 0, 0, 0) &&
           WinHttpReceiveResponse(request, nullptr);
  }
};

}  // namespace

std::unique_ptr<HttpClient> make_http_client() { return std::make_unique<WinHttpClient>(); }

}  // namespace cudnn_install
