// The Windows platform modules under Wine (or Windows): the registry PATH, Restart Manager, files
// in use, FileVersion, and cudnn-install.exe end to end on a fake toolkit, with PATH checked and
// everything rolled back byte for byte. What Wine cannot show is said where it matters.
#include <gtest/gtest.h>
#include <windows.h>

#include <algorithm>
#include <sstream>

#include "base/win32_util.hpp"
#include "cudnn_install/env.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/locks.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/verify.hpp"
#include "support/sandbox.hpp"
#include "support/tree_snapshot.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

bool under_wine() {
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  return ntdll && GetProcAddress(ntdll, "wine_get_version");
}

// HKCU Path is put back as it was (type and bytes) whatever the test does.
class PathGuard {
 public:
  PathGuard() : store_(make_registry_env_store()), saved_(*store_->read(EnvScope::User, "Path")) {}
  ~PathGuard() {
    if (saved_)
      (void)store_->write(EnvScope::User, "Path", *saved_);
    else
      (void)store_->erase(EnvScope::User, "Path");
  }
  EnvStore& store() { return *store_; }
  RegValue now() { return store_->read(EnvScope::User, "Path")->value_or(RegValue{0, {}}); }

 private:
  std::unique_ptr<EnvStore> store_;
  std::optional<RegValue> saved_;
};

// A long-used machine's PATH: unexpanded variables, a quoted entry with a ';' inside, an entry
// that is a prefix of the CUDA directory, and a trailing ';'. Over 3000 characters.
std::u16string long_path(const fs::path& cuda_bin) {
  std::wstring prefix = cuda_bin.wstring();
  prefix.pop_back();
  std::u16string p = u"%SystemRoot%\\system32;%SystemRoot%;\"C:\\Tools;Quoted\\bin\";" +
                     std::u16string(prefix.begin(), prefix.end()) + u";";
  for (int i = 0; p.size() < 3100; ++i)
    p += u"C:\\Program Files\\Vendor" + std::u16string(1, char16_t(u'A' + i % 26)) + u"\\bin;";
  return p;
}

// A process that keeps a DLL loaded until it is told to exit.
class HeldDll {
 public:
  explicit HeldDll(const fs::path& dll) {
    SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
    HANDLE out_w = nullptr, in_r = nullptr;
    CreatePipe(&out_, &out_w, &inherit, 0);
    CreatePipe(&in_r, &in_, &inherit, 0);
    SetHandleInformation(out_, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(in_, HANDLE_FLAG_INHERIT, 0);
    STARTUPINFOW si{};
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = in_r;
    si.hStdOutput = out_w;
    si.hStdError = out_w;
    std::wstring command = L"\"" + fs::path(HOLD_DLL).wstring() + L"\" \"" + dll.wstring() + L"\"";
    PROCESS_INFORMATION pi{};
    if (CreateProcessW(nullptr, command.data(), nullptr, nullptr, TRUE, 0, nullptr, nullptr, &si, &pi)) {
      process_ = pi.hProcess;
      CloseHandle(pi.hThread);
    }
    CloseHandle(out_w);
    CloseHandle(in_r);
    char buf[64] = {};
    DWORD n = 0;
    ReadFile(out_, buf, sizeof buf - 1, &n, nullptr);
    loaded_ = std::string(buf, n).starts_with("loaded");
  }
  ~HeldDll() {
    CloseHandle(in_);
    if (process_) WaitForSingleObject(process_, 10000), CloseHandle(process_);
    CloseHandle(out_);
  }
  bool loaded() const { return loaded_; }
  long pid() const { return process_ ? static_cast<long>(GetProcessId(process_)) : 0; }

 private:
  HANDLE out_ = nullptr, in_ = nullptr, process_ = nullptr;
  bool loaded_ = false;
};

std::string cli(const std::string& args) { return "\"" + fs::path(CLI_PATH).make_preferred().string() + "\" " + args; }

fs::path corpus(const std::string& name) { return fs::path(CORPUS_DIR) / "good" / name; }

std::string quoted(const fs::path& p) { return "\"" + p.string() + "\""; }

// The rest of the first line of the output that starts with prefix; "" if none does.
std::string line_after(const std::string& output, const std::string& prefix) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with(prefix)) return line.substr(prefix.size());
  }
  return "";
}

