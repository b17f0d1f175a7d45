#include <gtest/gtest.h>

#include "cudnn_install/toolkit.hpp"
#include "support/sandbox.hpp"
#include "toolkit_version.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

ToolkitSearch search_with(std::vector<std::pair<std::string, std::string>> env, std::vector<fs::path> defaults = {}) {
  ToolkitSearch s;
  s.environment = std::move(env);
  s.default_dirs = std::move(defaults);
  s.run_nvcc = [](const fs::path&) -> std::optional<std::string> {
    return "Cuda compilation tools, release 12.4, V12.4.131\n";
  };
  return s;
}

}  // namespace

TEST(ToolkitVersion, Parsers) {
  auto json = parse_cuda_version_json(R"({"cuda": {"name": "CUDA SDK", "version": "12.4.1"}, "libcublas": {}})");
  ASSERT_TRUE(json);
  EXPECT_EQ(json->to_string(), "12.4.1");
  EXPECT_FALSE(parse_cuda_version_json("not json"));
  EXPECT_FALSE(parse_cuda_version_json(R"({"cuda": 3})"));
  EXPECT_EQ(parse_cuda_version_txt("CUDA Version 11.0.228\n")->to_string(), "11.0.228");
  EXPECT_EQ(parse_cuda_h("#define CUDA_VERSION 13000\n")->to_string(), "13.0");
  EXPECT_EQ(parse_cuda_h("#define CUDA_VERSION 12040\n")->to_string(), "12.4");
  EXPECT_EQ(parse_nvcc_version("Cuda compilation tools, release 13.0, V13.0.88\n")->to_string(), "13.0.88");
  EXPECT_FALSE(parse_nvcc_version("gcc (Debian) 12"));
}

TEST(Toolkit, ReadsVersionInPriorityOrderAndSaysWhere) {
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  auto tk = probe_toolkit(dir.path(), "--cuda-root", search_with({}));
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->version.to_string(), "13.0");
  EXPECT_EQ(tk->version_source, "include/cuda.h (CUDA_VERSION)");
  write_file(dir.path() / "version.txt", "CUDA Version 13.0.1\n");
  EXPECT_EQ(probe_toolkit(dir.path(), "x", search_with({}))->version_source, "version.txt");
  write_file(dir.path() / "version.json", R"({"cuda": {"version": "13.0.2"}})");
  auto with_json = probe_toolkit(dir.path(), "x", search_with({}));
  EXPECT_EQ(with_json->version_source, "version.json");
  EXPECT_EQ(with_json->version.to_string(), "13.0.2");
}

// cmd passes `--cuda-root "C:\CUDA\v12.4\"` as `C:\CUDA\v12.4"`: the error says which backslash to drop.
TEST(Toolkit, AFolderNameEndingInAQuoteIsExplained) {
  TempDir dir;
  auto quoted = probe_toolkit(dir.path().string() + "\"", "--cuda-root", search_with({}));
  ASSERT_FALSE(quoted);
  EXPECT_NE(quoted.error().message.find("is not a directory: it ends with a double quote"), std::string::npos)
      << quoted.error().message;
  auto gone = probe_toolkit(dir.path() / "gone", "--cuda-root", search_with({}));
  ASSERT_FALSE(gone);
  EXPECT_TRUE(gone.error().message.ends_with("is not a directory")) << gone.error().message;
}

TEST(Toolkit, ItsBinFolderGivenAsTheToolkitNamesTheFolderAbove) {
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  auto bin = probe_toolkit(dir.path() / "lib", "--cuda-root", search_with({}));
  ASSERT_FALSE(bin);
  EXPECT_NE(bin.error().message.find("; the folder above it, '" + dir.path().string() + "', is one: pass that"),
            std::string::npos)
      << bin.error().message;
  auto slash = probe_toolkit(dir.path().string() + "/lib/", "--cuda-root", search_with({}));
  ASSERT_FALSE(slash);
  EXPECT_NE(slash.error().message.find("the folder above it"), std::string::npos) << slash.error().message;
  EXPECT_FALSE(probe_toolkit("/", "--cuda-root", search_with({})));
  fs::create_directories(dir.path() / "lib/stubs");
  auto deeper = probe_toolkit(dir.path() / "lib/stubs", "--cuda-root", search_with({}));
  ASSERT_FALSE(deeper);
  EXPECT_EQ(deeper.error().message.find("folder above"), std::string::npos) << deeper.error().message;
}

