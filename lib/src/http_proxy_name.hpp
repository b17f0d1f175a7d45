// The proxy from the environment (http_proxy, https_proxy) as WinHTTP takes it: a named proxy and,
// apart, the credentials. WinHTTP's form is [scheme=][scheme://]host[:port], but Wine's WinHTTP reads
// "http://host:port" as a host named "http", and the variables are usually written as URLs
// ("http://user:secret@proxy:3128/"). So the name passed on is host[:port]: an http:// scheme, any
// user:password@ (given to WinHTTP when the proxy answers 407) and any path are dropped. Pure, so
// that its unit test runs on every platform.
#pragma once
#include <string>
#include <string_view>

namespace cudnn_install {

struct WinHttpProxy {
  std::string name;            // host[:port]
  std::string user, password;  // percent-decoded, as curl reads them; empty: none given
};

namespace proxy_detail {

inline int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace proxy_detail

inline WinHttpProxy winhttp_proxy(std::string_view value) {
  constexpr std::string_view kScheme = "http://";
  if (value.size() >= kScheme.size()) {
    std::string head(value.substr(0, kScheme.size()));
    for (auto& c : head) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (head == kScheme) value.remove_prefix(kScheme.size());
  }
  if (auto slash = value.find('/'); slash != std::string_view::npos) value = value.substr(0, slash);
  WinHttpProxy proxy;
  if (auto at = value.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = value.substr(0, at);
    auto colon = userinfo.find(':');
    proxy.user = proxy_detail::percent_decoded(userinfo.substr(0, colon));
    if (colon != std::string_view::npos) proxy.password = proxy_detail::percent_decoded(userinfo.substr(colon + 1));
    value.remove_prefix(at + 1);
  }
  proxy.name = std::string(value);
  return proxy;
}

}  // namespace cudnn_install