// A CUDA 12.4 toolkit holding a complete cuDNN 8.9.5 made of the loadable stand-in DLL.
void make_fake_cudnn8_toolkit(const fs::path& root) {
  make_windows_toolkit(root, "12.4.1", false);
  write_file(root / "include/cudnn_version.h",
             "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 5\n");
  for (const char* name : {"cudnn64_8", "cudnn_ops_infer64_8", "cudnn_ops_train64_8", "cudnn_cnn_infer64_8",
                           "cudnn_cnn_train64_8", "cudnn_adv_infer64_8", "cudnn_adv_train64_8"})
    fs::copy_file(FAKE_CUDNN, root / "bin" / (std::string(name) + ".dll"));
}

}  // namespace

// Windows' text for error 193 has a placeholder ("%1 is not a valid Win32 application"): the
// message beside it names the file, and no "%1" reaches the user.
TEST(WinErrorText, NoPlaceholderIsLeftInTheSystemsText) {
  std::string text = win32::error_text(ERROR_BAD_EXE_FORMAT);
  EXPECT_EQ(text.find("%1"), std::string::npos) << text;
  EXPECT_NE(text.find("(error 193)"), std::string::npos) << text;
}

TEST(WinRegistry, PathRoundTripKeepsTypeAndEveryByte) {
  PathGuard guard;
  RegValue v = make_value(kRegExpandSz, long_path("C:\\CUDA\\v12.4\\bin"));
  ASSERT_TRUE(guard.store().write(EnvScope::User, "Path", v));
  auto back = guard.store().read(EnvScope::User, "Path");
  ASSERT_TRUE(back && *back);
  EXPECT_EQ(**back, v);
  EXPECT_EQ((*back)->type, static_cast<std::uint32_t>(REG_EXPAND_SZ));
  guard.store().broadcast_change();  // SendMessageTimeoutW returns under the null graphics driver
  ASSERT_TRUE(guard.store().erase(EnvScope::User, "Path"));
  EXPECT_FALSE(*guard.store().read(EnvScope::User, "Path"));
}

