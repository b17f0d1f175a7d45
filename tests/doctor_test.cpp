// doctor: each finding reproduced by a fixture.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cudnn_install/doctor.hpp"
#include "cudnn_install/shell_quote.hpp"
#include "support/sandbox.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

const char* kSubs[] = {"adv", "cnn", "engines_precompiled", "engines_runtime_compiled", "graph", "heuristic", "ops"};

// A toolkit with the real cuDNN 9.19 main library and stand-ins for the sub-libraries.
bool healthy_tree(const fs::path& root) {
  fs::path archive = fs::path(REAL_ARCHIVE_DIR) / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  if (!fs::exists(archive)) return false;
  make_linux_toolkit(root, 13000);
  std::string out;
  run_command(std::string(CLI_PATH) + " --yes -q --no-verify --loader-config=none --cuda-root " + root.string() + " " +
                  archive_args(archive),
              &out);
  for (const char* s : kSubs)
    if (!fs::exists(root / "lib" / (std::string("libcudnn_") + s + ".so.9")))
      write_file(root / "lib" / (std::string("libcudnn_") + s + ".so.9"), "stand-in");
  return true;
}

nlohmann::json doctor(const fs::path& root, int* rc, const std::string& env = "") {
  std::string out;
  *rc = run_command(env + std::string(CLI_PATH) + " doctor --json --cuda-root " + root.string() + " 2>/dev/null", &out);
  return nlohmann::json::parse(out, nullptr, false);
}

const nlohmann::json* finding(const nlohmann::json& j, const std::string& check) {
  for (const auto& f : j["findings"])
    if (f["check"] == check) return &f;
  return nullptr;
}

}  // namespace

TEST(Doctor, DriverOlderThanTheToolkitNeeds) {
  DoctorInputs in;
  in.toolkit.root = "/usr/local/cuda-13.0";
  in.toolkit.version = {13, 0, std::nullopt};
  ProbeResult probe;
  probe.load = ProbeResult::Load::Loaded;
  probe.gpu = ProbeResult::Gpu::Used;
  probe.driver_version = 12040;
  in.verify.runtime = probe;
  auto findings = run_doctor(in);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].check, "driver");
  EXPECT_EQ(findings[0].severity, Severity::Error);
  EXPECT_NE(findings[0].summary.find("supports CUDA 12.4"), std::string::npos);
  EXPECT_NE(findings[0].fix.find("580.65.06"), std::string::npos);
  EXPECT_EQ(minimum_linux_driver(12), "525.60.13");
  EXPECT_FALSE(minimum_linux_driver(14));
  in.toolkit.os = TargetOs::Windows;  // the fix names the Windows minimum for a Windows toolkit
  in.toolkit.version = {12, 4, std::nullopt};
  in.verify.runtime->driver_version = 11080;
  EXPECT_NE(run_doctor(in)[0].fix.find("527.41"), std::string::npos) << run_doctor(in)[0].fix;
}

TEST(Doctor, NoDriverWithoutDetailPrintsNoEmptyEvidenceLine) {
  DoctorInputs in;
  in.toolkit.root = "/usr/local/cuda-13.0";
  ProbeResult probe;
  probe.load = ProbeResult::Load::Loaded;
  probe.gpu = ProbeResult::Gpu::NoDriver;
  in.verify.runtime = probe;
  auto findings = run_doctor(in);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].check, "driver");
  EXPECT_TRUE(findings[0].evidence.empty());
  EXPECT_EQ(render_doctor_text(findings, in.toolkit, [](const auto&) { return ""; }).find("\n         \n"),
            std::string::npos);
  in.verify.runtime->gpu_detail = "cuInit: CUDA_ERROR_NO_DEVICE";
  EXPECT_EQ(run_doctor(in)[0].evidence, std::vector<std::string>{"cuInit: CUDA_ERROR_NO_DEVICE"});
}

TEST(Doctor, AHealthyTreeHasNoProblems) {
  TempDir dir;
  if (!healthy_tree(dir.path())) GTEST_SKIP() << "no real cuDNN on this machine";
  write_file(fs::path(getenv("CUDNN_INSTALL_ETC")) / "ld.so.conf.d/cuda.conf",
             fs::canonical(dir.path() / "lib").string());
  int rc = 0;
  auto j = doctor(dir.path(), &rc);
  EXPECT_EQ(rc, 0) << j.dump(2);
  for (const auto& f : j["findings"]) EXPECT_NE(f["severity"], "error") << f.dump();
  EXPECT_FALSE(finding(j, "loader"));
  ASSERT_TRUE(finding(j, "build"));
}