TEST(Toolkit, NvccIsTheLastResort) {
  TempDir dir;
  write_file(dir.path() / "bin/nvcc", "#!/bin/sh\n");
  auto tk = probe_toolkit(dir.path(), "x", search_with({}));
  ASSERT_TRUE(tk);
  EXPECT_EQ(tk->version_source, "nvcc --version");
  EXPECT_EQ(tk->version.to_string(), "12.4.131");
}

TEST(Toolkit, PipAssembledTreeWritesIntoRealLibNotTheLib64Link) {
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  auto tk = probe_toolkit(dir.path(), "x", search_with({}));
  ASSERT_TRUE(tk);
  EXPECT_EQ(tk->os, TargetOs::Linux);
  EXPECT_EQ(tk->lib_dir, "lib");
  EXPECT_EQ(tk->include_dir, "include");
}

TEST(Toolkit, TargetsLayoutResolvesIncludeAndLib64Links) {
  TempDir dir;
  write_file(dir.path() / "targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 12040\n");
  fs::create_directories(dir.path() / "targets/x86_64-linux/lib");
  fs::create_directory_symlink("targets/x86_64-linux/include", dir.path() / "include");
  fs::create_directory_symlink("targets/x86_64-linux/lib", dir.path() / "lib64");
  auto tk = probe_toolkit(dir.path(), "x", search_with({}));
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->lib_dir, "targets/x86_64-linux/lib");
  EXPECT_EQ(tk->include_dir, "targets/x86_64-linux/include");
}

TEST(Toolkit, WindowsLayoutPutsDllsWhereCudartLives) {
  TempDir old_tk, new_tk;
  make_windows_toolkit(old_tk.path(), "12.4.1", false);
  make_windows_toolkit(new_tk.path(), "13.1.0", true);
  auto a = probe_toolkit(old_tk.path(), "x", search_with({}));
  auto b = probe_toolkit(new_tk.path(), "x", search_with({}));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->os, TargetOs::Windows);
  EXPECT_EQ(a->bin_dir, "bin");
  EXPECT_EQ(b->bin_dir, "bin/x64");
  EXPECT_EQ(b->import_lib_dir, "lib/x64");
}

TEST(Toolkit, RefusesADirectoryThatIsNotAToolkit) {
  TempDir dir;
  auto tk = probe_toolkit(dir.path(), "--cuda-root", search_with({}));
  ASSERT_FALSE(tk);
  EXPECT_EQ(tk.error().code, ErrorCode::NoToolkit);
  EXPECT_NE(tk.error().message.find("does not look like a CUDA toolkit"), std::string::npos);
}

TEST(Toolkit, FindsEnvironmentPathAndDefaultsWithoutDuplicates) {
  TempDir a, b, c;
  make_linux_toolkit(a.path(), 12040);
  make_linux_toolkit(b.path(), 13000);
  make_linux_toolkit(c.path(), 11080);
  write_file(c.path() / "bin/nvcc", "");
  auto s = search_with({{"CUDA_PATH", a.path().string()},
                        {"CUDA_PATH_V13_0", b.path().string()},
                        {"PATH", "/nonexistent:" + (c.path() / "bin").string()}},
                       {a.path(), fs::path("/nonexistent/cuda")});
  auto all = find_toolkits(s);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].found_by, "CUDA_PATH");
  EXPECT_EQ(all[1].found_by, "CUDA_PATH_V13_0");
  EXPECT_EQ(all[2].found_by, "nvcc on PATH");
}

TEST(Toolkit, ChoosesTheOnlyMatchingMajor) {
  TempDir a, b;
  make_linux_toolkit(a.path(), 12040);
  make_linux_toolkit(b.path(), 13000);
  auto s = search_with({}, {a.path(), b.path()});
  auto tk = choose_toolkit(s, ToolkitPurpose::Install, 13);
  ASSERT_TRUE(tk);
  EXPECT_EQ(tk->root, b.path());
  auto none = choose_toolkit(s, ToolkitPurpose::Install, 11);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::CudaMismatch);
  EXPECT_NE(none.error().message.find("CUDA 12.4"), std::string::npos);
}