// NVIDIA's installer writes InstallDir under HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing
// Toolkit\CUDA\vX.Y and installs into %ProgramFiles%\NVIDIA GPU Computing Toolkit\CUDA\vX.Y:
// both are found with no CUDA_PATH, nvcc or PATH to go by.
TEST(WinToolkit, FoundThroughNvidiasRegistryKeyAndProgramFiles) {
  TempDir dir;
  fs::path from_registry = dir.path() / "Registry CUDA" / "v12.4";
  make_windows_toolkit(from_registry, "12.4.1", false);
  fs::path program_files = dir.path() / "PF";
  fs::path from_default = program_files / "NVIDIA GPU Computing Toolkit" / "CUDA" / "v13.0";
  make_windows_toolkit(from_default, "13.0.0", true);

  const wchar_t* vendor = L"SOFTWARE\\NVIDIA Corporation";
  HKEY probe = nullptr;
  bool vendor_existed = RegOpenKeyExW(HKEY_LOCAL_MACHINE, vendor, 0, KEY_READ, &probe) == ERROR_SUCCESS;
  if (probe) RegCloseKey(probe);
  const wchar_t* subkey = L"SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA\\v12.4";
  HKEY key = nullptr;
  ASSERT_EQ(RegCreateKeyExW(HKEY_LOCAL_MACHINE, subkey, 0, nullptr, 0, KEY_WRITE, nullptr, &key, nullptr),
            ERROR_SUCCESS);
  std::wstring install_dir = from_registry.wstring();
  RegSetValueExW(key, L"InstallDir", 0, REG_SZ, reinterpret_cast<const BYTE*>(install_dir.c_str()),
                 static_cast<DWORD>((install_dir.size() + 1) * sizeof(wchar_t)));
  RegCloseKey(key);
  wchar_t saved[MAX_PATH] = {};
  GetEnvironmentVariableW(L"ProgramFiles", saved, MAX_PATH);
  SetEnvironmentVariableW(L"ProgramFiles", program_files.wstring().c_str());

  auto runner = make_process_runner();
  ToolkitSearch search = system_toolkit_search(std::nullopt, *runner);

  SetEnvironmentVariableW(L"ProgramFiles", saved);
  RegDeleteTreeW(HKEY_LOCAL_MACHINE, vendor_existed ? subkey : vendor);
  std::erase_if(search.environment, [](const auto& kv) { return kv.first.starts_with("CUDA") || kv.first == "PATH"; });
  search.run_nvcc = nullptr;
  auto has = [&](const fs::path& p) {
    return std::any_of(search.default_dirs.begin(), search.default_dirs.end(),
                       [&](const fs::path& d) { return fs::equivalent(d, p); });
  };
  EXPECT_TRUE(has(from_registry));
  EXPECT_TRUE(has(from_default));
  auto cuda12 = choose_toolkit(search, ToolkitPurpose::Install, 12);
  ASSERT_TRUE(cuda12) << cuda12.error().message;
  EXPECT_TRUE(fs::equivalent(cuda12->root, from_registry));
  EXPECT_EQ(cuda12->bin_dir, fs::path("bin"));
  auto cuda13 = choose_toolkit(search, ToolkitPurpose::Install, 13);
  ASSERT_TRUE(cuda13) << cuda13.error().message;
  EXPECT_TRUE(fs::equivalent(cuda13->root, from_default));
  EXPECT_EQ(cuda13->bin_dir, fs::path("bin") / "x64");  // where cudart64_13.dll is
}

// Issue 19: two CUDA versions, CUDA_PATH naming the current one in another case than
// CUDA_PATH_V13_0 (names compare without case here): one toolkit, and the choice of every command.
TEST(WinToolkit, CudaPathInAnotherCaseIsTheSameToolkitAndTheChoice) {
  TempDir v12, v13;
  make_windows_toolkit(v12.path(), "12.4.1", false);
  make_windows_toolkit(v13.path(), "13.0.0", true);
  std::wstring upper = v13.path().wstring();
  CharUpperBuffW(upper.data(), static_cast<DWORD>(upper.size()));
  ToolkitSearch search;
  search.path_separator = ';';
  search.environment = {{"CUDA_PATH", fs::path(upper).string()},
                        {"CUDA_PATH_V12_4", v12.path().string()},
                        {"CUDA_PATH_V13_0", v13.path().string()}};
  auto all = find_toolkits(search);
  ASSERT_EQ(all.size(), 2u);
  auto tk = choose_toolkit(search, ToolkitPurpose::Inspect);
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_TRUE(fs::equivalent(tk->root, v13.path()));
  EXPECT_EQ(to_string(tk->choice), "CUDA_PATH");
  EXPECT_EQ(found_by_text(*tk), "CUDA_PATH (also CUDA_PATH_V13_0)");
}

// Issue 18, class 5: a create's rename (MoveFileExW without MOVEFILE_REPLACE_EXISTING) leaves a
// file that appeared at its destination as it is; a replace (the default elsewhere) replaces.
TEST(WinFileSystem, ARenameThatMustNotReplaceLeavesWhatIsThere) {
  TempDir dir;
  write_file(dir.path() / "new", "new");
  write_file(dir.path() / "appeared", "another program's");
  auto fs = make_real_filesystem();
  auto refused = fs->rename(dir.path() / "new", dir.path() / "appeared", RenameMode::NoReplace);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::Conflict);
  EXPECT_EQ(read_file(dir.path() / "appeared"), "another program's");
  EXPECT_EQ(read_file(dir.path() / "new"), "new");
  ASSERT_TRUE(fs->rename(dir.path() / "new", dir.path() / "free", RenameMode::NoReplace));
  EXPECT_EQ(read_file(dir.path() / "free"), "new");
  ASSERT_TRUE(fs->rename(dir.path() / "free", dir.path() / "appeared", RenameMode::Replace));
  EXPECT_EQ(read_file(dir.path() / "appeared"), "new");
}

