#!/usr/bin/env bash
# The Windows release end to end, as a Windows user would use it, under Wine (cmd only: Wine has
# no PowerShell). A fresh Wine prefix that has never seen the build tree: its Z: drive (the host's
# /) is removed once the files a user would have are copied in.
#   - the release zip unzipped into C:\Tools\cudnn-install;
#   - CUDA toolkits where NVIDIA's installer puts them (C:\Program Files\NVIDIA GPU Computing
#     Toolkit\CUDA\v11.4, v12.3, v13.0) and its system environment in the registry (CUDA_PATH =
#     v12.3, the newest-installed, and CUDA_PATH_Vx_y for each; their bin and libnvvp first on the
#     system Path);
#   - a user Path of over 3,000 characters with %SystemRoot% entries, REG_EXPAND_SZ, in HKCU;
#   - cuDNN zips in the user's Downloads folder: 8.9.5 (bin\, its DLLs loadable stand-ins with
#     NVIDIA's FileVersion), 9.19 for CUDA 13 (bin\x64\) and the old cudnn-11.4-windows-x64-v8.2.2.26
#     (a cuda\ top folder).
# The other toolkits are installed later (verify, status and doctor need --cuda-root where several are).
# Each command is typed into cmd (its standard input, as a paste): the dry run, the install found
# through CUDA_PATH (no --cuda-root), verify, status, doctor (zlibwapi.dll named for 8.9.5), then
# the undo command exactly as the install printed it (the install and the undo at a console, where
# the tool asks before it changes anything, as in a cmd window). Checked: the installed files are the
# archive's, the user Path keeps its type and every byte but the one added entry, and after the
# undo the toolkit (but for the tool's .cudnn-install state directory) and the Path value are
# byte-identical to before.
# Usage: release_e2e_wine.sh RELEASE_ZIP CORPUS_DIR FAKE_CUDNN_DLL START_DESKTOP_EXE [TRANSCRIPT]
# TRANSCRIPT (optional): where to copy the cmd session (the README's Windows transcript).
set -uo pipefail
release_zip=$(realpath "$1") corpus=$(realpath "$2") fake_dll=$(realpath "$3") start_desktop=$(realpath "$4")
transcript_copy=${5:+$(realpath "$5")}
here=$(cd "$(dirname "$0")/.." && pwd)
reg_py=$here/tests/support/reg_file.py
for f in "$release_zip" "$corpus/good/cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip" "$fake_dll" "$start_desktop"; do
  [ -f "$f" ] || { echo "release e2e: missing $f"; exit 1; }
done
work=$(mktemp -d /tmp/cudnn-install-release-e2e.XXXXXX)
export WINEPREFIX=$work/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset WINESERVER WINELOADER
for v in $(env | sed -n 's/^\(CUDA_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
immutable=""
cleanup() {
  [ -n "$immutable" ] && chattr -i "$immutable"
  wineserver -k >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
failures=0 passes=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: $name"; fi
}
echo "release e2e: PowerShell: Wine has none; every command runs in cmd only"
started=$SECONDS

# A fresh prefix, headless, with its own persistent server and desktop process (started with no
# pipe attached: a desktop that inherits ctest's pipe keeps the test from ending).
wine reg add 'HKCU\Software\Wine\Drivers' /v Graphics /d null /f </dev/null >"$work/boot.log" 2>&1
wineserver -w
wineserver -p </dev/null >/dev/null 2>&1
c=$WINEPREFIX/drive_c
[ -d "$c/windows" ] || { echo "release e2e: no Wine prefix was made:"; cat "$work/boot.log"; exit 1; }
cd "$c" || exit 1  # wine's working directory on drive C: (the host's directories lose their drive below)
user=""
for entry in "$c/users"/*; do
  [ -e "$entry" ] && [ "${entry##*/}" != Public ] && { user=${entry##*/}; break; }