TEST(Doctor, EachProblemIsFoundWithItsFix) {
  TempDir dir;
  fs::path root = dir.path() / "cuda-\xc3\xa9";  // non-ASCII
  if (!healthy_tree(root)) GTEST_SKIP() << "no real cuDNN on this machine";
  fs::remove(root / "lib/libcudnn_ops.so.9");                // missing sub-library
  fs::remove(root / "lib/libcudnn.so");                      // no -lcudnn link
  write_file(root / "lib/libcudnn_ops_infer.so.8", "v8");    // another major beside
  write_file(dir.path() / "other/libcudnn.so.9", "shadow");  // found first through LD_LIBRARY_PATH
  int rc = 0;
  auto j = doctor(root, &rc, "LD_LIBRARY_PATH=" + (dir.path() / "other").string() + " ");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(rc, 5);
  for (const char* check : {"missing-sublibrary", "shadowing", "loader", "non-ascii-path", "build", "other-major"})
    EXPECT_TRUE(finding(j, check)) << check << " not reported:\n" << j.dump(2);
  EXPECT_NE((*finding(j, "missing-sublibrary"))["summary"].get<std::string>().find("libcudnn_ops.so.9"),
            std::string::npos);
  EXPECT_NE((*finding(j, "loader"))["fix"].get<std::string>().find("--loader-config=system"), std::string::npos);
}

TEST(Doctor, MixedVersionsInOneTree) {
  TempDir dir;
  if (!healthy_tree(dir.path())) GTEST_SKIP() << "no real cuDNN on this machine";
  fs::remove(dir.path() / "lib/libcudnn_graph.so.9");
  write_file(dir.path() / "lib/libcudnn_graph.so.9.1.0", "old");
  fs::create_symlink("libcudnn_graph.so.9.1.0", dir.path() / "lib/libcudnn_graph.so.9");
  int rc = 0;
  auto j = doctor(dir.path(), &rc);
  EXPECT_EQ(rc, 5);
  ASSERT_TRUE(finding(j, "mixed-versions")) << j.dump(2);
  // The fix names this toolkit: a bare `cudnn-install uninstall` would pick CUDA_PATH's or none.
  EXPECT_EQ((*finding(j, "mixed-versions"))["command"],
            nlohmann::json({"uninstall", "--force", "--cuda-root", dir.path().string()}));
  std::string text;
  run_command(std::string(CLI_PATH) + " doctor --cuda-root " + dir.path().string(), &text);
  EXPECT_NE(text.find("  run:   " + std::string(CLI_PATH) + " uninstall --force --cuda-root "), std::string::npos)
      << text;
}

TEST(Doctor, NvidiaSmiDriverVersionAgainstTheMinimum) {
  EXPECT_TRUE(driver_older_than("575.51.03", "580.65.06"));
  EXPECT_FALSE(driver_older_than("580.65.06", "580.65.06"));
  EXPECT_FALSE(driver_older_than("580.95.05", "580.65.06"));
  EXPECT_TRUE(driver_older_than("527.9", "527.41"));
  DoctorInputs in;
  in.toolkit.root = "/usr/local/cuda-13.0";
  in.toolkit.version = {13, 0, std::nullopt};
  in.smi_driver = "575.51.03";
  auto findings = run_doctor(in);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].check, "driver");
  EXPECT_EQ(findings[0].severity, Severity::Error);
  EXPECT_NE(findings[0].summary.find("575.51.03 is older than CUDA 13 needs (>= 580.65.06)"), std::string::npos);
  EXPECT_EQ(findings[0].evidence[0], "nvidia-smi: driver_version = 575.51.03");
  in.smi_driver = "580.95.05";
  for (const auto& f : run_doctor(in)) EXPECT_NE(f.check, "driver") << f.summary;
  in.toolkit.os = TargetOs::Windows;  // NVIDIA no longer publishes the Windows minimum for CUDA 13
  bool said_unknown = false;
  for (const auto& f : run_doctor(in))
    said_unknown |=
        f.check == "driver" && f.severity == Severity::Info && f.summary.find("not published") != std::string::npos;
  EXPECT_TRUE(said_unknown);
  in.toolkit.version = {12, 4, std::nullopt};
  in.smi_driver = "526.98";
  EXPECT_NE(run_doctor(in)[0].summary.find("older than CUDA 12 needs (>= 527.41)"), std::string::npos);
}