// DeleteFileW refuses a read-only file as it refuses a loaded DLL; a read-only file is removed, and
// one that still cannot be removed keeps its attribute.
TEST(WinFileSystem, RemovesAFileMarkedReadOnly) {
  TempDir dir;
  fs::path file = dir.path() / "cudnn_cnn64_9.dll";
  write_file(file, "MZ");
  ASSERT_TRUE(SetFileAttributesW(file.c_str(), FILE_ATTRIBUTE_READONLY));
  auto fs = make_real_filesystem();
  auto removed = fs->remove(file);
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_FALSE(fs::exists(file));
}

// The journal and the logs (--log may name a file under a folder others can write to): appended
// to only when a plain file with no other names; a symbolic link is opened as itself and refused.
TEST(WinFileSystem, AppendsOnlyToAPlainFileOfOneName) {
  TempDir dir;
  write_file(dir.path() / "plain.log", "earlier\n");
  auto file = open_for_append(dir.path() / "plain.log");
  ASSERT_TRUE(file) << file.error().message;
  ASSERT_TRUE((*file)->write(std::span<const char>("later\n", 6)));
  ASSERT_TRUE((*file)->sync_and_close());
  EXPECT_EQ(read_file(dir.path() / "plain.log"), "earlier\nlater\n");
  ASSERT_TRUE(open_for_append(dir.path() / "new.log"));
  EXPECT_TRUE(fs::exists(dir.path() / "new.log"));

  write_file(dir.path() / "victim", "precious");
  ASSERT_TRUE(CreateHardLinkW((dir.path() / "planted.log").c_str(), (dir.path() / "victim").c_str(), nullptr));
  auto linked = open_for_append(dir.path() / "planted.log");
  ASSERT_FALSE(linked);
  EXPECT_NE(linked.error().message.find("other names (hard links)"), std::string::npos) << linked.error().message;
  fs::create_directory(dir.path() / "folder.log");
  auto folder = open_for_append(dir.path() / "folder.log");
  ASSERT_FALSE(folder);
  EXPECT_NE(folder.error().message.find("is not a plain file"), std::string::npos) << folder.error().message;
  std::error_code ec;
  fs::create_symlink(dir.path() / "victim", dir.path() / "symlink.log", ec);
  if (!ec) {
    auto through = open_for_append(dir.path() / "symlink.log");
    EXPECT_FALSE(through) << "appended through a symbolic link";
  }
  EXPECT_EQ(read_file(dir.path() / "victim"), "precious");
}

TEST(WinFileVersion, ReadsTheVersionResource) {
  EXPECT_EQ(dll_file_version(FAKE_CUDNN).value_or("none"), "8.9.5.30");
  TempDir dir;
  write_file(dir.path() / "not-a-dll.dll", "MZ but nothing else");
  EXPECT_FALSE(dll_file_version(dir.path() / "not-a-dll.dll"));
}

// cudnn-install.exe itself carries a version resource (app/windows/cudnn-install.rc.in), read
// through GetFileVersionInfoW as Explorer's Details tab reads it (issue 20).
TEST(WinFileVersion, TheExeCarriesItsOwnVersion) {
  EXPECT_EQ(dll_file_version(CLI_PATH).value_or("none"), std::string(PROJECT_VERSION_TEXT) + ".0");
}

