// Applying a plan: journal "begin" -> directories -> stage every new file beside its target ->
// "staged" -> swap (old file to backup/, new file into place, by rename) -> "commit" -> history.
#include <spdlog/spdlog.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/txn.hpp"
#include "free_space.hpp"
#include "txn_paths.hpp"
#include "txn_steps.hpp"
#include "txn_validate.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

// One journal step plus what the plan knows about it.
struct Work {
  JournalStep step;
  const Step* planned = nullptr;
};

// <sequence>-<UTC time>-<PID>: the sequence orders transactions; the time is for people only.
std::string new_txn_id(std::uint64_t sequence, std::chrono::system_clock::time_point now) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm = util::utc_time(secs);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%06llu-%04d%02d%02dT%02d%02d%02d.%03dZ-%ld",
                static_cast<unsigned long long>(sequence), tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, static_cast<int>(((ms % 1000) + 1000) % 1000), util::process_id());
  return buf;
}

std::string iso_time(std::chrono::system_clock::time_point now) {
  std::tm tm = util::utc_time(std::chrono::system_clock::to_time_t(now));
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<Work> plan_work(const Plan& plan, const std::string& id) {
  std::vector<Work> work;
  for (const auto& s : plan.steps) {
    if (s.action != Action::Create && s.action != Action::Overwrite && s.action != Action::Remove) continue;
    std::size_t n = work.size();
    Work w;
    w.planned = &s;
    w.step.target = s.target;
    w.step.kind = s.action == Action::Remove ? JournalStep::Kind::Remove : JournalStep::Kind::Place;
    if (w.step.kind == JournalStep::Kind::Place) w.step.temp = txn_paths::temp_for(s.target, id, n);
    if (s.action != Action::Create) w.step.backup = txn_paths::backup_for_target(s.target, id, n);
    work.push_back(std::move(w));
  }
  return work;
}

BeginRecord make_begin(const Plan& plan, const std::vector<Work>& work, const std::string& id,
                       std::chrono::system_clock::time_point now, const ApplyOptions& options) {
  BeginRecord b;
  b.id = id;
  b.operation = options.operation;
  b.archive = plan.archive_name;
  b.sha256 = options.sha256;
  b.cudnn_version = plan.cudnn_version;
  b.time = iso_time(now);
  b.dirs_created = plan.dirs_to_create;
  for (const auto& w : work) b.steps.push_back(w.step);
  b.env_edit = plan.env_edit;
  b.env_entry = plan.env_entry;
  return b;
}

std::set<fs::path> parent_dirs(const fs::path& root, const std::vector<Work>& work) {
  std::set<fs::path> dirs;
  for (const auto& w : work) dirs.insert((root / w.step.target).parent_path());
  return dirs;
}

Result<void> sync_all(FileSystem& fs, const std::set<fs::path>& dirs) {
  for (const auto& d : dirs) TRY(fs.sync_dir(d));
  return {};
}

class Stager {
 public:
  Stager(FileSystem& fs, const fs::path& root, std::vector<Work>& work, const ApplyOptions& options)
      : fs_(fs), root_(root), options_(options) {
    for (auto& w : work)
      if (w.step.kind == JournalStep::Kind::Place && w.planned->entry.empty()) {
        generated_.push_back(&w);
      } else if (w.step.kind == JournalStep::Kind::Place) {
        by_entry_[w.planned->entry] = &w;
        progress_.files_total++;
        progress_.bytes_total += w.planned->size;
      }
  }

  const std::map<std::string, FileStamp>& written() const { return written_; }
  const PlacedFiles& placed() const { return placed_; }

  Result<void> run(const ArchiveInfo& archive) {
    for (const Work* w : generated_) {
      TRY(stop_if_interrupted(options_.interrupts, Checkpoint::Stage));
      TRY_ASSIGN(auto file, fs_.create_new(root_ / w->step.temp, w->planned->mode));
      TRY((file)->write(w->planned->content));
      TRY((file)->sync_and_close());
      const std::string& c = w->planned->content;
      wrote(*w, static_cast<std::uint32_t>(
                    crc32(0, reinterpret_cast<const Bytef*>(c.data()), static_cast<uInt>(c.size()))));
    }
    TRY(take_spooled(archive));
    if (staged_ == by_entry_.size()) return {};  // nothing (more) to read from the archive
    TRY_ASSIGN(auto reader, open_archive(archive.path, archive.container));
    auto r = (reader)->extract_parallel([&](const RawEntry& e) { return visit(e); }, threads());
    if (!r) return r;
    if (staged_ != by_entry_.size())
      return fail(ErrorCode::BadArchive, "the archive changed while it was being installed; run again");
    return {};
  }

 private:
  // Entries copied out of the archive while it was inspected: moved into place, and symlinks made,
  // without decoding the archive again (their CRC-32 was taken from those very bytes).
  Result<void> take_spooled(const ArchiveInfo& archive) {
    if (archive.spooled.empty()) return {};
    for (const auto& e : archive.entries) {
      auto it = by_entry_.find(e.raw.name);
      if (it == by_entry_.end()) continue;
      TRY(stop_if_interrupted(options_.interrupts, Checkpoint::Stage));
      auto spooled = archive.spooled.find(e.raw.name);
      if (e.raw.type == EntryType::Symlink) {
        TRY(fs_.make_symlink(e.raw.link_target, root_ / it->second->step.temp));
        linked(*it->second, e.raw.link_target);
      } else if (spooled != archive.spooled.end()) {
        TRY(fs_.rename(spooled->second, root_ / it->second->step.temp, RenameMode::NoReplace));
        if (e.raw.crc32) wrote(*it->second, *e.raw.crc32);  // taken from the very bytes spooled
      } else {
        continue;
      }
      taken_.insert(e.raw.name);
      finished_one(*it->second, e.raw.size);
    }
    return {};
  }

  unsigned threads() const {
    if (options_.extract_threads > 0) return options_.extract_threads;
    return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxExtractThreads);
  }

  // One new file being written: its sink may run on a worker thread of the reader.
  struct EntryWriter {
    std::unique_ptr<OutputFile> out;
    uLong crc = crc32(0, nullptr, 0);
  };

  Result<std::optional<ChunkSink>> visit(const RawEntry& e) {
    auto it = by_entry_.find(e.name);
    if (it == by_entry_.end() || taken_.contains(e.name)) return std::optional<ChunkSink>();
    TRY(stop_if_interrupted(options_.interrupts, Checkpoint::Stage));
    const Work& w = *it->second;
    if (e.type == EntryType::Symlink) {
      TRY(fs_.make_symlink(e.link_target, root_ / w.step.temp));
      linked(w, e.link_target);
      finished_one(w, 0);
      return std::optional<ChunkSink>();
    }
    TRY_ASSIGN(auto file, fs_.create_new(root_ / w.step.temp, w.planned->mode));  // the plan's, never the archive's
    auto writer = std::make_shared<EntryWriter>(std::move(file));
    return std::optional<ChunkSink>([this, &w, writer,
                                     expected = e.crc32](std::span<const char> chunk) -> Result<void> {
      TRY(stop_if_interrupted(options_.interrupts, Checkpoint::Stage));  // between chunks, on any thread
      if (!chunk.empty()) {
        writer->crc = crc32(writer->crc, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(chunk.size()));
        report(w, chunk.size());
        return writer->out->write(chunk);
      }
      if (expected && *expected != static_cast<std::uint32_t>(writer->crc))
        return fail(ErrorCode::BadArchive, "entry '" + w.planned->entry + "' changed since it was checked",
                    w.step.target);
      auto closed = writer->out->sync_and_close();
      writer->out.reset();
      if (!closed) return closed;
      wrote(w, static_cast<std::uint32_t>(writer->crc));
      finished_one(w, 0);
      return closed;
    });
  }

  // Remembers what a staged file holds (for the commit record), with its identity now that it is
  // written and closed (for the stamps).
  void wrote(const Work& w, std::uint32_t crc) {
    auto identity = fs_.identity(root_ / w.step.temp);
    std::lock_guard lock(progress_mutex_);
    placed_[w.step.target] = PlacedFile{EntryType::File, w.planned->size, crc, {}};
    if (identity) written_[w.step.target] = FileStamp{*identity, crc};
  }
  void linked(const Work& w, const std::string& link_target) {
    std::lock_guard lock(progress_mutex_);
    placed_[w.step.target] = PlacedFile{EntryType::Symlink, 0, 0, link_target};
  }

  // Progress is shared by the reader's worker threads.
  void report(const Work& w, std::uint64_t bytes) {
    std::lock_guard lock(progress_mutex_);
    progress_.current = w.step.target;
    progress_.bytes_done += bytes;
    if (options_.progress) options_.progress(progress_);
  }
  void finished_one(const Work& w, std::uint64_t bytes) {
    {
      std::lock_guard lock(progress_mutex_);
      ++staged_;
      ++progress_.files_done;
    }
    report(w, bytes);
  }

  FileSystem& fs_;
  const fs::path& root_;
  const ApplyOptions& options_;
  std::map<std::string, Work*> by_entry_;
  std::vector<const Work*> generated_;  // files the tool writes itself
  std::set<std::string> taken_;         // entries staged from the spool
  std::mutex progress_mutex_;           // for progress_, staged_, written_ and placed_
  std::map<std::string, FileStamp> written_;
  PlacedFiles placed_;
  std::size_t staged_ = 0;
  Progress progress_;
};

