// make_plan is pure: archives, toolkits and trees are built in memory.
#include <gtest/gtest.h>

#include "archive_inspect.hpp"
#include "cudnn_install/plan.hpp"

using namespace cudnn_install;

namespace {

Entry entry(std::string rel, std::uint64_t size = 10, std::uint32_t crc = 1) {
  Entry e;
  e.raw = RawEntry{"top/" + rel, EntryType::File, size, 0644, {}, crc};
  e.rel = rel;
  e.file_name = rel.substr(rel.rfind('/') + 1);
  e.role = classify(rel);
  return e;
}

Entry symlink_entry(std::string rel, std::string target) {
  Entry e = entry(rel, 0);
  e.raw.type = EntryType::Symlink;
  e.raw.link_target = std::move(target);
  e.raw.crc32.reset();
  return e;
}

ArchiveInfo linux_archive(int major, int minor, std::vector<Entry> entries) {
  ArchiveInfo a;
  a.name = parse_archive_name("cudnn-linux-x86_64-" + std::to_string(major) + "." + std::to_string(minor) +
                              ".0.1_cuda13-archive.tar.xz")
               .value();
  a.os = TargetOs::Linux;
  a.header_version = CudnnVersion{major, minor, 0, std::nullopt};
  a.entries = std::move(entries);
  return a;
}

Toolkit linux_toolkit(int cuda_major = 13) {
  Toolkit tk;
  tk.root = "/sandbox/cuda";
  tk.version = CudaVersion{cuda_major, 0, std::nullopt};
  tk.os = TargetOs::Linux;
  tk.lib_dir = "lib";
  return tk;
}

ExistingFile existing(std::uint64_t size, std::uint32_t crc) {
  return ExistingFile{EntryType::File, size, 0644, {}, crc, {}};
}

const Step& step_for(const Plan& plan, const std::string& target) {
  for (const auto& s : plan.steps)
    if (s.target == target) return s;
  throw std::runtime_error("no step for " + target);
}

}  // namespace

TEST(Plan, ActionsForEachKindOfTarget) {
  struct Case {
    const char* what;
    std::optional<ExistingFile> before;
    Action expected;
  } cases[] = {
      {"absent", std::nullopt, Action::Create},
      {"same size and crc", existing(10, 1), Action::SkipIdentical},
      {"same size, other crc", existing(10, 2), Action::Overwrite},
      {"other size", existing(11, 1), Action::Overwrite},
      {"size matches but crc unknown", ExistingFile{EntryType::File, 10, 0644, {}, std::nullopt, {}},
       Action::Overwrite},
      {"a symlink there", ExistingFile{EntryType::Symlink, 0, 0, "x", std::nullopt, {}}, Action::Overwrite},
  };
  for (const auto& c : cases) {
    TreeState tree;
    if (c.before) tree.targets["lib/libcudnn.so.9.1.0"] = *c.before;
    auto plan = make_plan(linux_archive(9, 1, {entry("lib/libcudnn.so.9.1.0")}), linux_toolkit(), tree, {});
    ASSERT_TRUE(plan) << c.what;
    EXPECT_EQ(step_for(*plan, "lib/libcudnn.so.9.1.0").action, c.expected) << c.what;
  }
}

TEST(Plan, SymlinksCompareByTarget) {
  TreeState tree;
  tree.targets["lib/libcudnn.so.9"] = ExistingFile{EntryType::Symlink, 0, 0, "libcudnn.so.9.1.0", std::nullopt, {}};
  tree.targets["lib/libcudnn.so"] = ExistingFile{EntryType::Symlink, 0, 0, "libcudnn.so.8", std::nullopt, {}};
  auto plan = make_plan(linux_archive(9, 1,
                                      {symlink_entry("lib/libcudnn.so.9", "libcudnn.so.9.1.0"),
                                       symlink_entry("lib/libcudnn.so", "libcudnn.so.9")}),
                        linux_toolkit(), tree, {});
  ASSERT_TRUE(plan);
  EXPECT_EQ(step_for(*plan, "lib/libcudnn.so.9").action, Action::SkipIdentical);
  EXPECT_EQ(step_for(*plan, "lib/libcudnn.so").action, Action::Overwrite);
  EXPECT_EQ(plan->bytes_to_write, 0u);
}