// The gathering too: an nvidia-smi on PATH that reports an old driver.
TEST(Doctor, AnOldDriverReportedByNvidiaSmiOnPath) {
  TempDir dir;
  if (!healthy_tree(dir.path() / "cuda")) GTEST_SKIP() << "no real cuDNN on this machine";
  write_file(dir.path() / "bin/nvidia-smi", "#!/bin/sh\necho 575.51.03\n");
  fs::permissions(dir.path() / "bin/nvidia-smi", fs::perms(0755));
  int rc = 0;
  auto j = doctor(dir.path() / "cuda", &rc, "PATH=" + (dir.path() / "bin").string() + ":$PATH ");
  const auto* f = finding(j, "driver");
  ASSERT_TRUE(f) << j.dump(2);
  EXPECT_EQ((*f)["severity"], "error");
  EXPECT_EQ(rc, 5);
  EXPECT_NE((*f)["summary"].get<std::string>().find("575.51.03"), std::string::npos) << j.dump(2);
}

namespace {

// Answers nvidia-smi with a driver version and refuses every other program (the probe child).
class ScriptedRunner final : public ProcessRunner {
 public:
  std::vector<std::vector<std::string>> ran;
  Result<ProcessOutput> run(const std::vector<std::string>& argv, const RunOptions&) override {
    ran.push_back(argv);
    if (argv.at(0) != "nvidia-smi") return fail(ErrorCode::Io, "cannot start " + argv.at(0));
    ProcessOutput out;
    out.out = "575.51.03 \r\n";
    return out;
  }
};

}  // namespace

// The library's diagnose gathers through its services: the probe child and nvidia-smi through the
// runner, the Python environment from its function.
TEST(Doctor, DiagnoseGathersThroughItsServices) {
  TempDir dir;
  if (!healthy_tree(dir.path() / "cuda")) GTEST_SKIP() << "no real cuDNN on this machine";
  ToolkitSearch search;
  auto toolkit = probe_toolkit(dir.path() / "cuda", "--cuda-root", search);
  ASSERT_TRUE(toolkit) << toolkit.error().message;
  ScriptedRunner runner;
  DoctorServices services{runner};
  services.probe_command = {"probe-child"};
  int asked_python = 0;
  services.python_environment = [&] {
    ++asked_python;
    return PythonEnvironment{};
  };
  auto findings = diagnose(*toolkit, services);
  ASSERT_TRUE(findings) << findings.error().message;
  EXPECT_EQ(asked_python, 1);
  bool probed = false, driver = false;
  for (const auto& argv : runner.ran) probed |= argv.at(0) == "probe-child";
  EXPECT_TRUE(probed);
  for (const auto& f : *findings)
    driver |= f.check == "driver" && f.severity == Severity::Error &&
              f.evidence.at(0) == "nvidia-smi: driver_version = 575.51.03";
  EXPECT_TRUE(driver) << "nvidia-smi's first line, trimmed, is the driver version";
}

// ---- check 6: the CUDA major of cuDNN, the toolkit, PyTorch and TensorFlow ----

namespace {

DoctorInputs cuda13_inputs(long cudart_version) {
  DoctorInputs in;
  in.toolkit.root = "/usr/local/cuda-13.0";
  in.toolkit.version = {13, 0, std::nullopt};
  in.verify.header_version = "9.19.0";
  ProbeResult probe;
  probe.load = ProbeResult::Load::Loaded;
  probe.cudart_version = cudart_version;
  in.verify.runtime = probe;
  return in;
}

std::vector<Finding> cuda_major_findings(const DoctorInputs& in) {
  std::vector<Finding> found;
  for (auto& f : run_doctor(in))
    if (f.check == "cuda-major") found.push_back(f);
  return found;
}

}  // namespace

TEST(Doctor, CudnnBuiltForAnotherCudaMajorThanTheToolkit) {
  auto found = cuda_major_findings(cuda13_inputs(12080));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::Error);
  EXPECT_NE(found[0].summary.find("built for CUDA 12 but the toolkit is CUDA 13.0"), std::string::npos);
  EXPECT_NE(found[0].fix.find("_cuda13"), std::string::npos);
  EXPECT_TRUE(cuda_major_findings(cuda13_inputs(13000)).empty());
}