Result<void> make_dirs(FileSystem& fs, const fs::path& root, const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    TRY(fs.make_dir(root / d));
    TRY(fs.sync_dir((root / d).parent_path()));
  }
  return {};
}

// Every old file must be replaceable before the first one moves, so that a file in use is found
// before anything changed (and checked again by each rename, for a program started meanwhile).
Result<void> check_replaceable(FileSystem& fs, const fs::path& root, const std::vector<Work>& work, InUse in_use) {
  if (in_use == InUse::RenameAside) return {};
  for (const auto& w : work)
    if (w.step.had_old()) TRY(fs.check_not_in_use(root / w.step.target));
  return {};
}

// The file to back up must be the one the plan saw (and the user confirmed): one changed since
// (another program wrote it while the prompt waited) aborts the install, which is rolled back.
// The rename that follows moves whatever is there into the backup, so nothing is lost either way.
Result<void> check_unchanged(FileSystem& fs, const fs::path& path, const std::optional<ExistingFile>& old) {
  if (!old) return {};
  TRY_ASSIGN(auto now, fs.stat(path));
  bool same = now && now->type == old->type;
  if (same && old->type == EntryType::Symlink) same = now->link_target == old->link_target;
  if (same && old->type == EntryType::File && old->identity) same = fs.identity(path) == old->identity;
  if (same) return {};
  return fail(ErrorCode::Conflict,
              "'" + path.string() + "' " + (now ? "changed" : "disappeared") +
                  " after cudnn-install looked at it (another program " + (now ? "wrote" : "removed") +
                  " it), so it was not replaced. Run the install again: it plans with what is there now.",
              path.string());
}