TEST(Plan, StaleFilesOfTheSameMajorAreRemovedOthersKept) {
  TreeState tree;
  tree.cudnn_files["lib/libcudnn.so.9.0.0"] = existing(5, 5);        // older 9.x real file
  tree.cudnn_files["lib/libcudnn_ops_infer.so.8"] = existing(5, 5);  // cuDNN 8 sublib
  tree.cudnn_files["include/cudnn_ops_infer.h"] = existing(5, 5);    // cuDNN 8 header
  tree.cudnn_files["lib/libcudnn.so.9.1.0"] = existing(10, 1);       // part of the new set
  tree.targets["lib/libcudnn.so.9.1.0"] = existing(10, 1);
  auto plan = make_plan(linux_archive(9, 1, {entry("lib/libcudnn.so.9.1.0"), entry("include/cudnn.h")}),
                        linux_toolkit(), tree, {});
  ASSERT_TRUE(plan);
  EXPECT_EQ(step_for(*plan, "lib/libcudnn.so.9.0.0").action, Action::Remove);
  EXPECT_EQ(step_for(*plan, "lib/libcudnn_ops_infer.so.8").action, Action::KeepOther);
  EXPECT_NE(step_for(*plan, "lib/libcudnn_ops_infer.so.8").reason.find("cuDNN 8"), std::string::npos);
  EXPECT_EQ(step_for(*plan, "include/cudnn_ops_infer.h").action, Action::Remove);
  EXPECT_EQ(step_for(*plan, "lib/libcudnn.so.9.1.0").action, Action::SkipIdentical);
  EXPECT_EQ(plan->steps.size(), 5u);
  PlanOptions keep;
  keep.stale = PlanOptions::StaleFiles::Keep;
  auto kept = make_plan(linux_archive(9, 1, {entry("lib/libcudnn.so.9.1.0")}), linux_toolkit(), tree, keep);
  EXPECT_EQ(step_for(*kept, "lib/libcudnn.so.9.0.0").action, Action::KeepOther);
}

TEST(Plan, RefusesAnotherCudaMajorNamingBoth) {
  auto plan = make_plan(linux_archive(9, 1, {entry("lib/libcudnn.so.9.1.0")}), linux_toolkit(12), {}, {});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, ErrorCode::CudaMismatch);
  EXPECT_NE(plan.error().message.find("CUDA 13"), std::string::npos);
  EXPECT_NE(plan.error().message.find("CUDA 12.0"), std::string::npos);
}

TEST(Plan, RefusesAWindowsArchiveForALinuxToolkit) {
  ArchiveInfo a = linux_archive(9, 1, {entry("bin/cudnn64_9.dll")});
  a.os = TargetOs::Windows;
  auto plan = make_plan(a, linux_toolkit(), {}, {});
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("windows archive"), std::string::npos);
}

TEST(Plan, TwoEntriesForOneTargetAreRefused) {
  auto plan = make_plan(linux_archive(9, 1, {entry("lib/libcudnn.so.9.1.0"), entry("lib64/libcudnn.so.9.1.0")}),
                        linux_toolkit(), {}, {});
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("would both be installed"), std::string::npos);
}

TEST(Plan, WindowsTargetsFollowTheToolkit) {
  ArchiveInfo a;
  a.name = parse_archive_name("cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip").value();
  a.os = TargetOs::Windows;
  a.header_version = CudnnVersion{9, 19, 0, std::nullopt};
  a.entries = {entry("bin/x64/cudnn64_9.dll"), entry("lib/x64/cudnn.lib"), entry("include/cudnn.h"), entry("LICENSE")};
  Toolkit tk;
  tk.root = "C:/CUDA/v13.0";
  tk.version = CudaVersion{13, 0, std::nullopt};
  tk.os = TargetOs::Windows;
  tk.bin_dir = "bin";  // an older toolkit layout: cudart64 in bin\ -> cuDNN DLLs go there too
  TreeState tree;
  tree.cudnn_files["bin/cudnn64_8.dll"] = existing(3, 3);
  tree.missing_dirs = {"lib", "lib/x64"};
  auto plan = make_plan(a, tk, tree, {});
  ASSERT_TRUE(plan);
  EXPECT_EQ(step_for(*plan, "bin/cudnn64_9.dll").action, Action::Create);
  EXPECT_EQ(step_for(*plan, "lib/x64/cudnn.lib").action, Action::Create);
  EXPECT_EQ(step_for(*plan, "bin/cudnn64_8.dll").action, Action::KeepOther);
  EXPECT_EQ(plan->dirs_to_create.size(), 2u);
  EXPECT_EQ(plan->bytes_to_write, 30u);
  EXPECT_TRUE(plan->changes_anything());
}