TEST(Doctor, PytorchAndTensorflowOfAnotherCudaMajorOrCudnnMajor) {
  auto in = cuda13_inputs(13000);
  in.frameworks = {{"PyTorch", "2.5.1+cu124", "12.4", std::nullopt, "/venv/torch"},
                   {"TensorFlow", "2.15.0", "13.0", 8, "/venv/tensorflow"}};
  auto found = cuda_major_findings(in);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].severity, Severity::Warning);
  EXPECT_NE(found[0].summary.find("PyTorch 2.5.1+cu124 is built for CUDA 12.4, this cuDNN for CUDA 13"),
            std::string::npos);
  EXPECT_NE(found[0].fix.find("whl/cu130"), std::string::npos);
  EXPECT_EQ(found[0].evidence, std::vector<std::string>{"/venv/torch"});
  EXPECT_NE(found[1].summary.find("built against cuDNN 8, this is cuDNN 9.19.0"), std::string::npos);

  in.frameworks = {{"PyTorch", "2.9.0+cu130", "13.0", std::nullopt, "/venv/torch"},
                   {"PyTorch", "2.9.0+cpu", "", std::nullopt, "/other/torch"}};
  found = cuda_major_findings(in);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].severity, Severity::Info);
  EXPECT_NE(found[0].summary.find("as this cuDNN is"), std::string::npos);
  EXPECT_NE(found[1].summary.find("CPU-only"), std::string::npos);
}

// The whole path: the real cuDNN's cudnnGetCudartVersion, and a PyTorch for CUDA 12 in a virtualenv.
TEST(Doctor, APytorchForAnotherCudaInTheActiveVirtualenv) {
  TempDir dir;
  if (!healthy_tree(dir.path() / "cuda")) GTEST_SKIP() << "no real cuDNN on this machine";
  write_file(dir.path() / "venv/lib/python3.11/site-packages/torch/version.py",
             "__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\n");
  int rc = 0;
  auto j = doctor(dir.path() / "cuda", &rc, "VIRTUAL_ENV=" + (dir.path() / "venv").string() + " ");
  const auto* f = finding(j, "cuda-major");
  ASSERT_TRUE(f) << j.dump(2);
  EXPECT_EQ((*f)["severity"], "warning");
  EXPECT_NE(
      (*f)["summary"].get<std::string>().find("PyTorch 2.5.1+cu124 is built for CUDA 12.4, this cuDNN for CUDA 13"),
      std::string::npos)
      << j.dump(2);
}

// ---- the Windows checks, on injected evidence ----

namespace {

DoctorInputs windows_inputs(const std::string& cudnn) {
  DoctorInputs in;
  in.toolkit.root = "C:/CUDA/v12.4";
  in.toolkit.os = TargetOs::Windows;
  in.toolkit.bin_dir = "bin";
  in.verify.header_version = cudnn;
  in.windows = WindowsEvidence{};
  in.windows->system_path = make_value(kRegExpandSz, u"%SystemRoot%\\system32;%SystemRoot%");
  return in;
}

// A copy: the findings are usually a temporary.
std::optional<Finding> find(const std::vector<Finding>& findings, const std::string& check,
                            const std::string& text = "") {
  for (const auto& f : findings)
    if (f.check == check && f.summary.find(text) != std::string::npos) return f;
  return std::nullopt;
}

}  // namespace

TEST(DoctorWindows, ZlibwapiIsNeededFrom83To89AndUnclearFor90And91) {
  for (auto [version, severity] : {std::pair<std::string, std::optional<Severity>>{"8.9.5", Severity::Error},
                                   {"8.3.2", Severity::Error},
                                   {"8.2.2", std::nullopt},
                                   {"9.1.0", Severity::Info},
                                   {"9.2.0", std::nullopt},
                                   {"9.19.0", std::nullopt}}) {
    auto in = windows_inputs(version);
    in.windows->zlibwapi_found = false;
    auto f = find(windows_findings(in), "zlibwapi");
    ASSERT_EQ(f.has_value(), severity.has_value()) << version;
    if (f) {
      EXPECT_EQ(f->severity, *severity) << version;
    }
    in.windows->zlibwapi_found = true;
    EXPECT_FALSE(find(windows_findings(in), "zlibwapi")) << version;
  }
}