TEST(Toolkit, SeveralMatchingToolkitsAskForCudaRoot) {
  TempDir a, b;
  make_linux_toolkit(a.path(), 12040);
  make_linux_toolkit(b.path(), 12080);
  auto tk = choose_toolkit(search_with({}, {a.path(), b.path()}), ToolkitPurpose::Install, 12);
  ASSERT_FALSE(tk);
  EXPECT_EQ(tk.error().code, ErrorCode::NoToolkit);
  EXPECT_NE(tk.error().message.find("--cuda-root"), std::string::npos);
  EXPECT_NE(tk.error().message.find(a.path().string()), std::string::npos);
  EXPECT_NE(tk.error().message.find(b.path().string()), std::string::npos);
}

TEST(Toolkit, NoToolkitAtAllSaysWhereItLooked) {
  auto tk = choose_toolkit(search_with({}, {"/nonexistent"}), ToolkitPurpose::Install, 13);
  ASSERT_FALSE(tk);
  EXPECT_NE(tk.error().message.find("no CUDA toolkit found"), std::string::npos);
}

TEST(Toolkit, DistributionPackageLayoutUsesTheTripletDirectory) {
  TempDir dir;  // like nvidia-cuda-toolkit in /usr
  write_file(dir.path() / "include/cuda.h", "#define CUDA_VERSION 12040\n");
  write_file(dir.path() / "lib/x86_64-linux-gnu/libcudart.so.12", "cudart");
  write_file(dir.path() / "lib/python3/dist-packages/x.py", "");
  auto tk = probe_toolkit(dir.path(), "nvcc on PATH", search_with({}));
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->lib_dir, "lib/x86_64-linux-gnu");
}

TEST(Toolkit, SbsaTargetsLayout) {
  TempDir dir;
  write_file(dir.path() / "targets/sbsa-linux/include/cuda.h", "#define CUDA_VERSION 13000\n");
  write_file(dir.path() / "targets/sbsa-linux/lib/libcudart.so.13", "cudart");
  fs::create_directory_symlink("targets/sbsa-linux/include", dir.path() / "include");
  fs::create_directory_symlink("targets/sbsa-linux/lib", dir.path() / "lib64");
  auto tk = probe_toolkit(dir.path(), "x", search_with({}));
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->lib_dir, "targets/sbsa-linux/lib");
  EXPECT_EQ(tk->include_dir, "targets/sbsa-linux/include");
}

TEST(Toolkit, UsrLocalCudaSymlinkIsFollowedNotReplaced) {
  TempDir dir;
  make_linux_toolkit(dir.path() / "cuda-13.0", 13000);
  fs::create_directory_symlink("cuda-13.0", dir.path() / "cuda");
  auto all = find_toolkits(search_with({}, {dir.path() / "cuda", dir.path() / "cuda-13.0"}));
  ASSERT_EQ(all.size(), 1u);  // the link and its target are one toolkit
  EXPECT_EQ(all[0].root, dir.path() / "cuda");
  EXPECT_EQ(all[0].lib_dir, "lib");
}

// NVIDIA's Linux layout: lib64 -> targets/<cpu>-linux/lib; the targets say which CPUs it serves.
TEST(Toolkit, NvidiaLayoutResolvesLib64IntoTargetsAndNamesTheCpu) {
  TempDir dir;
  write_file(dir.path() / "targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 13000\n");
  fs::create_directories(dir.path() / "targets/x86_64-linux/lib");
  fs::create_directory_symlink("targets/x86_64-linux/include", dir.path() / "include");
  fs::create_directory_symlink("targets/x86_64-linux/lib", dir.path() / "lib64");
  auto tk = probe_toolkit(dir.path(), "--cuda-root", search_with({}));
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->targets, std::vector<std::string>{"x86_64-linux"});
  EXPECT_EQ(tk->lib_dir, fs::path("targets/x86_64-linux/lib"));
}