TEST(WinLocks, ALoadedDllIsInUseAndHoldersAreUnknownUnderWine) {
  TempDir dir;
  fs::path dll = dir.path() / "cudnn64_8.dll";
  fs::copy_file(FAKE_CUDNN, dll);
  auto real = make_real_filesystem();
  EXPECT_TRUE(real->check_not_in_use(dll));
  {
    HeldDll held(dll);
    ASSERT_TRUE(held.loaded());
    auto busy = real->check_not_in_use(dll);
    ASSERT_FALSE(busy);
    EXPECT_EQ(busy.error().code, ErrorCode::Conflict);
    EXPECT_NE(busy.error().message.find("--replace-in-use"), std::string::npos);
    auto scan = make_process_finder()->find_holders({{dll.string(), *file_id(dll)}});
    ASSERT_TRUE(scan);
    if (under_wine()) {
      EXPECT_TRUE(scan->holders.empty());  // the stub's answer, which must not read as "free"
      EXPECT_NE(describe_holders(*scan).find("unknown (not available)"), std::string::npos);
    } else {
      ASSERT_EQ(scan->holders.size(), 1u);
      EXPECT_EQ(scan->holders[0].pid, held.pid());
    }
  }
  EXPECT_TRUE(real->check_not_in_use(dll));
}

// The whole CLI into a fake toolkit of each era: the user PATH gets exactly one entry and keeps
// its type and every other byte; the same archive again changes nothing; --rollback gives back
// the tree and the PATH value exactly.
TEST(WinEndToEnd, InstallChangesPathOnceAndRollbackRestoresAll) {
  struct Case {
    const char* archive;
    const char* cuda;
    bool x64;
  } cases[] = {{"cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip", "12.4.1", false},
               {"cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip", "13.0.0", true}};
  for (const auto& c : cases) {
    PathGuard guard;
    TempDir dir;
    fs::path root = dir.path() / "CUDA" / (std::string("v") + c.cuda);
    make_windows_toolkit(root, c.cuda, c.x64);
    fs::path bin = root / (c.x64 ? "bin\\x64" : "bin");
    RegValue before = make_value(kRegExpandSz, long_path(bin));
    ASSERT_TRUE(guard.store().write(EnvScope::User, "Path", before));
    Snapshot tree = snapshot(root);
    std::string out;
    int rc =
        run_command(cli("--yes --no-verify --cuda-root " + quoted(root) + " " + archive_args(corpus(c.archive))), &out);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("PATH changed"), std::string::npos) << out;
    RegValue after = guard.now();
    EXPECT_EQ(after.type, static_cast<std::uint32_t>(REG_EXPAND_SZ));
    std::wstring b = bin.wstring();
    EXPECT_EQ(value_text(after), value_text(before) + std::u16string(b.begin(), b.end()) + u";") << c.archive;
    EXPECT_TRUE(fs::exists(bin / (std::string(c.x64 ? "cudnn64_9" : "cudnn64_8") + ".dll")));
    ASSERT_EQ(run_command(cli("status --cuda-root " + quoted(root)), &out), 0) << out;
    EXPECT_NE(out.find("of the user PATH (REG_EXPAND_SZ)"), std::string::npos) << out;
    // The installed files were stamped (volume, file index, size, write and change time): the
    // identical reinstall reads none of them.
    rc = run_command(cli("--yes --no-verify -v --cuda-root " + quoted(root) + " " + archive_args(corpus(c.archive))),
                     &out);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("nothing to do"), std::string::npos) << out;
    EXPECT_NE(out.find("debug: 0 existing files read to compare them"), std::string::npos) << out;

    rc = run_command(cli("--rollback --yes --cuda-root " + quoted(root)), &out);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_EQ(guard.now(), before) << c.archive;
    EXPECT_EQ(diff(tree, snapshot(root)), "") << c.archive;
  }
}

TEST(WinEndToEnd, DryRunShowsTheExactPathChangeAndWritesNothing) {
  PathGuard guard;
  TempDir dir;
  fs::path root = dir.path() / "v12.4";
  make_windows_toolkit(root, "12.4.1", false);
  RegValue before = make_value(kRegSz, u"C:\\Windows;C:\\Tools");
  ASSERT_TRUE(guard.store().write(EnvScope::User, "Path", before));
  Snapshot tree = snapshot(root);
  std::string out;
  int rc = run_command(cli("--dry-run --cuda-root " + quoted(root) + " " +
                           archive_args(corpus("cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip"))),
                       &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("before: C:\\Windows;C:\\Tools"), std::string::npos) << out;
  EXPECT_NE(out.find("after:  C:\\Windows;C:\\Tools;" + (root / "bin").string()), std::string::npos) << out;
  EXPECT_NE(out.find("REG_SZ, kept"), std::string::npos) << out;
  EXPECT_EQ(guard.now(), before);
  EXPECT_EQ(diff(tree, snapshot(root)), "");
}

