// The corpus: every era's real layout is read, every hostile archive is refused with its reason.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "archive_inspect.hpp"
#include "cudnn_install/archive.hpp"

using namespace cudnn_install;
namespace fs = std::filesystem;

namespace {

nlohmann::json expectations() {
  std::ifstream in(std::string(CORPUS_DIR) + "/expectations.json");
  return nlohmann::json::parse(in);
}

size_t count_role(const ArchiveInfo& info, Role role) {
  return static_cast<size_t>(
      std::count_if(info.entries.begin(), info.entries.end(), [&](const Entry& e) { return e.role == role; }));
}

}  // namespace

TEST(ArchiveCorpus, EveryEraIsReadWithItsHeaderVersion) {
  auto exp = expectations();
  ASSERT_GE(exp["good"].size(), 12u);
  for (const auto& g : exp["good"]) {
    fs::path path = fs::path(CORPUS_DIR) / g["file"].get<std::string>();
    auto info = inspect_archive(path, std::nullopt);
    ASSERT_TRUE(info) << path << ": " << info.error().message;
    CudnnVersion v = info->header_version;
    EXPECT_EQ(std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(*v.patch),
              g["header_version"].get<std::string>())
        << path;
    EXPECT_GT(count_role(*info, Role::Header), 0u) << path;
    size_t libs = count_role(*info, Role::Dll) + count_role(*info, Role::SharedLib);
    EXPECT_GT(libs, 0u) << path;
    EXPECT_EQ(count_role(*info, Role::Unknown), 0u) << path;
  }
}

TEST(ArchiveCorpus, EveryHostileArchiveIsRefusedWithItsReason) {
  auto exp = expectations();
  ASSERT_GE(exp["hostile"].size(), 25u);
  for (const auto& h : exp["hostile"]) {
    fs::path path = fs::path(CORPUS_DIR) / h["file"].get<std::string>();
    auto info = inspect_archive(path, std::nullopt);
    ASSERT_FALSE(info) << h["case"] << " was accepted";
    EXPECT_EQ(to_string(info.error().code), h["code"].get<std::string>()) << h["case"] << ": " << info.error().message;
    EXPECT_NE(info.error().message.find(h["contains"].get<std::string>()), std::string::npos)
        << h["case"] << ": " << info.error().message;
  }
}

TEST(ArchiveCorpus, Windows919UsesBinX64) {
  auto info =
      inspect_archive(fs::path(CORPUS_DIR) / "good/cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip", std::nullopt);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->os, TargetOs::Windows);
  EXPECT_EQ(count_role(*info, Role::Dll), 8u);
  EXPECT_EQ(count_role(*info, Role::ImportLib), 8u);
  EXPECT_EQ(info->ignored.size(), 1u);  // LICENSE
}

TEST(ArchiveCorpus, LinuxSymlinkChainsAreKept) {
  auto info =
      inspect_archive(fs::path(CORPUS_DIR) / "good/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", std::nullopt);
  ASSERT_TRUE(info);
  auto it = std::find_if(info->entries.begin(), info->entries.end(),
                         [](const Entry& e) { return e.file_name == "libcudnn.so.9"; });
  ASSERT_NE(it, info->entries.end());
  EXPECT_EQ(it->raw.type, EntryType::Symlink);
  EXPECT_EQ(it->raw.link_target, "libcudnn.so.9.19.0");
  EXPECT_EQ(it->role, Role::SharedLib);
}

TEST(ArchiveCorpus, ARenamedArchiveIsInspectedUnderTheNameItWasIdentifiedAs) {
  fs::path renamed = fs::temp_directory_path() / "my-cudnn-copy.tar.xz";
  fs::copy_file(fs::path(CORPUS_DIR) / "good/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", renamed,
                fs::copy_options::overwrite_existing);
  auto refused = inspect_archive(renamed, std::nullopt);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::BadName);
  auto named =
      inspect_archive(renamed, parse_archive_name("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz").value());
  ASSERT_TRUE(named) << named.error().message;
  ASSERT_TRUE(named->name);
  EXPECT_EQ(named->name->cuda.major, 13);
  EXPECT_EQ(named->header_version.number(), 91900);
  // A name whose version is not the header's is refused, as the file's own name would be.
  auto wrong =
      inspect_archive(renamed, parse_archive_name("cudnn-linux-x86_64-9.10.2.21_cuda13-archive.tar.xz").value());
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::VersionMismatch);
  fs::remove(renamed);
}