TEST(DoctorWindows, PathProblems) {
  auto in = windows_inputs("9.19.0");
  EXPECT_TRUE(windows_findings(in).empty());
  in.windows->user_path = make_value(kRegExpandSz, std::u16string(1024, u'x'));
  EXPECT_TRUE(find(windows_findings(in), "path", "cut off by setx"));
  in.windows->user_path = make_value(kRegSz, u"%USERPROFILE%\\bin;C:\\Tools");
  EXPECT_TRUE(find(windows_findings(in), "path", "REG_SZ"));
  in.windows->system_path = make_value(kRegExpandSz, u"C:\\Tools;C:\\Python");
  auto lost = find(windows_findings(in), "path", "lacks %SystemRoot%");
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->severity, Severity::Error);
  in.windows->system_path = make_value(kRegExpandSz, std::u16string(kMaxPathChars + 1, u'x'));
  EXPECT_TRUE(find(windows_findings(in), "path", "32767"));
  in.loader_searches_lib = false;
  EXPECT_TRUE(find(windows_findings(in), "path", "is not on PATH"));
}

TEST(DoctorWindows, PythonAndTheVisualCppRuntime) {
  auto in = windows_inputs("9.19.0");
  in.windows->pythons = {"C:/Python312/python.exe"};
  auto py = find(windows_findings(in), "python-dll-search");
  ASSERT_TRUE(py);
  EXPECT_NE(py->fix.find("os.add_dll_directory(r\"C:/CUDA/v12.4"), std::string::npos) << py->fix;
  in.windows->missing_runtime = {"C:/Windows/System32/vcruntime140.dll"};
  auto vc = find(windows_findings(in), "vc-runtime");
  ASSERT_TRUE(vc);
  EXPECT_EQ(vc->severity, Severity::Error);
}

// Issue 19: the last line counts warnings and errors; "no problems found." only without either.
TEST(Doctor, TheSummaryCountsWarningsAndErrors) {
  auto of = [](std::vector<Severity> severities) {
    std::vector<Finding> findings;
    for (auto s : severities) findings.push_back({"x", s, "s", {}, "f"});
    return doctor_summary(findings);
  };
  EXPECT_EQ(of({}), "no problems found.");
  EXPECT_EQ(of({Severity::Info, Severity::Info}), "no problems found.");
  EXPECT_EQ(of({Severity::Warning, Severity::Info}), "no errors, 1 warning: see the fixes above.");
  EXPECT_EQ(of({Severity::Warning, Severity::Warning}), "no errors, 2 warnings: see the fixes above.");
  EXPECT_EQ(of({Severity::Error, Severity::Warning}), "1 error, 1 warning: see the fixes above.");
  EXPECT_EQ(of({Severity::Error, Severity::Error}), "2 errors, no warnings: see the fixes above.");
  Toolkit tk;
  tk.root = "/usr/local/cuda-13.0";
  auto paste = [](const std::vector<std::string>& args) {
    std::string line = "PROGRAM";
    for (const auto& a : args) line += (line == "PROGRAM" ? " " : "|") + a;
    return line;
  };
  std::string text = render_doctor_text({{"shadowing", Severity::Warning, "s", {}, "f"}}, tk, paste);
  EXPECT_TRUE(text.ends_with("\nno errors, 1 warning: see the fixes above.\n")) << text;
  EXPECT_EQ(text.find("run:"), std::string::npos) << text;
  text = render_doctor_text({{"load", Severity::Error, "s", {}, "f", {"verify", "--cuda-root", "C:\\CUDA 13"}}}, tk,
                            paste);
  EXPECT_NE(text.find("  fix:   f\n  run:   PROGRAM verify|--cuda-root|C:\\CUDA 13\n"), std::string::npos) << text;
}

// Issue 19: pip's nvidia-cudnn wheel is the copy pip's PyTorch loads by design: information, and
// never the advice to remove it.
TEST(Doctor, APipWheelsCudnnIsInformationNotShadowing) {
  DoctorInputs in;
  in.toolkit.root = "/usr/local/cuda-13.0";
  in.toolkit.lib_dir = "lib";
  in.toolkit.version = {13, 0, std::nullopt};
  Shadow wheel{"/venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "9.10.2",
               "virtualenv (pip nvidia-cudnn wheel)", true};
  Shadow other{"/opt/old/libcudnn.so.9", "9.1.0", "LD_LIBRARY_PATH", false};
  in.shadows = {wheel, other};
  auto findings = run_doctor(in);
  int wheels = 0, shadows = 0;
  for (const auto& f : findings) {
    if (f.check == "pip-wheel") {
      ++wheels;
      EXPECT_EQ(f.severity, Severity::Info);
      EXPECT_EQ(f.evidence[0], wheel.path);
      EXPECT_EQ(f.fix.find("remove that copy"), std::string::npos) << f.fix;
      EXPECT_NE(f.fix.find("nothing to do"), std::string::npos) << f.fix;
    }
    if (f.check == "shadowing") {
      ++shadows;
      EXPECT_NE(f.summary.find("/opt/old/libcudnn.so.9"), std::string::npos) << f.summary;
    }
  }
  EXPECT_EQ(wheels, 1);
  EXPECT_EQ(shadows, 1);
}

