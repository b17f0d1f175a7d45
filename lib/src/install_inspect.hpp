// The install's first stage (install.hpp): inspecting the archive, and remembering it afterwards.
#pragma once
#include "cudnn_install/install.hpp"

namespace cudnn_install {

// The toolkit's memo of this very file when there is one, else the archive read (and spooled, with
// Spooling::IntoToolkit and a tar.xz) now, with its sha256 computed beside it on the other core.
Result<Inspected> inspect_and_check(const InstallRequest& request, const Toolkit& toolkit,
                                    const InstallServices& services);
// After an install (or a run that found nothing to do): remember the file for the next run. A
// cache: failing to write it is only a warning.
void remember_inspected(FileSystem& fs, const Toolkit& toolkit, const Inspected& inspected);

}  // namespace cudnn_install