TEST(ArchiveReader, ZipCrcDamageIsAnErrorWhenExtracting) {
  std::ifstream in(std::string(CORPUS_DIR) + "/hostile/crc-zip/cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip",
                   std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto reader = open_archive_memory(bytes, Container::Zip);
  ASSERT_TRUE(reader);
  auto r = (*reader)->extract([](const RawEntry&) -> Result<std::optional<ChunkSink>> {
    return ChunkSink([](std::span<const char>) -> Result<void> { return {}; });
  });
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::BadArchive);
}

namespace {

std::string file_bytes(const std::string& corpus_path) {
  std::ifstream in(std::string(CORPUS_DIR) + "/" + corpus_path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Every entry's bytes, and the threads each entry's sink ran on.
struct Extracted {
  std::map<std::string, std::string> content;
  std::map<std::string, std::set<std::thread::id>> threads;
  std::set<std::thread::id> all_threads;
};

Result<void> extract_with(ArchiveReader& reader, unsigned workers, Extracted& out) {
  std::mutex mutex;
  return reader.extract_parallel(
      [&](const RawEntry& e) -> Result<std::optional<ChunkSink>> {
        return ChunkSink([&, name = e.name](std::span<const char> chunk) -> Result<void> {
          std::lock_guard lock(mutex);
          out.content[name].append(chunk.data(), chunk.size());
          out.threads[name].insert(std::this_thread::get_id());
          out.all_threads.insert(std::this_thread::get_id());
          return {};
        });
      },
      workers);
}

}  // namespace

TEST(ArchiveReader, ZipEntriesInflatedOnSeveralThreadsAreTheSameBytes) {
  std::string bytes = file_bytes("good/cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip");
  auto serial_reader = open_archive_memory(bytes, Container::Zip);
  auto parallel_reader = open_archive_memory(bytes, Container::Zip);
  ASSERT_TRUE(serial_reader && parallel_reader);
  Extracted serial, parallel;
  ASSERT_TRUE(extract_with(**serial_reader, 1, serial));
  ASSERT_TRUE(extract_with(**parallel_reader, 3, parallel));
  EXPECT_EQ(serial.all_threads.size(), 1u);
  EXPECT_EQ(parallel.all_threads.size(), 3u);
  EXPECT_EQ(parallel.content, serial.content);
  EXPECT_EQ(parallel.content.size(), 19u);  // every file of the archive
  for (const auto& [name, threads] : parallel.threads) EXPECT_EQ(threads.size(), 1u) << name;
}

TEST(ArchiveReader, ZipCrcDamageIsAnErrorWhenInflatingOnSeveralThreads) {
  auto reader = open_archive_memory(file_bytes("hostile/crc-zip/cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip"),
                                    Container::Zip);
  ASSERT_TRUE(reader);
  Extracted out;
  auto r = extract_with(**reader, 2, out);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::BadArchive);
  EXPECT_NE(r.error().message.find("corrupt"), std::string::npos) << r.error().message;
}

TEST(ArchiveVersionHeader, ParsesMacrosOfEachEra) {
  auto v9 = parse_version_header("#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n", "h");
  ASSERT_TRUE(v9);
  EXPECT_EQ(v9->number(), 91900);
  auto v8 = parse_version_header("#  define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 5\n", "h");
  ASSERT_TRUE(v8);
  EXPECT_EQ(v8->number(), 8905);
  auto commented = parse_version_header(
      "// #define CUDNN_MAJOR 1\n#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 5\n", "h");
  ASSERT_TRUE(commented);
  EXPECT_EQ(commented->major, 7);
  EXPECT_FALSE(parse_version_header("#define CUDNN_MAJOR 9\n", "cudnn_version.h"));
}

TEST(ArchiveVersionHeader, ReadsTabsParenthesesAndWindowsLineEnds) {
  auto v = parse_version_header(
      "#define CUDNN_MAJOR_SUFFIX 1\r\n#ifndef X\r\n#\tdefine\tCUDNN_MAJOR\t( 9 )\r\n"
      "  #  define CUDNN_MINOR 19 // minor\r\n#define CUDNN_PATCHLEVEL 2\r\n",
      "include/cudnn_version.h");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(v->number(), 91902);
  EXPECT_FALSE(
      parse_version_header("#define CUDNN_MAJOR_X 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n", "h"));
  EXPECT_FALSE(parse_version_header("#define CUDNN_MAJOR\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n", "h"));
  EXPECT_FALSE(parse_version_header("#defineCUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n", "h"));
}

TEST(ArchiveLayout, RolesOfEveryEra) {
  EXPECT_EQ(classify("include/cudnn.h"), Role::Header);
  EXPECT_EQ(classify("bin/cudnn64_9.dll"), Role::Dll);
  EXPECT_EQ(classify("bin/x64/cudnn64_9.dll"), Role::Dll);
  EXPECT_EQ(classify("lib/x64/cudnn.lib"), Role::ImportLib);
  EXPECT_EQ(classify("lib/cudnn.lib"), Role::ImportLib);
  EXPECT_EQ(classify("lib/libcudnn.so.9.19.0"), Role::SharedLib);
  EXPECT_EQ(classify("lib64/libcudnn.so"), Role::SharedLib);
  EXPECT_EQ(classify("lib64/libcudnn_static.a"), Role::StaticLib);
  EXPECT_EQ(classify("targets/ppc64le-linux/lib/libcudnn.so.8"), Role::SharedLib);
  EXPECT_EQ(classify("targets/ppc64le-linux/include/cudnn.h"), Role::Header);
  EXPECT_EQ(classify("LICENSE"), Role::License);
  EXPECT_EQ(classify("NVIDIA_SLA_cuDNN_Support.txt"), Role::License);
  EXPECT_EQ(classify("include/sub/cudnn.h"), Role::Unknown);
  EXPECT_EQ(classify("bin/nvcc"), Role::Unknown);
  EXPECT_EQ(classify("README"), Role::Unknown);
}

// Issue 18, class 6: only cuDNN's own files have a role that installs; a CUDA runtime or cuda.h in
// a cuDNN archive is Unknown (listed as not installed), wherever it sits.
TEST(ArchiveLayout, OnlyCudnnsOwnFilesAreInstalled) {
  for (const char* rel :
       {"lib/libcudart.so.13", "lib64/libcublas.so", "include/cuda.h", "include/cuda_runtime.h", "bin/cudart64_13.dll",
        "bin/x64/zlibwapi.dll", "lib/x64/cudart.lib", "lib/libz.a", "lib/libnvrtc.so.13", "include/nvrtc.h"}) {
    EXPECT_EQ(classify(rel), Role::Unknown) << rel;
    EXPECT_TRUE(installable_but_not_cudnn(rel)) << rel;
  }
  for (const char* rel : {"lib/libcudnn_engines_precompiled.so.9.19.0", "include/cudnn_backend_v9.h",
                          "bin/x64/cudnn_graph64_9.dll", "lib/x64/cudnn_adv64_9.lib", "lib64/libcudnn_static_v7.a"}) {
    EXPECT_NE(classify(rel), Role::Unknown) << rel;
    EXPECT_FALSE(installable_but_not_cudnn(rel)) << rel;
  }
}

// Files on disk decode through liblzma's multi-threaded decoder (archive_xz.cpp); bytes in memory
// through libarchive's own filter. Both must list the same entries with the same CRCs, for a file
// in many blocks (xz -T2) and for two xz streams one after the other (what `xz -d` accepts).
TEST(ArchiveXz, ThreadedDecoderListsWhatLibarchiveLists) {
  std::string good = std::string(CORPUS_DIR) + "/good/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  fs::path dir = fs::temp_directory_path() / ("xz-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string d = dir.string();
  ASSERT_EQ(std::system(("xz -dc '" + good + "' > " + d + "/t.tar && xz -T2 --block-size=4KiB -c " + d + "/t.tar > " +
                         d + "/blocks.xz && head -c 10240 " + d + "/t.tar | xz -c > " + d +
                         "/two.xz && tail -c +10241 " + d + "/t.tar | xz -c >> " + d + "/two.xz")
                            .c_str()),
            0);
  auto listing = [](Result<std::unique_ptr<ArchiveReader>> reader) {
    std::vector<std::string> rows;
    auto l = (*reader)->list([](const RawEntry&) { return false; }, {});
    if (!l) return std::vector<std::string>{"error: " + l.error().message};
    for (const auto& e : l->entries)
      rows.push_back(e.name + " " + std::to_string(e.size) + " " + std::to_string(e.crc32.value_or(0)));
    return rows;
  };
  std::ifstream in(good, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto expected = listing(open_archive_memory(bytes, Container::TarXz));
  ASSERT_GT(expected.size(), 5u);
  EXPECT_EQ(listing(open_archive(dir / "blocks.xz", Container::TarXz)), expected);
  EXPECT_EQ(listing(open_archive(dir / "two.xz", Container::TarXz)), expected);
  fs::resize_file(dir / "blocks.xz", fs::file_size(dir / "blocks.xz") / 2);
  auto cut = listing(open_archive(dir / "blocks.xz", Container::TarXz));
  ASSERT_FALSE(cut.empty());
  EXPECT_NE(cut.back().find("error: "), std::string::npos);
  fs::remove_all(dir);
}

// Progress while a tar.xz is decoded: how far into the file, rising, ending at its size; the same
// for a listing and for a spooling pass.
TEST(ArchiveXz, DecodingReportsHowFarIntoTheFile) {
  fs::path real = fs::path(REAL_ARCHIVE_DIR) / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  if (!fs::exists(real)) GTEST_SKIP() << "no real cuDNN on this machine";
  std::uint64_t size = fs::file_size(real);
  auto check = [&](const std::vector<std::pair<std::uint64_t, std::uint64_t>>& calls) {
    ASSERT_GE(calls.size(), 2u);  // at least one report before the end (9 MiB decoded)
    for (std::size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(calls[i].second, size);
      EXPECT_LE(calls[i].first, size);
      if (i > 0) {
        EXPECT_GE(calls[i].first, calls[i - 1].first);
      }
    }
    EXPECT_EQ(calls.back().first, size);
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> listed, spooled;
  ASSERT_TRUE(
      inspect_archive(real, std::nullopt, [&](std::uint64_t d, std::uint64_t t) { listed.emplace_back(d, t); }));
  check(listed);
  fs::path spool = fs::temp_directory_path() / ("spool-test-" + std::to_string(::getpid()));
  auto fsys = make_real_filesystem();
  ASSERT_TRUE(inspect_and_spool(real, std::nullopt, *fsys, spool,
                                [&](std::uint64_t d, std::uint64_t t) { spooled.emplace_back(d, t); }));
  check(spooled);
  ASSERT_TRUE(remove_spool(*fsys, spool));
}

// Issue 19: the first bytes say what a file is when its name says otherwise.
TEST(ArchiveSniff, TheFirstBytesSayWhatTheFileIs) {
  EXPECT_EQ(content_kind(std::string("PK\x03\x04rest", 8)), "a zip archive");
  EXPECT_EQ(content_kind(std::string("\3757zXZ\x00\x00", 7)), "an xz-compressed file");
  EXPECT_EQ(content_kind("\x1F\x8B\x08"), "a gzip-compressed file");
  EXPECT_NE(content_kind("  <!DOCTYPE html><html>").find("a web page"), std::string::npos);
  std::string tar(512, '\0');
  tar.replace(257, 5, "ustar");
  EXPECT_EQ(content_kind(tar), "an uncompressed tar archive");
  EXPECT_EQ(content_kind("garbage"), "");
  EXPECT_EQ(content_kind(""), "");
}

TEST(ArchiveSniff, OnlyBytesTheReaderCannotReadAreRefusedWithWhatTheyAre) {
  std::string zip("PK\x03\x04", 4), xz("\3757zXZ\x00", 6);
  auto renamed = check_content_matches(zip, Container::TarXz, "x.tar.xz");
  ASSERT_FALSE(renamed);
  EXPECT_EQ(renamed.error().code, ErrorCode::BadArchive);
  EXPECT_NE(renamed.error().message.find("'x.tar.xz' is named as an xz-compressed file but is a zip archive"),
            std::string::npos)
      << renamed.error().message;
  EXPECT_NE(renamed.error().message.find("(.zip)"), std::string::npos) << renamed.error().message;
  EXPECT_FALSE(check_content_matches(xz, Container::Zip, "x.zip"));
  EXPECT_TRUE(check_content_matches(zip, Container::Zip, "x.zip"));
  EXPECT_TRUE(check_content_matches(xz, Container::TarXz, "x.tar.xz"));
  EXPECT_TRUE(check_content_matches("\x1F\x8B\x08", Container::TarXz, "x.tar.xz"));  // libarchive reads it
  EXPECT_TRUE(check_content_matches("garbage", Container::TarXz, "x.tar.xz"));       // the reader says what is wrong
  auto page = check_content_matches("<html><body>403</body></html>", Container::Zip, "x.zip");
  ASSERT_FALSE(page);
  EXPECT_NE(page.error().message.find("download the cuDNN archive again"), std::string::npos) << page.error().message;
}

TEST(ArchiveSniff, TheArchiveArgumentLosesTrailingSlashesAndIsNeverADirectory) {
  char tmpl[] = "/tmp/cudnn-sniff-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  fs::path dir(tmpl);
  auto a = archive_argument(dir / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz/");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->filename(), "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz");
  auto d = archive_argument(dir.string() + "//");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code, ErrorCode::Usage);
  EXPECT_NE(d.error().message.find("is a directory: give the cuDNN archive itself"), std::string::npos);
  fs::remove_all(dir);
}