// A cudnn64_8.dll that a running program has loaded: refused (tree unchanged) without the flag;
// moved aside and replaced with --replace-in-use; --rollback puts the original back.
TEST(WinEndToEnd, DllInUseIsRefusedOrMovedAsideWithReplaceInUse) {
  PathGuard guard;
  TempDir dir;
  fs::path root = dir.path() / "v12.4";
  make_windows_toolkit(root, "12.4.1", false);
  write_file(root / "include/cudnn_version.h",
             "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 0\n");
  fs::copy_file(FAKE_CUDNN, root / "bin/cudnn64_8.dll");
  Snapshot tree = snapshot(root);
  std::string args = "--yes --no-verify --no-path --cuda-root " + quoted(root) + " " +
                     archive_args(corpus("cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip"));
  HeldDll held(root / "bin/cudnn64_8.dll");
  ASSERT_TRUE(held.loaded());
  std::string out;
  EXPECT_EQ(run_command(cli(args), &out), 3) << out;
  EXPECT_NE(out.find("cudnn64_8.dll' is in use"), std::string::npos) << out;
  EXPECT_EQ(diff(tree, snapshot(root)), "");

  ASSERT_EQ(run_command(cli("--replace-in-use " + args), &out), 0) << out;
  EXPECT_NE(read_file(root / "bin/cudnn64_8.dll"), read_file(FAKE_CUDNN));
  ASSERT_EQ(run_command(cli("--rollback --yes --cuda-root " + quoted(root)), &out), 0) << out;
  EXPECT_EQ(diff(tree, snapshot(root)), "");
}

// verify on Windows: FileVersion of every DLL against cudnn_version.h, and the DLL loaded in the
// probe child (no GPU under Wine: the version check only).
TEST(WinEndToEnd, VerifyReadsFileVersionsAndLoadsTheDll) {
  TempDir dir;
  fs::path root = dir.path() / "v12.4";
  make_fake_cudnn8_toolkit(root);
  std::string out;
  // cuDNN 8.9 needs zlibwapi.dll (issue 19: verify checks it, with doctor's rules and fix).
  int rc = run_command(cli("verify --cuda-root " + quoted(root)), &out);
  EXPECT_EQ(rc, 5) << out;
  EXPECT_NE(out.find("zlibwapi.dll is missing"), std::string::npos) << out;
  EXPECT_NE(out.find("copy it into " + (root / "bin").string()), std::string::npos) << out;
  write_file(root / "bin/zlibwapi.dll", "MZ");
  rc = run_command(cli("verify --json --cuda-root " + quoted(root)), &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("8.9.5.30"), std::string::npos) << out;
  EXPECT_NE(out.find("\"version\": 8905"), std::string::npos) << out;

  write_file(root / "include/cudnn_version.h",
             "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n");
  rc = run_command(cli("verify --cuda-root " + quoted(root)), &out);
  EXPECT_EQ(rc, 5) << out;
  EXPECT_NE(out.find("mixed cuDNN versions"), std::string::npos) << out;
}

// doctor on Windows: zlibwapi.dll for cuDNN 8.9 and the toolkit missing from PATH, from the real
// registry and filesystem of the (Wine) machine.
TEST(WinEndToEnd, DoctorFindsMissingZlibwapiAndTheToolkitOffPath) {
  TempDir dir;
  fs::path root = dir.path() / "v12.4";
  make_fake_cudnn8_toolkit(root);
  std::string out;
  int rc = run_command(cli("doctor --json --cuda-root " + quoted(root)), &out);
  EXPECT_EQ(rc, 5) << out;
  EXPECT_NE(out.find("\"check\": \"zlibwapi\""), std::string::npos) << out;
  EXPECT_NE(out.find("is not on PATH"), std::string::npos) << out;
  write_file(root / "bin/zlibwapi.dll", "MZ");
  run_command(cli("doctor --json --cuda-root " + quoted(root)), &out);
  EXPECT_EQ(out.find("\"check\": \"zlibwapi\""), std::string::npos) << out;
}