// Issue 19: one set of rules for the plan, verify and doctor; each fix names the file, where it
// comes from and the directory it goes into.
TEST(WindowsRuntime, TheFixSaysWhichFileFromWhereIntoWhichDirectory) {
  WindowsRuntimeEvidence none{false, {}};
  auto needs = windows_runtime_needs(8, 9, "C:/CUDA/v12.4/bin", none);
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].check, "zlibwapi");
  EXPECT_TRUE(needs[0].required);
  EXPECT_NE(needs[0].fix.find("zlib123dllx64.zip (http://www.winimage.com/zLibDll/zlib123dllx64.zip"),
            std::string::npos)
      << needs[0].fix;
  EXPECT_NE(needs[0].fix.find("zlibwapi.dll out of its dll_x64 folder and copy it into C:/CUDA/v12.4/bin"),
            std::string::npos)
      << needs[0].fix;
  EXPECT_TRUE(windows_runtime_needs(8, 9, "C:/CUDA/v12.4/bin", WindowsRuntimeEvidence{true, {}}).empty());
  EXPECT_TRUE(windows_runtime_needs(8, 2, "bin", none).empty());  // zlib linked statically
  EXPECT_TRUE(windows_runtime_needs(9, 2, "bin", none).empty());
  auto unclear = windows_runtime_needs(9, 0, "bin", none);
  ASSERT_EQ(unclear.size(), 1u);
  EXPECT_FALSE(unclear[0].required);
  auto vc = windows_runtime_needs(9, 19, "bin", WindowsRuntimeEvidence{true, {"C:/Windows/System32/msvcp140.dll"}});
  ASSERT_EQ(vc.size(), 1u);
  EXPECT_EQ(vc[0].check, "vc-runtime");
  EXPECT_NE(vc[0].fix.find("vc_redist.x64.exe"), std::string::npos) << vc[0].fix;
  // doctor says the same.
  auto in = windows_inputs("8.9.5");
  in.windows->zlibwapi_found = false;
  auto f = find(windows_findings(in), "zlibwapi");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->fix, windows_runtime_needs(8, 9, fs::path("C:/CUDA/v12.4") / "bin", none)[0].fix);
}

TEST(Doctor, TheBuildVariablesArePasteReadyForTheToolkitsShell) {
  DoctorInputs in;
  in.toolkit.root = "/opt/CUDA Ünï v13.0";
  in.toolkit.os = TargetOs::Linux;
  in.toolkit.include_dir = "include";
  in.toolkit.lib_dir = "lib64";
  auto build = find(run_doctor(in), "build", "what a build needs");
  ASSERT_TRUE(build);
  EXPECT_EQ(build->evidence.at(0), "export CUDNN_PATH='/opt/CUDA Ünï v13.0'");
  EXPECT_EQ(build->evidence.at(2), "export CUDNN_LIBRARY_DIR='/opt/CUDA Ünï v13.0/lib64'");
  EXPECT_EQ(build->evidence.at(3), "cmake option: '-DCUDNN_ROOT=/opt/CUDA Ünï v13.0'");
  in.toolkit.root = "C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4";
  in.toolkit.os = TargetOs::Windows;
  build = find(run_doctor(in), "build", "what a build needs");
  ASSERT_TRUE(build);
  EXPECT_EQ(build->evidence.at(0), "$env:CUDNN_PATH = '" + in.toolkit.root.string() + "'");
  EXPECT_NE(build->fix.find("PowerShell"), std::string::npos);
  // cmd's forms follow: single quotes group nothing there.
  ASSERT_EQ(build->evidence.size(), 8u);
  EXPECT_EQ(build->evidence.at(4), set_variable_line("CUDNN_PATH", in.toolkit.root.string(), Shell::Cmd));
  EXPECT_EQ(build->evidence.at(7), "cmake option in cmd: \"-DCUDNN_ROOT=" + in.toolkit.root.string() + "\"");
  EXPECT_NE(build->fix.find("into cmd"), std::string::npos);
}
