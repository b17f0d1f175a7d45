// The real binary's diagnosis (issue 19, "Diagnosis that is right"): shadowing that counts the
// tool's own loader entry, a summary that counts warnings, pip's cuDNN wheel as information, and
// advice about processes that fits who runs the tool.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// A toolkit with cuDNN 9.1 under dir/cuda and a sandbox /etc whose ld.so.conf includes
// ld.so.conf.d/*.conf; another libcudnn.so.9 in dir/other, listed by `other_conf`.
struct DiagnosisTree {
  TempDir dir;
  fs::path root = dir.path() / "cuda", etc = dir.path() / "etc";
  std::string env = "CUDNN_INSTALL_ETC=" + etc.string() + " CUDNN_INSTALL_LDCONFIG=true ";
  explicit DiagnosisTree(const std::string& other_conf) {
    make_tree_with_old_cudnn(root);
    write_file(etc / "ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
    write_file(dir.path() / "other/libcudnn.so.9", "another cuDNN");
    write_file(etc / "ld.so.conf.d" / other_conf, (dir.path() / "other").string() + "\n");
  }
  int run(const std::string& args, std::string* out) {
    return run_command(env + cli() + " " + args + " --cuda-root " + root.string() + " </dev/null 2>&1", out);
  }
  nlohmann::json doctor(const std::string& env_before = "") {
    std::string out;
    run_command(env_before + env + cli() + " doctor --json --cuda-root " + root.string() + " 2>/dev/null", &out);
    return nlohmann::json::parse(out, nullptr, false);
  }
};

int findings_of(const nlohmann::json& doctor, const std::string& check) {
  int n = 0;
  for (const auto& f : doctor["findings"]) n += f["check"] == check;
  return n;
}

}  // namespace

// The tool's entry (cudnn-install-....conf) sorts before zz-other.conf: the loader finds the
// toolkit's copy first, so neither the plan, the install nor doctor may call the other a shadow.
TEST(CliDiagnosis, TheToolsOwnLoaderEntryIsCountedWhenLookingForShadows) {
  DiagnosisTree t("zz-other.conf");
  std::string out;
  ASSERT_EQ(t.run("--dry-run --loader-config system " + corpus_args(), &out), 0) << out;
  EXPECT_EQ(out.find("is found before the toolkit's copy"), std::string::npos) << out;
  ASSERT_EQ(t.run("--yes --no-verify --loader-config system " + corpus_args(), &out), 0) << out;
  EXPECT_EQ(out.find("is found before the toolkit's copy"), std::string::npos) << out;
  auto j = t.doctor();
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(findings_of(j, "shadowing"), 0) << j.dump(2);
  EXPECT_EQ(findings_of(j, "loader"), 0) << j.dump(2);  // and the loader does search the toolkit
}

// The same copy listed before the tool's entry does come first: that one is still named.
TEST(CliDiagnosis, ACopyListedBeforeTheToolsEntryIsStillAShadow) {
  DiagnosisTree t("00-other.conf");
  std::string out;
  ASSERT_EQ(t.run("--yes --no-verify --loader-config system " + corpus_args(), &out), 0) << out;
  EXPECT_NE(out.find((t.dir.path() / "other/libcudnn.so.9").string() + " in the ld.so.conf is found before the "
                                                                       "toolkit's copy"),
            std::string::npos)
      << out;
  EXPECT_EQ(findings_of(t.doctor(), "shadowing"), 1);
}