// Issue 19, "Finding the toolkit": one toolkit found several ways is one candidate; an explicitly
// set CUDA_PATH, then CUDA_HOME, is the choice; a refusal speaks of what the command does.
namespace {

ToolkitSearch search_nvcc_13(std::vector<std::pair<std::string, std::string>> env, std::vector<fs::path> defaults) {
  ToolkitSearch s = search_with(std::move(env), std::move(defaults));
  s.run_nvcc = [](const fs::path&) -> std::optional<std::string> {
    return "Cuda compilation tools, release 13.0, V13.0.88\n";
  };
  return s;
}

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

// The machine of the issue: /usr/local/bin/nvcc a wrapper script, /usr/local/cuda -> cuda-13.0.
TEST(ToolkitChoice, SymlinkAndNvccWrapperAreOneToolkit) {
  TempDir usr_local;
  const fs::path& dir = usr_local.path();
  make_linux_toolkit(dir / "cuda-13.0", 13000);
  write_file(dir / "cuda-13.0/bin/nvcc", "the real nvcc");
  fs::create_directory_symlink("cuda-13.0", dir / "cuda");
  write_file(dir / "bin/nvcc", "#!/bin/sh\nexec " + (dir / "cuda/bin/nvcc").string() + " \"$@\"\n");
  auto s = search_nvcc_13({{"PATH", (dir / "bin").string()}}, {dir / "cuda", dir / "cuda-13.0"});
  auto all = find_toolkits(s);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].root, dir / "cuda");
  EXPECT_EQ(found_by_text(all[0]), "default location (also " + (dir / "cuda-13.0").string() +
                                       ", nvcc on PATH (wrapper " + (dir / "bin/nvcc").string() + "))");
  auto tk = choose_toolkit(s, ToolkitPurpose::Inspect);
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->choice.by, ChosenBy::OnlyOne);
  EXPECT_TRUE(tk->choice.others.empty());
}

// A CUDA_PATH left behind by an uninstalled toolkit is said, not silently passed over.
TEST(ToolkitChoice, AVariableThatNamesNoToolkitIsSaidAndIgnored) {
  TempDir usr_local;
  const fs::path& dir = usr_local.path();
  make_linux_toolkit(dir / "cuda-13.0", 13000);
  fs::create_directories(dir / "empty");
  auto s = search_with({{"CUDA_PATH", (dir / "gone").string()}, {"CUDA_HOME", (dir / "empty").string()}},
                       {dir / "cuda-13.0"});
  auto tk = choose_toolkit(s, ToolkitPurpose::Inspect);
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->root, dir / "cuda-13.0");
  ASSERT_EQ(tk->choice.notes.size(), 2u);
  EXPECT_TRUE(mentions(tk->choice.notes[0], "(CUDA_PATH) is not a directory; CUDA_PATH was ignored"))
      << tk->choice.notes[0];
  EXPECT_TRUE(mentions(tk->choice.notes[1], "(CUDA_HOME) does not look like a CUDA toolkit")) << tk->choice.notes[1];

  s.default_dirs.clear();  // nothing else: the refusal says why the variable did not count
  auto none = choose_toolkit(s, ToolkitPurpose::Inspect);
  ASSERT_FALSE(none);
  EXPECT_TRUE(mentions(none.error().message, "no CUDA toolkit found")) << none.error().message;
  EXPECT_TRUE(mentions(none.error().message, "CUDA_PATH was ignored")) << none.error().message;

  s = search_with({{"CUDA_PATH", (dir / "cuda-13.0").string()}}, {dir / "cuda-13.0"});
  auto good = choose_toolkit(s, ToolkitPurpose::Inspect);
  ASSERT_TRUE(good) << good.error().message;
  EXPECT_TRUE(good->choice.notes.empty());
}