Result<void> place(FileSystem& fs, const fs::path& temp, const fs::path& target) {
  auto moved = fs.rename(temp, target, RenameMode::NoReplace);
  if (moved || moved.error().code != ErrorCode::Conflict) return moved;
  return fail(ErrorCode::Conflict,
              "'" + target.string() +
                  "' appeared after cudnn-install planned the install (another program created it), so it was "
                  "not replaced and is left exactly as it is. Find out what put it there; to install cuDNN's file "
                  "there, move it away and run the install again.",
              target.string());
}

// A create's target (and every backup name) must still be free: NoReplace leaves a file that
// appeared there since the plan untouched, and the install fails and is rolled back.
Result<void> swap_into_place(FileSystem& fs, const fs::path& root, const std::vector<Work>& work,
                             const ApplyOptions& options) {
  TRY(check_replaceable(fs, root, work, options.in_use));
  for (const auto& w : work) {
    TRY(stop_if_interrupted(options.interrupts, Checkpoint::Swap));
    if (w.step.had_old()) TRY(check_unchanged(fs, root / w.step.target, w.planned->old));
    if (w.step.had_old()) TRY(fs.rename(root / w.step.target, root / w.step.backup, RenameMode::NoReplace));
    if (w.step.kind == JournalStep::Kind::Place) TRY(place(fs, root / w.step.temp, root / w.step.target));
    spdlog::info("{} {}",
                 w.step.kind == JournalStep::Kind::Place ? (w.step.had_old() ? "replaced" : "created") : "removed",
                 w.step.target);
  }
  return {};
}

// Everything between the durable "begin" record and the durable "commit" record.
Result<void> run_phases(FileSystem& fs, const fs::path& root, const ArchiveInfo& archive, std::vector<Work>& work,
                        const BeginRecord& begin, const ApplyOptions& options, TxnOutcome& outcome, SwapPhase& phase) {
  fs::path backups = root / txn_paths::backup_dir(begin.id);
  TRY(fs.make_dir(backups));
  TRY(make_dirs(fs, root, begin.dirs_created));
  Stager stager(fs, root, work, options);
  TRY(stager.run(archive));
  outcome.written = stager.written();
  PlacedFiles placed = stager.placed();
  auto dirs = parent_dirs(root, work);
  TRY(sync_all(fs, dirs));
  TRY(stop_if_interrupted(options.interrupts, Checkpoint::Stage));
  phase = SwapPhase::MayHaveStarted;  // from the "staged" record on, as recovery sees it
  TRY(fs.append_durable(txn_paths::journal(root), marker_record("staged")));
  TRY(swap_into_place(fs, root, work, options));
  dirs.insert(backups);
  TRY(sync_all(fs, dirs));
  if (begin.env_edit) TRY(apply_env_edit(options.env, *begin.env_edit));
  TRY(stop_if_interrupted(options.interrupts, Checkpoint::Commit));  // the last moment to stop
  return fs.append_durable(txn_paths::journal(root), commit_record(placed));
}