TEST(Plan, CudnnMajorOfFileNames) {
  EXPECT_EQ(cudnn_major_of("cudnn64_8.dll"), 8);
  EXPECT_EQ(cudnn_major_of("cudnn_ops_infer64_8.dll"), 8);
  EXPECT_EQ(cudnn_major_of("CUDNN64_9.DLL"), 9);
  EXPECT_EQ(cudnn_major_of("libcudnn_ops.so.9.1.0"), 9);
  EXPECT_EQ(cudnn_major_of("libcudnn.so.8"), 8);
  EXPECT_EQ(cudnn_major_of("cudnn_adv64_9.lib"), 9);
  EXPECT_FALSE(cudnn_major_of("libcudnn.so"));
  EXPECT_FALSE(cudnn_major_of("cudnn.h"));
  EXPECT_FALSE(cudnn_major_of("cudnn64_.dll"));
  EXPECT_FALSE(cudnn_major_of("cudnn64_9.dll.bak"));
  EXPECT_FALSE(cudnn_major_of("zlibwapi64_1.dll"));
  EXPECT_FALSE(cudnn_major_of("libcudnn.so.x"));
  EXPECT_EQ(cudnn_major_of("libcudnn_adv.so.9.19.0"), 9);
}

// sbsa (ARM64 server) libraries in an x86_64 toolkit would install and then fail to load.
TEST(Plan, RefusesAnArchiveForAnotherCpuThanTheToolkitHolds) {
  Toolkit x86 = linux_toolkit();
  x86.targets = {"x86_64-linux"};
  ArchiveInfo sbsa = linux_archive(9, 1, {entry("lib/libcudnn.so.9.1.0")});
  sbsa.name = parse_archive_name("cudnn-linux-sbsa-9.1.0.1_cuda13-archive.tar.xz").value();
  auto plan = make_plan(sbsa, x86, {}, {});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, ErrorCode::CudaMismatch);
  EXPECT_NE(plan.error().message.find("linux-sbsa (sbsa-linux)"), std::string::npos) << plan.error().message;
  EXPECT_NE(plan.error().message.find("x86_64-linux only"), std::string::npos) << plan.error().message;
  EXPECT_TRUE(make_plan(linux_archive(9, 1, {entry("lib/libcudnn.so.9.1.0")}), x86, {}, {}));  // x86_64 fits
  x86.targets.clear();  // a tree without targets/: not checked
  EXPECT_TRUE(make_plan(sbsa, x86, {}, {}));
  EXPECT_EQ(linux_target_of("linux-x64"), "x86_64-linux");
  EXPECT_EQ(linux_target_of("linux-aarch64sbsa"), "sbsa-linux");
  EXPECT_EQ(linux_target_of("linux-aarch64"), "aarch64-linux");
  EXPECT_FALSE(linux_target_of("windows-x86_64"));
}