// update-alternatives' way: nvcc on PATH is a symlink into the toolkit, which is found once.
TEST(ToolkitChoice, NvccSymlinkOnPathNamesTheToolkitItLeadsTo) {
  TempDir usr_local;
  const fs::path& dir = usr_local.path();
  make_linux_toolkit(dir / "cuda-13.0", 13000);
  write_file(dir / "cuda-13.0/bin/nvcc", "the real nvcc");
  fs::create_directories(dir / "bin");
  fs::create_symlink("../cuda-13.0/bin/nvcc", dir / "bin/nvcc");
  auto s = search_nvcc_13({{"PATH", (dir / "bin").string()}}, {dir / "cuda-13.0"});
  auto all = find_toolkits(s);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(fs::canonical(all[0].root), fs::canonical(dir / "cuda-13.0"));
  EXPECT_EQ(all[0].found_by, "nvcc on PATH");
  EXPECT_EQ(all[0].version_source, "include/cuda.h (CUDA_VERSION)");  // a real tree, not the wrapper's parent
}

TEST(ToolkitChoice, ADirectoryNamedByTwoVariablesIsOneToolkitFoundByTheFirst) {
  TempDir a;
  make_linux_toolkit(a.path(), 13000);
  auto all = find_toolkits(search_with({{"CUDA_PATH", a.path().string()},
                                        {"CUDA_PATH_V13_0", a.path().string() + "/"},
                                        {"CUDA_HOME", a.path().string()}},
                                       {a.path()}));
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(found_by_text(all[0]), "CUDA_PATH (also CUDA_HOME, CUDA_PATH_V13_0, default location)");
}

TEST(ToolkitChoice, CudaPathIsPreferredOverDefaultsAndNvccOnPath) {
  TempDir a, b, c;
  make_linux_toolkit(a.path(), 12040);
  make_linux_toolkit(b.path(), 13000);
  make_linux_toolkit(c.path(), 12080);
  write_file(c.path() / "bin/nvcc", "");
  auto s = search_with({{"CUDA_PATH", a.path().string()}, {"PATH", (c.path() / "bin").string()}}, {b.path()});
  for (auto purpose : {ToolkitPurpose::Inspect, ToolkitPurpose::Install}) {
    auto tk = choose_toolkit(s, purpose, 12);  // Install: a and c both take a CUDA 12 archive
    ASSERT_TRUE(tk) << tk.error().message;
    EXPECT_EQ(tk->root, a.path());
    EXPECT_EQ(tk->choice.by, ChosenBy::Variable);
    EXPECT_EQ(to_string(tk->choice), "CUDA_PATH");
    ASSERT_EQ(tk->choice.others.size(), 2u);
    std::string said = choice_text(*tk);
    EXPECT_TRUE(mentions(said, "from CUDA_PATH; also found: ")) << said;
    EXPECT_TRUE(mentions(said, b.path().string() + " (CUDA 13.0, default location)")) << said;
    EXPECT_TRUE(mentions(said, c.path().string() + " (CUDA 12.8, nvcc on PATH)")) << said;
    EXPECT_TRUE(mentions(said, "use --cuda-root to pick another")) << said;
  }
}

TEST(ToolkitChoice, CudaHomeIsPreferredAndCudaPathBeforeIt) {
  TempDir a, b;
  make_linux_toolkit(a.path(), 12040);
  make_linux_toolkit(b.path(), 13000);
  auto home =
      choose_toolkit(search_with({{"CUDA_HOME", b.path().string()}}, {a.path(), b.path()}), ToolkitPurpose::Inspect);
  ASSERT_TRUE(home) << home.error().message;
  EXPECT_EQ(home->root, b.path());
  EXPECT_EQ(to_string(home->choice), "CUDA_HOME");
  auto both = choose_toolkit(
      search_with({{"CUDA_HOME", b.path().string()}, {"CUDA_PATH", a.path().string()}}, {a.path(), b.path()}),
      ToolkitPurpose::Inspect);
  ASSERT_TRUE(both);
  EXPECT_EQ(both->root, a.path());
  EXPECT_EQ(to_string(both->choice), "CUDA_PATH");
}

// The normal Windows machine with two CUDA versions: CUDA_PATH names the current one.
TEST(ToolkitChoice, CudaPathBesideVersionedVariablesIsTheChoice) {
  TempDir v12, v13;
  make_windows_toolkit(v12.path(), "12.4.1", false);
  make_windows_toolkit(v13.path(), "13.0.0", true);
  auto tk = choose_toolkit(search_with({{"CUDA_PATH", v13.path().string()},
                                        {"CUDA_PATH_V12_4", v12.path().string()},
                                        {"CUDA_PATH_V13_0", v13.path().string()}},
                                       {v13.path(), v12.path()}),
                           ToolkitPurpose::Inspect);
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->root, v13.path());
  EXPECT_EQ(found_by_text(*tk), "CUDA_PATH (also CUDA_PATH_V13_0, default location)");
}

