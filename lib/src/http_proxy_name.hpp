// The proxy from the environment (http_proxy, https_proxy) as WinHTTP's named proxy takes it.
// WinHTTP's form is [scheme=][scheme://]host[:port], but Wine's WinHTTP reads "http://host:port"
// as a host named "http", and the variables are usually written as URLs ("http://proxy:3128/").
// So what is passed on is host[:port]: an http:// scheme and any path are dropped. Pure, so that
// its unit test runs on every platform.
#pragma once
#include <string>
#include <string_view>

namespace cudnn_install {

inline std::string winhttp_proxy_name(std::string_view value) {
  constexpr std::string_view kScheme = "http://";
  if (value.size() >= kScheme.size()) {
    std::string head(value.substr(0, kScheme.size()));
    for (auto& c : head) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (head == kScheme) value.remove_prefix(kScheme.size());
  }
  if (auto slash = value.find('/'); slash != std::string_view::npos) value = value.substr(0, slash);
  return std::string(value);
}

}  // namespace cudnn_install