// A user named José downloads into a folder named in Cyrillic, and the toolkit lives under a
// directory with letters no ANSI code page holds together: the archive is found, installed and
// put on PATH; the printed undo command, pasted into cmd, rolls it all back byte for byte; verify
// loads the DLL from such a directory (the probe child gets the path too).
TEST(WinEndToEnd, PathsWithLettersOutsideTheCodePageWork) {
  PathGuard guard;
  TempDir dir;
  fs::path root = dir.path() / u8"Programmes José 東京" / "NVIDIA GPU Computing Toolkit" / "CUDA" / "v12.4";
  make_windows_toolkit(root, "12.4.1", false);
  const char* name = "cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip";
  fs::path downloads = dir.path() / u8"Загрузки é";
  fs::create_directories(downloads);
  fs::copy_file(corpus(name), downloads / name);
  std::string manifest;
  if (fs::exists(corpus("redistrib_local.json"))) {
    fs::copy_file(corpus("redistrib_local.json"), downloads / "redistrib_local.json");
    manifest = "--manifest " + quoted(downloads / "redistrib_local.json") + " ";
  }
  RegValue before = make_value(kRegSz, u"C:\\Windows");
  ASSERT_TRUE(guard.store().write(EnvScope::User, "Path", before));
  Snapshot tree = snapshot(root);
  std::string out;
  int rc = run_command(cli("--yes --no-verify --cuda-root " + quoted(root) + " " + manifest + quoted(downloads / name)),
                       &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_TRUE(fs::exists(root / "bin" / "cudnn64_8.dll")) << out;
  std::wstring bin = (root / "bin").wstring();
  EXPECT_EQ(value_text(guard.now()), u"C:\\Windows;" + std::u16string(bin.begin(), bin.end()));
  // The printed undo command, pasted into cmd (its own form when it differs from PowerShell's).
  std::string undo = line_after(out, "  (in cmd: ");
  if (undo.empty())
    undo = line_after(out, "undo with: ");
  else
    undo.pop_back();  // the closing ')'
  ASSERT_FALSE(undo.empty()) << out;
  rc = run_command(undo + " --yes", &out);
  ASSERT_EQ(rc, 0) << undo << "\n" << out;
  EXPECT_EQ(guard.now(), before);
  EXPECT_EQ(diff(tree, snapshot(root)), "");

  fs::path other = dir.path() / u8"Ünïcödé 東京" / "v12.4";
  make_fake_cudnn8_toolkit(other);
  write_file(other / "bin/zlibwapi.dll", "MZ");
  rc = run_command(cli("verify --cuda-root " + quoted(other)), &out);
  EXPECT_EQ(rc, 0) << out;
}

// A browser's second download of the archive ("... (1).zip") in a folder with spaces, into a
// toolkit under "NVIDIA GPU Computing Toolkit": recognised by its sha256 (the manifest vouches for
// it) and installed. The same bytes named as a CUDA 13 archive are refused by their header, the
// tree untouched.
TEST(WinEndToEnd, ARenamedDownloadIsRecognisedBySha256AndInstalled) {
  PathGuard guard;
  TempDir dir;
  fs::path root = dir.path() / "NVIDIA GPU Computing Toolkit" / "CUDA" / "v12.4";
  make_windows_toolkit(root, "12.4.1", false);
  const char* name = "cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip";
  fs::path downloads = dir.path() / "My Downloads";
  fs::create_directories(downloads);
  fs::path second = downloads / "cudnn-windows-x86_64-8.9.5.30_cuda12-archive (1).zip";
  fs::path lying = downloads / "cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip";
  fs::copy_file(corpus(name), second);
  fs::copy_file(corpus(name), lying);
  std::string manifest = "--manifest " + quoted(corpus("redistrib_local.json")) + " ";
  ASSERT_TRUE(fs::exists(corpus("redistrib_local.json")));
  Snapshot tree = snapshot(root);
  std::string out;
  int rc = run_command(cli("--yes --no-verify --no-path --cuda-root " + quoted(root) + " " + manifest + quoted(lying)),
                       &out);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("include/cudnn_version.h says 8.9.5: the archive was renamed"), std::string::npos) << out;
  EXPECT_EQ(diff(tree, snapshot(root)), "") << out;
  rc = run_command(cli("--yes --no-verify --no-path --cuda-root " + quoted(root) + " " + manifest + quoted(second)),
                   &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find(std::string("recognised by its sha256 as ") + name), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(root / "bin" / "cudnn64_8.dll")) << out;
}