Result<void> write_begin(FileSystem& fs, const fs::path& root, const BeginRecord& begin) {
  for (const fs::path& dir : {state_dir(root), state_dir(root) / "backup", state_dir(root) / "history"}) {
    TRY_ASSIGN(bool there, state_subdir(fs, dir));  // a symlink here would send backups elsewhere
    if (!there) TRY(fs.make_dir(dir));
  }
  TRY(fs.append_durable(txn_paths::journal(root), begin_record(begin)));
  return fs.sync_dir(state_dir(root));
}

// Every file staged from the archive (or generated) is new data on its target's filesystem; a
// spooled one is only renamed. Checked before the "begin" record: a full disk changes nothing.
Result<void> check_space(FileSystem& fs, const fs::path& root, const ArchiveInfo& archive,
                         const std::vector<Work>& work) {
  SpaceNeeded need(fs);
  for (const auto& w : work)
    if (w.step.kind == JournalStep::Kind::Place && w.planned->type == EntryType::File &&
        !archive.spooled.contains(w.planned->entry))
      need.add(root / w.step.temp, w.planned->size);
  return need.check();
}

std::unexpected<Error> restored_after(const Error& cause, Result<void> restored) {
  if (restored)  // the cause's own code: a file in use is a Conflict, a disk error is Io
    return fail(cause.code, cause.message + "\nThe install was rolled back: the toolkit is exactly as it was before.",
                cause.subject);
  return fail(ErrorCode::Io,
              cause.message + "\nRestoring the toolkit failed too (" + restored.error().message +
                  "). Fix that, then roll back to finish restoring it.",
              cause.subject);
}

}  // namespace

Result<TxnOutcome> apply_plan(FileSystem& fs, const fs::path& root, const ArchiveInfo& archive, const Plan& plan,
                              const ApplyOptions& options) {
  if (plan.env_edit && !options.env)
    return fail(ErrorCode::Io, "the plan changes " + plan.env_edit->name + " in " + to_string(plan.env_edit->scope) +
                                   ", which this build of cudnn-install cannot reach: nothing was changed");
  auto sequence = next_sequence(fs, root);
  if (!sequence) return std::unexpected(sequence.error());
  auto now = options.clock ? options.clock() : std::chrono::system_clock::now();
  TxnOutcome outcome;
  outcome.id = new_txn_id(*sequence, now);
  auto work = plan_work(plan, outcome.id);
  BeginRecord begin = make_begin(plan, work, outcome.id, now, options);
  if (auto r = check_space(fs, root, archive, work); !r)
    return fail(r.error().code, r.error().message + "\nNothing was changed.", r.error().subject);
  if (auto r = stop_if_interrupted(options.interrupts, Checkpoint::Start); !r)
    return fail(r.error().code, r.error().message + ": nothing was changed, the toolkit is as it was before.");
  if (auto r = write_begin(fs, root, begin); !r) {
    (void)fs.remove(txn_paths::journal(root));
    return fail(ErrorCode::Io, r.error().message + "\nThe install did not start: nothing was changed.",
                r.error().subject);
  }
  auto phase = SwapPhase::NotStarted;
  if (auto r = run_phases(fs, root, archive, work, begin, options, outcome, phase); !r) {
    auto restored = finish_undo(fs, root, begin, options.env, phase);
    if (restored) restored = fs.remove(txn_paths::journal(root));
    return restored_after(r.error(), restored);
  }
  // Committed: the install stands. Filing it in history can be finished by the next run.
  if (auto r = file_committed(fs, root, begin.id); !r)
    spdlog::warn("installed, but filing the transaction failed ({}); the next run of cudnn-install finishes it",
                 r.error().message);
  for (const auto& w : work) {
    if (w.step.kind == JournalStep::Kind::Remove) {
      ++outcome.files_removed;
    } else {
      ++outcome.files_written;
      outcome.bytes_written += w.planned->size;
    }
  }
  outcome.files_unchanged = plan.count(Action::SkipIdentical);
  return outcome;
}

}  // namespace cudnn_install
