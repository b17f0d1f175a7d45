#!/usr/bin/env bash
# The Windows exe must run on a bare Windows: it may import only DLLs every supported Windows has
# (no zlib1.dll, libzip.dll, libstdc++-6.dll or libwinpthread-1.dll next to it).
# Usage: scripts/check-windows-imports.sh path/to/cudnn-install.exe
set -euo pipefail
exe=$1
allowed='^(kernel32|advapi32|user32|bcrypt|version|rstrtmgr|winhttp|shell32|ole32|msvcrt|ucrtbase|api-ms-win-crt-[a-z0-9-]+)\.dll$'
imports=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^\s*DLL Name: //p')
[ -n "$imports" ] || { echo "no import table read from $exe" >&2; exit 1; }
bad=$(printf '%s\n' "$imports" | tr '[:upper:]' '[:lower:]' | grep -Ev "$allowed" || true)
if [ -n "$bad" ]; then
  echo "$exe imports DLLs a Windows machine does not have:" >&2
  printf '%s\n' "$bad" | sed 's/^/  /' >&2
  exit 1
fi
mapfile -t import_list <<< "$imports"
echo "$exe imports only system DLLs: $(printf '%s ' "${import_list[@]}")"