TEST(ToolkitChoice, SeveralToolkitsWithoutAVariableAreRefusedInTheWordsOfTheCommand) {
  TempDir a, b;
  make_linux_toolkit(a.path(), 12040);
  make_linux_toolkit(b.path(), 12080);
  auto s = search_with({{"CUDA_PATH_V12_4", a.path().string()}}, {a.path(), b.path()});
  auto verify = choose_toolkit(s, ToolkitPurpose::Inspect);
  ASSERT_FALSE(verify);
  EXPECT_EQ(verify.error().code, ErrorCode::NoToolkit);
  const std::string& m = verify.error().message;
  EXPECT_TRUE(mentions(m, "several CUDA toolkits are installed; choose one with --cuda-root:")) << m;
  EXPECT_FALSE(mentions(m, "archive")) << m;
  EXPECT_TRUE(mentions(m, a.path().string() + "  (CUDA 12.4, found by CUDA_PATH_V12_4 (also default location))")) << m;
  EXPECT_TRUE(mentions(m, b.path().string() + "  (CUDA 12.8, found by default location)")) << m;
  auto install = choose_toolkit(s, ToolkitPurpose::Install, 12);
  ASSERT_FALSE(install);
  EXPECT_TRUE(mentions(install.error().message,
                       "several CUDA toolkits could take this archive; choose one with "
                       "--cuda-root:"))
      << install.error().message;
}

TEST(ToolkitChoice, InstallTakesTheOnlyToolkitOfTheArchivesMajorWhenCudaPathsCannot) {
  TempDir a, b, c;
  make_linux_toolkit(a.path(), 12040);
  make_linux_toolkit(b.path(), 13000);
  make_linux_toolkit(c.path(), 13010);
  auto s = search_with({{"CUDA_PATH", a.path().string()}}, {b.path()});
  auto tk = choose_toolkit(s, ToolkitPurpose::Install, 13);
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->root, b.path());
  EXPECT_EQ(to_string(tk->choice), "only-for-cuda-major");
  std::string said = choice_text(*tk);
  EXPECT_TRUE(mentions(said, "the only CUDA 13 toolkit, which the archive is built for")) << said;
  EXPECT_TRUE(mentions(said, a.path().string() + " (CUDA 12.4, CUDA_PATH)")) << said;
  // Not one: CUDA_PATH cannot take it and names nothing among them, so the user chooses.
  auto two = choose_toolkit(search_with({{"CUDA_PATH", a.path().string()}}, {b.path(), c.path()}),
                            ToolkitPurpose::Install, 13);
  ASSERT_FALSE(two);
  EXPECT_TRUE(mentions(two.error().message, "could take this archive")) << two.error().message;
  // CUDA_PATH that can take it wins over the other CUDA 13 toolkit.
  auto named = choose_toolkit(search_with({{"CUDA_PATH", c.path().string()}}, {b.path(), c.path()}),
                              ToolkitPurpose::Install, 13);
  ASSERT_TRUE(named) << named.error().message;
  EXPECT_EQ(named->root, c.path());
}

TEST(ToolkitChoice, CudaRootNeedsNoWordAndTheOnlyToolkitNoneEither) {
  TempDir a;
  make_linux_toolkit(a.path(), 13000);
  ToolkitSearch s = search_with({}, {a.path()});
  auto only = choose_toolkit(s, ToolkitPurpose::Inspect);
  ASSERT_TRUE(only);
  EXPECT_EQ(choice_text(*only), "");
  s.cuda_root = a.path();
  auto given = choose_toolkit(s, ToolkitPurpose::Inspect);
  ASSERT_TRUE(given);
  EXPECT_EQ(to_string(given->choice), "--cuda-root");
  EXPECT_EQ(choice_text(*given), "");
}