// Issue 18, class 2: the archive's permission bits are a hint only. One rule (installed_mode)
// gives every installed file 0644, or 0755 for an executable or a shared library.
TEST(Plan, InstalledModesFollowOneRuleNeverTheArchivesBits) {
  struct Case {
    const char* name;
    std::uint32_t archive_mode, expected;
  } cases[] = {
      {"include/cudnn.h", 0644, 0644},
      {"include/cudnn.h", 04755, 0755},
      {"include/cudnn.h", 02666, 0644},
      {"include/cudnn.h", 01777, 0755},
      {"include/cudnn.h", 0, 0644},
      {"include/cudnn.h", 0600, 0644},
      {"lib/libcudnn.so.9.1.0", 04777, 0755},
      {"lib/libcudnn.so.9.1.0", 0600, 0755},
      {"lib/libcudnn.so.9.1.0", 0, 0755},
      {"lib/libcudnn_static.a", 06777, 0755},
      {"lib/libcudnn_static.a", 0666, 0644},
      {"bin/cudnn64_9.dll", 0, 0755},
      {"bin/CUDNN64_9.DLL", 02644, 0755},
      {"lib/x64/cudnn.lib", 02666, 0644},
      {"top\\lib\\libcudnn.so.9", 0644, 0755},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(installed_mode(c.name, c.archive_mode), c.expected) << c.name << " " << std::oct << c.archive_mode;
    EXPECT_EQ(installed_mode(c.name, c.archive_mode) & kUnsafeModeBits, 0u) << c.name;
  }
  Entry lib = entry("lib/libcudnn.so.9.1.0"), header = entry("include/cudnn.h");
  lib.raw.mode = 04777;
  header.raw.mode = 02666;
  PlanOptions options;
  options.generated.push_back({"/etc/ld.so.conf.d/cudnn.conf", "/sandbox/cuda/lib\n", std::nullopt});
  auto plan = make_plan(linux_archive(9, 1, {lib, header}), linux_toolkit(), {}, options);
  ASSERT_TRUE(plan);
  EXPECT_EQ(step_for(*plan, "lib/libcudnn.so.9.1.0").mode, 0755u);
  EXPECT_EQ(step_for(*plan, "include/cudnn.h").mode, 0644u);
  EXPECT_EQ(step_for(*plan, "/etc/ld.so.conf.d/cudnn.conf").mode, 0644u);
}

// A file left setuid or world-writable (by an older install, or by hand) is rewritten with the
// right mode even where its bytes are the archive's.
TEST(Plan, AnIdenticalFileWithUnsafeBitsIsRewritten) {
  for (std::uint32_t bad : {04755u, 02755u, 01644u, 0664u, 0646u}) {
    TreeState tree;
    tree.targets["lib/libcudnn.so.9.1.0"] = ExistingFile{EntryType::File, 10, bad, {}, 1, {}};
    auto plan = make_plan(linux_archive(9, 1, {entry("lib/libcudnn.so.9.1.0")}), linux_toolkit(), tree, {});
    ASSERT_TRUE(plan);
    EXPECT_EQ(step_for(*plan, "lib/libcudnn.so.9.1.0").action, Action::Overwrite) << std::oct << bad;
    EXPECT_EQ(step_for(*plan, "lib/libcudnn.so.9.1.0").reason, "replaces a file with unsafe permissions");
  }
}

// Issue 18, class 1: a name or path longer than the target filesystem holds is refused by the plan
// (dry run included), before anything is written; the limits are the ones scan_tree asked for.
TEST(Plan, NamesAndPathsTheFilesystemCannotHoldAreRefused) {
  std::string long_name = "libcudnn_" + std::string(250, 'x') + ".so.9";  // 264 bytes
  TreeState tree;
  tree.name_limits["lib"] = NameLimits{255, 4096};
  auto refused = make_plan(linux_archive(9, 1, {entry("lib/" + long_name)}), linux_toolkit(), tree, {});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::UnsafeEntry);
  EXPECT_NE(refused.error().message.find("is 264 bytes"), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("at most 255 bytes"), std::string::npos) << refused.error().message;

  tree.name_limits["lib"] = NameLimits{1024, 4096};  // a filesystem with longer names takes it
  EXPECT_TRUE(make_plan(linux_archive(9, 1, {entry("lib/" + long_name)}), linux_toolkit(), tree, {}));

  tree.name_limits["lib"] = NameLimits{255, 64};  // "/sandbox/cuda/lib/" and the temporary: too long a path
  auto too_deep = make_plan(linux_archive(9, 1, {entry("lib/libcudnn.so.9.1.0")}), linux_toolkit(), tree, {});
  ASSERT_FALSE(too_deep);
  EXPECT_NE(too_deep.error().message.find("holds paths of at most 63 bytes"), std::string::npos)
      << too_deep.error().message;

  EXPECT_EQ(name_does_not_fit("/sandbox/cuda", "lib/" + std::string(255, 'y'), NameLimits{255, 4096}), std::nullopt);
  EXPECT_NE(name_does_not_fit("/sandbox/cuda", "lib/" + std::string(256, 'y'), NameLimits{255, 4096}), std::nullopt);
}