// A DLL of the install that another program rewrote since is neither deleted nor overwritten by
// --rollback (issue 18, class 5 after the commit): refused, named, nothing changed; once moved out
// of the way, the rollback goes through and the PATH value comes back too.
// `attrib +r` on an installed DLL after the install: the rollback still removes it, and says the
// tree is as before only when it is (it once said so and left the DLL, taken for one in use).
TEST(WinEndToEnd, RollbackRemovesAnInstalledDllMarkedReadOnlySince) {
  PathGuard guard;
  TempDir dir;
  fs::path root = dir.path() / "CUDA" / "v13.0";
  make_windows_toolkit(root, "13.0.0", true);
  ASSERT_TRUE(guard.store().write(EnvScope::User, "Path", make_value(kRegExpandSz, u"%SystemRoot%\\system32")));
  Snapshot tree = snapshot(root);
  std::string out, args = "--yes --cuda-root " + quoted(root);
  std::string zip = archive_args(corpus("cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip"));
  ASSERT_EQ(run_command(cli("--no-verify " + args + " " + zip), &out), 0) << out;
  fs::path dll = root / "bin" / "x64" / "cudnn_cnn64_9.dll";
  ASSERT_TRUE(SetFileAttributesW(dll.c_str(), FILE_ATTRIBUTE_READONLY));
  ASSERT_EQ(run_command(cli("--rollback " + args), &out), 0) << out;
  EXPECT_EQ(out.find("still in use"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dll));
  EXPECT_EQ(diff(tree, snapshot(root)), "");
}

TEST(WinEndToEnd, RollbackLeavesAnInstalledDllThatWasChangedSince) {
  PathGuard guard;
  TempDir dir;
  fs::path root = dir.path() / "CUDA" / "v13.0";
  make_windows_toolkit(root, "13.0.0", true);
  RegValue before = make_value(kRegExpandSz, u"%SystemRoot%\\system32");
  ASSERT_TRUE(guard.store().write(EnvScope::User, "Path", before));
  Snapshot tree = snapshot(root);
  std::string out, args = "--yes --cuda-root " + quoted(root);
  std::string zip = archive_args(corpus("cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip"));
  ASSERT_EQ(run_command(cli("--no-verify " + args + " " + zip), &out), 0) << out;
  fs::path dll = root / "bin" / "x64" / "cudnn_ops64_9.dll";
  write_file(dll, "MZ rebuilt by another program\n");
  EXPECT_EQ(run_command(cli("--rollback " + args), &out), 3) << out;
  EXPECT_NE(out.find("bin/x64/cudnn_ops64_9.dll (it holds other bytes now"), std::string::npos) << out;
  EXPECT_NE(out.find("Nothing was changed"), std::string::npos) << out;
  EXPECT_EQ(read_file(dll), "MZ rebuilt by another program\n");
  EXPECT_NE(guard.now(), before) << "the PATH entry of the install is still there";
  fs::rename(dll, dir.path() / "kept.dll");
  ASSERT_EQ(run_command(cli("--rollback " + args), &out), 0) << out;
  EXPECT_EQ(guard.now(), before);
  EXPECT_EQ(diff(tree, snapshot(root)), "");
}
