// What a path holds: an archive entry or a file on disk (archive_reader.hpp, filesystem.hpp).
#pragma once

namespace cudnn_install {

enum class EntryType { File, Directory, Symlink, Hardlink, Device, Fifo, Other };

}  // namespace cudnn_install
