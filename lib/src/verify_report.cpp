#include <fmt/format.h>

#include "cudnn_install/report.hpp"
#include "cudnn_install/verify.hpp"

namespace cudnn_install {
namespace {

const char* load_name(ProbeResult::Load l) {
  switch (l) {
    case ProbeResult::Load::Loaded:
      return "loaded";
    case ProbeResult::Load::NotFound:
      return "not-found";
    case ProbeResult::Load::Failed:
      return "failed";
    case ProbeResult::Load::Crashed:
      return "crashed";
  }
  return "failed";
}

const char* gpu_name(ProbeResult::Gpu g) {
  switch (g) {
    case ProbeResult::Gpu::Used:
      return "used";
    case ProbeResult::Gpu::NoDriver:
      return "no-driver";
    case ProbeResult::Gpu::NoDevice:
      return "no-device";
    case ProbeResult::Gpu::Failed:
      return "failed";
  }
  return "failed";
}

template <class E>
E from_name(const std::string& name, std::initializer_list<E> all, const char* (*to_name)(E)) {
  for (E e : all)
    if (name == to_name(e)) return e;
  return *all.begin();
}

}  // namespace

nlohmann::json probe_to_json(const ProbeResult& r) {
  return {{"load", load_name(r.load)},    {"detail", r.detail},
          {"version", r.version},         {"cudart_version", r.cudart_version},
          {"status_text", r.status_text}, {"gpu", gpu_name(r.gpu)},
          {"gpu_detail", r.gpu_detail},   {"driver_version", r.driver_version}};
}

ProbeResult probe_from_json(const nlohmann::json& j) {
  using L = ProbeResult::Load;
  using G = ProbeResult::Gpu;
  ProbeResult r;
  r.load = from_name<L>(j.value("load", "failed"), {L::Failed, L::Loaded, L::NotFound, L::Crashed}, load_name);
  r.detail = j.value("detail", "");
  r.version = j.value("version", 0L);
  r.cudart_version = j.value("cudart_version", 0L);
  r.status_text = j.value("status_text", "");
  r.gpu = from_name<G>(j.value("gpu", "failed"), {G::Failed, G::Used, G::NoDriver, G::NoDevice}, gpu_name);
  r.gpu_detail = j.value("gpu_detail", "");
  r.driver_version = j.value("driver_version", 0);
  return r;
}

nlohmann::json verify_to_json(const VerifyReport& r) {
  nlohmann::json libs = nlohmann::json::array();
  for (const auto& l : r.libraries)
    libs.push_back({{"name", l.name}, {"path", l.path}, {"present", l.present}, {"version", l.version}});
  nlohmann::json j{{"schema", kJsonSchema},
                   {"kind", "verify"},
                   {"ok", r.ok()},
                   {"toolkit", r.toolkit_root},
                   {"header_version", r.header_version},
                   {"header_number", r.header_number},
                   {"libraries", libs},
                   {"problems", r.problems},
                   {"notes", r.notes}};
  if (r.runtime) j["runtime"] = probe_to_json(*r.runtime);
  return j;
}

std::string render_verify_text(const VerifyReport& r) {
  std::string out = fmt::format("verify   {}\n  header     cudnn_version.h says {} ({})\n", r.toolkit_root,
                                r.header_version, r.header_number);
  for (const auto& l : r.libraries)
    out += fmt::format("  {:<10} {:<42} {}\n", l.present ? "found" : "MISSING", l.name, l.version);
  if (r.runtime) {
    const auto& p = *r.runtime;
    if (p.load == ProbeResult::Load::Loaded)
      out += fmt::format(
          "  runtime    loaded in a child process: cudnnGetVersion() = {}, cudnnGetCudartVersion() = {}, "
          "status 0 = \"{}\"\n",
          p.version, p.cudart_version, p.status_text);
    else
      out += fmt::format("  runtime    {}: {}\n", load_name(p.load), p.detail);
  }
  for (const auto& n : r.notes) out += "  note       " + n + "\n";
  for (const auto& p : r.problems) out += "  PROBLEM    " + p + "\n";
  out += r.ok() ? "verified: the installed cuDNN is complete and consistent.\n" : "verification FAILED.\n";
  return out;
}

}  // namespace cudnn_install