// pip's nvidia-cudnn wheel: the copy pip's PyTorch loads by design. Information, never "remove it".
TEST(CliDiagnosis, PipsCudnnWheelIsInformationNotAShadowToRemove) {
  DiagnosisTree t("zz-other.conf");
  fs::path venv = t.dir.path() / "venv";
  write_file(venv / "lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "the wheel's cuDNN");
  std::string out, env = "VIRTUAL_ENV=" + venv.string() + " ";
  ASSERT_EQ(run_command(env + t.env + cli() + " --yes --no-verify --loader-config system --cuda-root " +
                            t.root.string() + " " + corpus_args() + " </dev/null 2>&1",
                        &out),
            0)
      << out;
  EXPECT_EQ(out.find("warning  " + venv.string()), std::string::npos) << out;
  EXPECT_NE(out.find("note     " + venv.string()), std::string::npos) << out;
  auto j = t.doctor(env);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(findings_of(j, "shadowing"), 0) << j.dump(2);
  ASSERT_EQ(findings_of(j, "pip-wheel"), 1) << j.dump(2);
  for (const auto& f : j["findings"])
    if (f["check"] == "pip-wheel") {
      EXPECT_EQ(f["severity"], "info");
      std::string fix = f["fix"];
      EXPECT_EQ(fix.find("remove that copy"), std::string::npos) << fix;
      EXPECT_NE(fix.find("nothing to do"), std::string::npos) << fix;
    }
}

// doctor's last line counts the warnings it printed: "no problems found." only when there are none.
TEST(CliDiagnosis, DoctorsSummaryCountsTheWarningsItPrinted) {
  fs::path archive = fs::path(REAL_ARCHIVE_DIR) / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  if (!fs::exists(archive)) GTEST_SKIP() << "no real cuDNN on this machine (scripts/make-test-archive.sh made none)";
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_linux_toolkit(root, 13000);
  std::string out, r = " --cuda-root " + root.string();
  ASSERT_EQ(run_command(cli() + " --yes -q --no-verify --loader-config=none" + r + " " + archive_args(archive), &out),
            0)
      << out;
  for (const char* sub : {"adv", "cnn", "engines_precompiled", "engines_runtime_compiled", "graph", "heuristic", "ops"})
    if (!fs::exists(root / "lib" / (std::string("libcudnn_") + sub + ".so.9")))  // the small archive has stand-ins only
      write_file(root / "lib" / (std::string("libcudnn_") + sub + ".so.9"), "stand-in");
  // The loader does not search the toolkit (no entry): a warning, and no error.
  EXPECT_EQ(run_command(cli() + " doctor" + r + " 2>&1", &out), 0) << out;
  EXPECT_NE(out.find("\nwarning  [loader]"), std::string::npos) << out;
  EXPECT_EQ(out.find("no problems found."), std::string::npos) << out;
  EXPECT_NE(out.find("\nno errors, 1 warning: see the fixes above.\n"), std::string::npos) << out;
}

// Issue 19, "Messages that mislead": each says what is really wrong, exits with the table's code
// and writes nothing.
TEST(CliMessages, AZipRenamedTarXzIsCalledAZip) {
  TempDir dir;
  fs::path root = dir.path() / "cuda", renamed = dir.path() / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  make_linux_toolkit(root, 13000);
  fs::copy_file(corpus_archive("cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip"), renamed);
  auto before = snapshot(root);  // the real run takes the lock (the state directory) before reading
  std::string out;
  for (const char* mode : {"--dry-run", "--yes"}) {
    EXPECT_EQ(run_command(cli() + " " + mode + " --cuda-root " + root.string() + " " + renamed.string(), &out), 2)
        << out;
    EXPECT_NE(out.find("is named as an xz-compressed file but is a zip archive: it was renamed"), std::string::npos)
        << out;
    EXPECT_EQ(out.find("corrupt or truncated"), std::string::npos) << out;
  }
  EXPECT_EQ(diff(before, snapshot(root)), "");
}

TEST(CliMessages, AnExtractedFolderOrATrailingSlashIsNamedForWhatItIs) {
  TempDir dir;
  fs::path root = dir.path() / "cuda", folder = dir.path() / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive";
  make_linux_toolkit(root, 13000);
  fs::create_directories(folder / "lib");
  std::string out, r = " --dry-run --cuda-root " + root.string() + " ";
  for (const std::string& given : {folder.string(), folder.string() + "/"}) {
    EXPECT_EQ(run_command(cli() + r + given, &out), 1) << out;
    EXPECT_NE(out.find("is a directory: give the cuDNN archive itself (the .zip or .tar.xz file you downloaded), not "
                       "a folder extracted from it"),
              std::string::npos)
        << out;
  }
  // A file named with a trailing slash is that file, never ''.
  fs::path archive = corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz");
  EXPECT_EQ(run_command(cli() + r + archive_args(archive) + "/", &out), 0) << out;
  EXPECT_EQ(out.find("''"), std::string::npos) << out;
  // Not NVIDIA's name, so the file would be hashed to find which archive it is: it does not exist.
  EXPECT_EQ(run_command(cli() + r + (dir.path() / "nothing-here").string() + "/", &out), 1) << out;
  EXPECT_EQ(out.find("''"), std::string::npos) << out;
  EXPECT_NE(out.find("nothing-here' does not exist"), std::string::npos) << out;
}

TEST(CliMessages, RollbackWithoutDashesSuggestsTheOption) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(run_command("cd " + dir.path().string() + " && " + cli() + " rollback", &out), 1) << out;
  EXPECT_NE(out.find("'rollback' is not a command (nor a file here): to undo the last install, run cudnn-install "
                     "--rollback"),
            std::string::npos)
      << out;
  EXPECT_EQ(run_command("cd " + dir.path().string() + " && " + cli() + " --json rollback", &out), 1) << out;
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["kind"], "error") << out;
  EXPECT_EQ(j["code"], "usage") << out;
}