done
downloads=$c/users/$user/Downloads
# A new prefix links the user's Desktop, Documents, Downloads, ... to $HOME: files put there would
# land in the real home directory (and outlive the prefix). Real folders inside the prefix instead.
for folder in "$c/users/$user"/*; do
  if [ -L "$folder" ]; then rm "$folder" && mkdir "$folder"; fi
done
mkdir -p "$downloads" "$c/Tools/cudnn-install" "$c/e2e"
cp "$start_desktop" "$c/e2e/start_desktop.exe"
(cd "$c/e2e" && wine 'C:\e2e\start_desktop.exe' </dev/null >/dev/null 2>&1)
echo "release e2e: prefix ready after $((SECONDS - started)) s"

# What the user has: the release zip, unzipped into C:\Tools\cudnn-install, and cuDNN zips.
cp "$release_zip" "$downloads/"
unzip -q "$release_zip" -d "$c/Tools/cudnn-install"
a895=cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip
a919=cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip
a822=cudnn-11.4-windows-x64-v8.2.2.26.zip
# 8.9.5: the corpus's layout with each DLL a loadable stand-in (FileVersion 8.9.5.30, exports
# cudnnGetVersion), so that verify and doctor load them as they would NVIDIA's.
python3 - "$corpus/good/$a895" "$downloads/$a895" "$fake_dll" <<'EOF'
import sys, zipfile
src, dst, dll = sys.argv[1:4]
dll_bytes = open(dll, "rb").read()
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
    for info in zin.infolist():
        data = dll_bytes if info.filename.endswith(".dll") else zin.read(info)
        zout.writestr(info, data)
EOF
cp "$corpus/good/$a919" "$corpus/good/$a822" "$downloads/"
# These stand-ins carry NVIDIA's names but not NVIDIA's bytes: the tool's table of known archives
# would refuse them, so their own sha256 comes in a manifest (--manifest), as for a mirror.
python3 - "$downloads" "$a895" "$a919" "$a822" <<'EOF'
import hashlib, json, os, sys
d, names = sys.argv[1], sys.argv[2:]
entries = {}
for n in names:
    data = open(os.path.join(d, n), "rb").read()
    entries[n] = {"relative_path": "local/" + n, "sha256": hashlib.sha256(data).hexdigest(), "size": str(len(data))}
json.dump({"release_label": "e2e stand-ins", "cudnn": entries}, open(os.path.join(d, "redistrib_local.json"), "w"), indent=1)
EOF

# The toolkits, as NVIDIA's installer lays them out, and its system environment.
cuda_dir='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA'
host_cuda="$c/Program Files/NVIDIA GPU Computing Toolkit/CUDA"
make_toolkit() {  # make_toolkit VERSION DLL_DIR(bin|bin/x64)
  local root="$host_cuda/v${1%.*}" major=${1%%.*}
  mkdir -p "$root/$2" "$root/include" "$root/lib/x64" "$root/libnvvp"
  printf '{"cuda": {"name": "CUDA SDK", "version": "%s"}}\n' "$1" > "$root/version.json"
  printf 'MZ cudart %s\n' "$1" > "$root/$2/cudart64_$major.dll"
  printf '#define CUDA_VERSION %s\n' "$((major * 1000 + $(echo "$1" | cut -d. -f2) * 10))" > "$root/include/cuda.h"
  printf 'cudart import library\n' > "$root/lib/x64/cudart.lib"
}
sysenv='HKEY_LOCAL_MACHINE\System\CurrentControlSet\Control\Session Manager\Environment'
nvidia_env() {  # nvidia_env VERSION...: the CUDA_PATH_Vx_y values NVIDIA's installer sets, as .reg arguments
  for v in "$@"; do printf '%s\0' "$sysenv" "CUDA_PATH_V${v/./_}" REG_SZ "$cuda_dir\\v$v"; done
}
make_toolkit 12.3.2 bin
wine reg export "$sysenv" 'C:\e2e\sysenv.reg' /y </dev/null >>"$work/boot.log" 2>&1
read -r sys_type sys_hex < <(python3 "$reg_py" read "$c/e2e/sysenv.reg" Path)
sys_path=$(python3 -c 'import sys; print(bytes.fromhex(sys.argv[1]).decode("utf-16-le").rstrip("\0"))' "$sys_hex")
sys_type_name=REG_SZ; [ "$sys_type" = 2 ] && sys_type_name=REG_EXPAND_SZ

# A long-used machine's user Path: %SystemRoot% entries, a quoted entry, over 3,000 characters.
user_path='%SystemRoot%\system32;%SystemRoot%;%USERPROFILE%\AppData\Local\Microsoft\WindowsApps;"C:\Tools;Quoted\bin";'
for i in $(seq 0 200); do
  [ ${#user_path} -ge 3000 ] && break
  user_path+="C:\\Program Files\\Vendor$(printf '%b' "\\x$(printf %x $((65 + i % 26)))")$i\\bin;"
done
# NVIDIA's system environment for CUDA 12.3 (CUDA_PATH, CUDA_PATH_V12_3, its bin and libnvvp first
# on the system Path) and the user Path, in one import.
mapfile -d '' env_values < <(nvidia_env 12.3)
python3 "$reg_py" write "$c/e2e/env.reg" "${env_values[@]}" \
  "$sysenv" CUDA_PATH REG_SZ "$cuda_dir\\v12.3" \
  "$sysenv" Path "$sys_type_name" "%CUDA_PATH%\\bin;%CUDA_PATH%\\libnvvp;$sys_path" \
  'HKEY_CURRENT_USER\Environment' Path REG_EXPAND_SZ "$user_path"
wine reg import 'C:\e2e\env.reg' </dev/null >>"$work/boot.log" 2>&1
path_now() { python3 "$reg_py" read "$c/e2e/now.reg" Path; }  # the user Path after the last command typed

# The prefix no longer sees the host: no Z: drive (nothing from the build tree can be found).
rm -f "$WINEPREFIX/dosdevices/z:"
check "no Z: drive" test ! -e "$WINEPREFIX/dosdevices/z:"

snapshot() {  # snapshot DIR: every path, type, size and sha256, but the tool's state directory
  (cd "$1" && find . -path ./.cudnn-install -prune -o -printf '%y %s %p\n' | LC_ALL=C sort &&
   find . -path ./.cudnn-install -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

transcript=$work/transcript.txt
: > "$transcript"
exe='C:\Tools\cudnn-install\cudnn-install.exe'
prompt="C:\\Users\\$user\\Downloads>"
# What cmd runs after each command typed: the command's exit code kept, the user Path exported
# (C:\e2e\now.reg), cmd left with that exit code.
after_command=('set e2e_rc=%ERRORLEVEL%' 'reg export HKCU\Environment C:\e2e\now.reg /y >nul 2>&1' 'exit %e2e_rc%')
# record LINE: LINE as typed at the prompt, its output ($work/out) and exit code ($rc), into the transcript.
record() { { printf '%s %s\n' "$prompt" "$1"; cat "$work/out"; printf '(exit code %s)\n\n' "$rc"; } >> "$transcript"; }
# typed LINE: LINE typed into cmd (reading a pipe) in the Downloads folder; its output in
# $work/out, its exit code in $rc; both in the transcript.
typed() {
  printf '%s\r\n' "$1" "${after_command[@]}" > "$work/stdin"
  rm -f "$c/e2e/now.reg"
  (cd "$downloads" && timeout 120 wine cmd /q < "$work/stdin" > "$work/raw" 2>&1)
  rc=$?
  echo "release e2e: $((SECONDS - started)) s: $1"
  # cmd's banner first, then the command's output (CRLF).
  sed '1{/^Microsoft Windows/d}' "$work/raw" | tr -d '\r' > "$work/out"
  record "$1"
}
# at_console LINE [QUESTION ANSWER]: LINE typed at an interactive cmd on a console (a
# pseudo-terminal: the program can ask, as in a cmd window), ANSWER typed when QUESTION shows;
# the console's text in $work/out, the exit code in $rc, both in the transcript.
at_console() {
  rm -f "$c/e2e/now.reg"
  (cd "$downloads" && timeout 150 python3 "$here/tests/support/console_type.py" 120 "${2:-}" "${3:-}" "$1" \
     "${after_command[@]}" > "$work/raw" 2>&1)
  rc=$?
  echo "release e2e: $((SECONDS - started)) s: $1 (at a console${3:+, answering $3})"
  sed '1{/>/d}' "$work/raw" > "$work/out"  # the prompt line with LINE: record() writes it as typed() does
  record "$1"
}
# printed_undo: the undo command the last install printed, in its cmd form.
printed_undo() {
  local undo
  undo=$(sed -n 's/^  (in cmd: \(.*\))$/\1/p' "$work/out" | head -1)
  [ -n "$undo" ] || undo=$(sed -n 's/^undo with: //p' "$work/out" | head -1)
  printf '%s' "$undo"
}
rc_is() { [ "$rc" = "$1" ] || { echo "exit $rc, expected $1:"; cat "$work/out"; return 1; }; }
says() { grep -qF -- "$1" "$work/out" || { echo "output lacks '$1':"; cat "$work/out"; return 1; }; }

# --- 8.9.5 (bin\) into CUDA 12.3, found through CUDA_PATH -----------------------------------------
tk=$host_cuda/v12.3
tree_before=$(snapshot "$tk")
typed "$exe --version"
check "--version" rc_is 0
release_version=$(basename "$release_zip" | sed -n 's/^cudnn-install-\(.*\)-windows-x86_64\.zip$/\1/p')
check "--version names the release's version" says "cudnn-install $release_version"
path_before=$(path_now)
check "the user Path is REG_EXPAND_SZ of over 3000 characters" \
  test "${path_before%% *}" = 2 -a "${#user_path}" -ge 3000
typed "$exe --dry-run --manifest redistrib_local.json $a895"
check "dry run" rc_is 0
check "dry run: toolkit found through CUDA_PATH" says "found by CUDA_PATH"
check "dry run: the toolkit" says "$cuda_dir\\v12.3"
check "dry run: the Path change" says "PATH     add $cuda_dir\\v12.3\\bin"
check "dry run: nothing written" says "dry run: nothing was written."
check "dry run changed no file" test "$(snapshot "$tk")" = "$tree_before"
check "dry run left the Path" test "$(path_now)" = "$path_before"

# Letters outside ASCII, typed and shown at the console: a path under a folder named in French
# and Chinese reaches the program as typed, and its message shows it as typed (the console
# streams write UTF-16; the C runtime's own conversion showed "JosÃ©").
missing="C:\\Users\\$user\\Downloads\\Téléchargements 下载\\$a895"
at_console "$exe --dry-run \"$missing\""
check "non-ASCII at the console: a missing archive (exit 1)" rc_is 1
check "non-ASCII at the console: the path shown as typed" says "'$missing' does not exist"

# Denied: a toolkit this user may not change says to run from an Administrator PowerShell, and
# changes nothing. (Wine runs as an administrator, and here as root: the toolkit directory is made
# immutable, which root may not write either.)
if chattr +i "$tk" 2>/dev/null; then
  immutable=$tk
  typed "$exe --yes --manifest redistrib_local.json $a895"
  chattr -i "$tk" && immutable=""
  check "denied: an I/O failure (exit 4)" rc_is 4
  check "denied: says to run from an Administrator PowerShell" says "run this from an Administrator PowerShell"
  check "denied: the toolkit unchanged" test "$(snapshot "$tk")" = "$tree_before"
  check "denied: the Path unchanged" test "$(path_now)" = "$path_before"
else
  echo "release e2e: chattr +i is not permitted here: the access-denied message is not tried"
fi

# The install stands, but its verification finds what cuDNN 8.9 on Windows still lacks: zlibwapi.dll
# (exit 5, with the fix: which file, from where, into which directory).
# At a cmd window, as a person does it: the plan, "Proceed? [y/N]", y.
at_console "$exe --manifest redistrib_local.json $a895" "Proceed? [y/N]" y
check "install: asked before changing anything" says "Proceed? [y/N] y"
check "install: the files are in, verify finds zlibwapi.dll missing (exit 5)" rc_is 5
check "install: toolkit found through CUDA_PATH" says "found by CUDA_PATH"
check "install: names zlibwapi.dll" says "zlibwapi.dll"
check "install: says where it goes" says "copy it into $cuda_dir\v12.3\bin"
undo=$(printed_undo)
check "install: an undo command for cmd" test -n "$undo"
installed_ok() {  # installed_ok ZIP TOPDIR TOOLKIT: every file of the archive but LICENSE is in place, byte for byte
  python3 - "$1" "$2" "$3" <<'EOF'
import os, sys, zipfile
archive, top, root = sys.argv[1:4]
bad = 0
with zipfile.ZipFile(archive) as z:
    for i in z.infolist():
        rel = i.filename[len(top) + 1:]
        if i.is_dir() or rel == "LICENSE":
            continue
        target = os.path.join(root, rel)
        if not os.path.isfile(target) or open(target, "rb").read() != z.read(i):
            print("not the archive's:", rel)
            bad += 1
sys.exit(1 if bad else 0)
EOF
}
check "8.9.5: bin, include and lib\\x64 hold the archive's files" \
  installed_ok "$downloads/$a895" "${a895%.zip}" "$tk"
path_after=$(path_now)
check "the Path: REG_EXPAND_SZ kept, every byte but the one added entry" \
  python3 "$reg_py" one-added "$path_before" "$path_after" "$cuda_dir\\v12.3\\bin"

typed "$exe verify"
check "verify without zlibwapi.dll" rc_is 5
check "verify: FileVersion of the DLLs" says "8.9.5.30"
# The user follows the fix: a zlibwapi.dll into the toolkit's bin (any DLL will do for the check,
# which looks for the file); verify passes. It is the user's file, not the tool's: it is taken out
# again (and doctor then names it), so that after the undo the tree compares byte for byte.
cp "$tk/bin/cudnn64_8.dll" "$tk/bin/zlibwapi.dll"
typed "$exe verify"
check "verify with zlibwapi.dll in bin" rc_is 0
check "verify: verified" says "verified: the installed cuDNN is complete and consistent."
rm -f "$tk/bin/zlibwapi.dll"
typed "$exe status"
check "status" rc_is 0
check "status: cuDNN 8.9.5" says "8.9.5"
check "status: the Path entry, REG_EXPAND_SZ" says "REG_EXPAND_SZ"
typed "$exe doctor"
check "doctor names the missing zlibwapi.dll" says "zlibwapi.dll"

# The undo command pasted as printed. From a script (cmd reading a pipe) it cannot ask, so it
# refuses and changes nothing; at a cmd window it shows what it will do and asks: n cancels, y undoes.
typed "$undo"
check "the undo command from a pipe: no terminal to ask, refused" rc_is 1
check "the undo command from a pipe: asks for --yes" says "pass --yes"
check "the undo command from a pipe: nothing changed yet" installed_ok "$downloads/$a895" "${a895%.zip}" "$tk"
at_console "$undo" "Proceed? [y/N]" n
check "the undo command as printed, answered n: cancelled" rc_is 1
check "the undo command as printed, answered n: says so" says "cancelled; nothing was changed"
check "the undo command as printed, answered n: nothing changed" installed_ok "$downloads/$a895" "${a895%.zip}" "$tk"
at_console "$undo" "Proceed? [y/N]" y
check "the undo command as printed, answered y" rc_is 0
check "the undo command as printed: it showed what it undoes" says "roll back transaction"
check "the undo command as printed: then asked" says "Proceed? [y/N] y"
check "after the undo: the toolkit is byte-identical" test "$(snapshot "$tk")" = "$tree_before"
check "after the undo: the Path value is byte-identical" test "$(path_now)" = "$path_before"

# --- 9.19 (bin\x64\) into CUDA 13.0, found through CUDA_PATH_V13_0 -------------------------------
# --- 8.2.2 (cuda\ top folder, cudnn-11.4-...) into CUDA 11.4, found through CUDA_PATH_V11_4 --------
# (their DLLs are text stand-ins that cannot be loaded: --no-verify)
make_toolkit 13.0.0 bin/x64
make_toolkit 11.4.4 bin
mapfile -d '' env_values < <(nvidia_env 13.0 11.4)
python3 "$reg_py" write "$c/e2e/env2.reg" "${env_values[@]}"
wine reg import 'C:\e2e\env2.reg' </dev/null >>"$work/boot.log" 2>&1
for case in "$a919:cudnn-windows-x86_64-9.19.0.56_cuda13-archive:v13.0:bin\\x64:CUDA_PATH_V13_0" \
            "$a822:cuda:v11.4:bin:CUDA_PATH_V11_4"; do
  IFS=: read -r zip top ver bin var <<< "$case"
  tk=$host_cuda/$ver
  tree_before=$(snapshot "$tk")
  typed "$exe --yes --no-verify --manifest redistrib_local.json $zip"
  check "$zip: install" rc_is 0
  check "$zip: found through $var" says "found by $var"
  check "$zip: the archive's files" installed_ok "$downloads/$zip" "$top" "$tk"
  check "$zip: the Path: one entry added" \
    python3 "$reg_py" one-added "$path_before" "$(path_now)" "$cuda_dir\\$ver\\$bin"
  undo=$(printed_undo)
  at_console "$undo" "Proceed? [y/N]" y
  check "$zip: the undo command as printed, answered y" rc_is 0
  check "$zip: after the undo, the toolkit" test "$(snapshot "$tk")" = "$tree_before"
  check "$zip: after the undo, the Path" test "$(path_now)" = "$path_before"
done

[ -n "$transcript_copy" ] && cp "$transcript" "$transcript_copy"
echo "release e2e: $passes checks passed, $failures failed, in $((SECONDS - started)) s (cmd only: no PowerShell under Wine)"
if [ "$failures" != 0 ]; then
  echo "--- transcript"; cat "$transcript"
  exit 1
fi
