// The install's first stage as the CLI runs it: the archive listed and checked, its sha256 checked
// against NVIDIA's values, both remembered per toolkit so that the same file is not read again.
#pragma once
#include <optional>

#include "cli.hpp"
#include "cudnn_install/archive.hpp"
#include "cudnn_install/integrity.hpp"

namespace cudnn_install::cli {

struct Inspected {
  ArchiveInfo archive;
  IntegrityCheck integrity;
  std::optional<FileIdentity> identity;  // of the archive file before it was read
  std::string remembered_at;             // when the sha256 and listing come from an earlier run
};

// Real installs copy a tar.xz's files into the toolkit's spool while listing it (one decoding pass);
// a dry run writes nothing.
enum class Spooling { IntoToolkit, None };

// The toolkit's memo of this very file when there is one, else the archive read (and spooled) now
// with its sha256 computed beside it on the other core.
// A signal seen in `interrupts` while a tar.xz is spooled stops it (ErrorCode::Interrupted, ...).
Result<Inspected> inspect_and_check(const Toolkit& toolkit, FileSystem& fs, Spooling spooling, const Options& o,
                                    Interrupts* interrupts = nullptr);
// After an install (or a run that found nothing to do): remember the file for the next run.
void remember(FileSystem& fs, const Toolkit& toolkit, const Inspected& inspected);

// Removes the spool whatever happens: it holds copies only until the transaction took them.
struct SpoolCleanup {
  FileSystem& fs;
  std::filesystem::path dir;
  ~SpoolCleanup();
};

NameCheck name_check(const Options& o);

}  // namespace cudnn_install::cli