// Issue 19: the plan and verify check zlibwapi.dll for the archive being installed (Windows cuDNN
// 8.3 to 8.9), say what to do, and the end of the install points to doctor.
TEST(CliDiagnosis, ThePlanAndVerifyOfCudnn89OnWindowsNameZlibwapi) {
  TempDir dir;
  fs::path root = dir.path() / "v12.4";
  make_windows_toolkit(root, "12.4.1", false);
  std::string out, r = " --cuda-root " + root.string() + " ",
                   archive = archive_args(corpus_archive("cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip"));
  std::string fix = "take zlibwapi.dll out of its dll_x64 folder and copy it into " + (root / "bin").string();
  ASSERT_EQ(run_command(cli() + " --dry-run" + r + archive, &out), 0) << out;
  EXPECT_NE(out.find("warning  zlibwapi.dll is missing: cuDNN 8.9 (8.3 to 8.9) needs it on Windows"), std::string::npos)
      << out;
  EXPECT_NE(out.find(fix), std::string::npos) << out;
  ASSERT_EQ(run_command(cli() + " --dry-run --json" + r + archive + " 2>/dev/null", &out), 0) << out;
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  bool warned = false;
  for (const auto& w : j["warnings"]) warned |= w.get<std::string>().find(fix) != std::string::npos;
  EXPECT_TRUE(warned) << out;

  ASSERT_EQ(run_command(cli() + " --yes --no-verify" + r + archive, &out), 0) << out;
  EXPECT_NE(out.find("for the whole setup run: "), std::string::npos) << out;
  EXPECT_NE(out.find(" doctor --cuda-root " + root.string()), std::string::npos) << out;
  EXPECT_EQ(run_command(cli() + " verify" + r, &out), 5) << out;
  EXPECT_NE(out.find("zlibwapi.dll is missing"), std::string::npos) << out;
  EXPECT_NE(out.find(fix), std::string::npos) << out;

  write_file(root / "bin/zlibwapi.dll", "MZ");  // where the fix says
  EXPECT_EQ(run_command(cli() + " verify" + r, &out), 0) << out;
  EXPECT_EQ(out.find("zlibwapi"), std::string::npos) << out;
  ASSERT_EQ(run_command(cli() + " --rollback --yes" + r, &out), 0) << out;
  ASSERT_EQ(run_command(cli() + " --dry-run" + r + archive, &out), 0) << out;
  EXPECT_EQ(out.find("zlibwapi"), std::string::npos) << out;
}
