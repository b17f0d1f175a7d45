#!/usr/bin/env python3
"""Writes the test corpus: small real-layout cuDNN archives of every era (good/) and hostile
archives, one per safety rule (hostile/). expectations.json says what the tool must answer.

Usage: make-test-archives.py OUTDIR
"""
import io, json, lzma, os, sys, tarfile, zipfile

V8_LIBS = ["ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train"]
V9_LIBS = ["adv", "cnn", "engines_precompiled", "engines_runtime_compiled", "graph", "heuristic", "ops"]


def version_header(major, minor, patch, in_cudnn_h=False):
    scale = 10000 if major >= 9 else 1000
    body = (f"#define CUDNN_MAJOR {major}\n#define CUDNN_MINOR {minor}\n#define CUDNN_PATCHLEVEL {patch}\n"
            f"#define CUDNN_VERSION (CUDNN_MAJOR * {scale} + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n")
    return ("/* cudnn.h */\n" if in_cudnn_h else "/* cudnn_version.h */\n") + body


def content(name):
    return (f"fake content of {name}\n" * 3).encode()


class Files:
    """An archive's entries: (name, kind, data_or_target). kind: file | symlink | dir | ..."""
    def __init__(self):
        self.items = []
        self.modes = {}  # name -> permission bits of a file (default 0644)

    def file(self, name, data=None):
        self.items.append((name, "file", data if data is not None else content(name)))
        return self

    def symlink(self, name, target):
        self.items.append((name, "symlink", target))
        return self

    def mode(self, name, bits):
        self.modes[name] = bits
        return self

    def special(self, name, kind, extra=None):
        self.items.append((name, kind, extra))
        return self


def write_tar(path, files, compression="xz"):
    mode = "w:xz" if compression == "xz" else "w:gz"
    with tarfile.open(path, mode, format=tarfile.GNU_FORMAT) as tar:
        for name, kind, data in files.items:
            info = tarfile.TarInfo(name)
            info.mtime = 1700000000
            info.mode = files.modes.get(name, 0o644)
            if kind == "file":
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
                continue
            if kind == "symlink":
                info.type, info.linkname, info.mode = tarfile.SYMTYPE, data, 0o777
            elif kind == "hardlink":
                info.type, info.linkname = tarfile.LNKTYPE, data
            elif kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
            elif kind == "chardev":
                info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
            elif kind == "fifo":
                info.type = tarfile.FIFOTYPE
            tar.addfile(info)


def write_zip(path, files):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, kind, data in files.items:
            info = zipfile.ZipInfo(name, date_time=(2023, 10, 30, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            if kind == "file":
                info.create_system = 3
                info.external_attr = ((0o100000 | files.modes.get(name, 0o644)) << 16)
                z.writestr(info, data)
            elif kind == "symlink":
                info.create_system = 3
                info.external_attr = (0o120777 << 16)
                z.writestr(info, data)
            elif kind == "dir":
                info.external_attr = (0o040755 << 16) | 0x10
                z.writestr(info, b"")


def linux_v9(top, ver, libdir="lib", lib_names=None):
    major, minor, patch = (int(x) for x in ver.split(".")[:3])
    f = Files().file(f"{top}/include/cudnn_version.h", version_header(major, minor, patch).encode())
    for h in ["cudnn.h", "cudnn_adv.h", "cudnn_backend.h", "cudnn_cnn.h", "cudnn_graph.h", "cudnn_ops.h"]:
        f.file(f"{top}/include/{h}")
        f.file(f"{top}/include/{h[:-2]}_v9.h")
    for lib in lib_names if lib_names is not None else ["libcudnn"] + [f"libcudnn_{n}" for n in V9_LIBS]:
        real = f"{lib}.so.{major}.{minor}.{patch}"
        f.file(f"{top}/{libdir}/{real}")
        f.symlink(f"{top}/{libdir}/{lib}.so.{major}", real)
        f.symlink(f"{top}/{libdir}/{lib}.so", f"{lib}.so.{major}")
    return f.file(f"{top}/LICENSE")


def linux_v8(top, ver, libdir, header_dir="include"):
    major, minor, patch = (int(x) for x in ver.split(".")[:3])
    f = Files().file(f"{top}/{header_dir}/cudnn_version.h", version_header(major, minor, patch).encode())
    f.file(f"{top}/{header_dir}/cudnn.h")
    for lib in ["libcudnn"] + [f"libcudnn_{n}" for n in V8_LIBS]:
        real = f"{lib}.so.{major}.{minor}.{patch}"
        f.file(f"{top}/{libdir}/{real}").symlink(f"{top}/{libdir}/{lib}.so.{major}", real)
        f.symlink(f"{top}/{libdir}/{lib}.so", f"{lib}.so.{major}")
    return f


def windows(top, ver, bindir, libdir):
    major, minor, patch = (int(x) for x in ver.split(".")[:3])
    subs = V9_LIBS if major >= 9 else V8_LIBS
    f = Files().file(f"{top}/include/cudnn_version.h", version_header(major, minor, patch).encode())
    f.file(f"{top}/include/cudnn.h")
    f.file(f"{top}/{bindir}/cudnn64_{major}.dll")
    f.file(f"{top}/{libdir}/cudnn.lib")
    for n in subs:
        f.file(f"{top}/{bindir}/cudnn_{n}64_{major}.dll")
        f.file(f"{top}/{libdir}/cudnn_{n}.lib")
    return f.file(f"{top}/LICENSE")


def good_archives():
    """(file name, Files, expected header version, expected role counts) of every era."""
    a = []
    t = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive"
    a.append((t + ".tar.xz", linux_v9(t, "9.19.0"), "9.19.0"))
    t = "cudnn-linux-sbsa-9.19.0.56_cuda13-archive"  # minimal: for tests that repeat an install thousands of times
    a.append((t + ".tar.xz", Files().file(f"{t}/include/cudnn_version.h", version_header(9, 19, 0).encode())
              .file(f"{t}/include/cudnn.h").file(f"{t}/include/cudnn_adv.h").file(f"{t}/lib/libcudnn.so.9.19.0")
              .symlink(f"{t}/lib/libcudnn.so.9", "libcudnn.so.9.19.0").symlink(f"{t}/lib/libcudnn.so", "libcudnn.so.9")
              .file(f"{t}/LICENSE"), "9.19.0"))
    t = "cudnn-windows-x86_64-9.19.0.56_cuda13-archive"
    a.append((t + ".zip", windows(t, "9.19.0", "bin/x64", "lib/x64"), "9.19.0"))
    t = "cudnn-windows-x86_64-9.10.2.21_cuda12-archive"
    a.append((t + ".zip", windows(t, "9.10.2", "bin", "lib/x64"), "9.10.2"))
    t = "cudnn-windows-x86_64-8.9.5.30_cuda12-archive"
    a.append((t + ".zip", windows(t, "8.9.5", "bin", "lib/x64"), "8.9.5"))
    t = "cudnn-linux-sbsa-8.9.7.29_cuda12-archive"
    a.append((t + ".tar.xz", linux_v8(t, "8.9.7", "lib").file(t + "/LICENSE"), "8.9.7"))
    t = "cudnn-windows-x86_64-8.3.2.44_cuda11.5-archive"
    a.append((t + ".zip", windows(t, "8.3.2", "bin", "lib"), "8.3.2"))
    t = "cudnn-linux-x86_64-8.4.1.50_cuda11.6-archive"
    a.append((t + ".tar.xz", linux_v8(t, "8.4.1", "lib"), "8.4.1"))
    a.append(("cudnn-11.4-windows-x64-v8.2.2.26.zip", windows("cuda", "8.2.2", "bin", "lib/x64"), "8.2.2"))
    a.append(("cudnn-10.2-windows10-x64-v7.6.5.32.zip",
              Files().file("cuda/include/cudnn.h", version_header(7, 6, 5, True).encode())
              .file("cuda/bin/cudnn64_7.dll").file("cuda/lib/x64/cudnn.lib")
              .file("cuda/NVIDIA_SLA_cuDNN_Support.txt"), "7.6.5"))
    a.append(("cudnn-10.2-linux-x64-v7.6.5.32.tgz",
              Files().file("cuda/include/cudnn.h", version_header(7, 6, 5, True).encode())
              .file("cuda/lib64/libcudnn.so.7.6.5").symlink("cuda/lib64/libcudnn.so.7", "libcudnn.so.7.6.5")
              .symlink("cuda/lib64/libcudnn.so", "libcudnn.so.7").file("cuda/lib64/libcudnn_static.a")
              .file("cuda/NVIDIA_SLA_cuDNN_Support.txt"), "7.6.5"))
    a.append(("cudnn-10.2-linux-ppc64le-v8.0.1.13.tgz",
              linux_v8("cuda", "8.0.1", "targets/ppc64le-linux/lib", "targets/ppc64le-linux/include"), "8.0.1"))
    a.append(("cudnn-9.1-linux-x64-v7.1.tgz",
              Files().file("cuda/include/cudnn.h", version_header(7, 1, 3, True).encode())
              .file("cuda/lib64/libcudnn.so.7.1.3"), "7.1.3"))
    t = "cudnn-windows-arm64-9.27.0.42_cuda13.4-archive"
    a.append((t + ".zip", windows(t, "9.27.0", "bin/x64", "lib/x64"), "9.27.0"))
    return a


def hostile_archives():
    """(file name, Files or raw bytes, error code, message fragment)."""
    t = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive"
    w = "cudnn-windows-x86_64-9.19.0.56_cuda13-archive"
    base = lambda: linux_v9(t, "9.19.0", lib_names=["libcudnn"])
    wbase = lambda: windows(w, "9.19.0", "bin/x64", "lib/x64")
    tx, zp = t + ".tar.xz", w + ".zip"
    h = [
        ("absolute", tx, base().file("/etc/cron.d/evil"), "unsafe-entry", "absolute path"),
        ("dotdot", tx, base().file(t + "/../../evil.so"), "unsafe-entry", "'..'"),
        ("drive-letter", zp, wbase().file("C:/Windows/System32/evil.dll"), "unsafe-entry", "drive letter"),
        ("backslash-dotdot", zp, wbase().file(w + "\\..\\..\\evil.dll"), "unsafe-entry", "'..'"),
        ("symlink-escape", tx, base().symlink(t + "/lib/libevil.so", "../../../etc/passwd"), "unsafe-entry",
         "leaves its own directory"),
        ("symlink-absolute", tx, base().symlink(t + "/lib/libevil.so", "/etc/passwd"), "unsafe-entry",
         "absolute path"),
        ("through-symlink", tx, base().symlink(t + "/lib/sub", ".").file(t + "/lib/sub/libx.so"),
         "unsafe-entry", "through the symlink"),
        ("hardlink", tx, base().special(t + "/lib/libhard.so", "hardlink", t + "/LICENSE"), "unsafe-entry",
         "hard link"),
        ("device", tx, base().special(t + "/lib/null", "chardev"), "unsafe-entry", "device node"),
        ("fifo", tx, base().special(t + "/lib/pipe", "fifo"), "unsafe-entry", "FIFO"),
        ("duplicate", tx, base().file(t + "/include/cudnn.h"), "unsafe-entry", "appears twice"),
        ("case-collision", zp, wbase().file(w + "/bin/x64/CUDNN64_9.dll"), "unsafe-entry", "only in case"),
        ("dangling-symlink", tx, base().symlink(t + "/lib/libgone.so", "libgone.so.9"), "unsafe-entry",
         "not in the archive"),
        ("symlink-loop", tx, base().symlink(t + "/lib/liba.so", "libb.so").symlink(t + "/lib/libb.so", "liba.so"),
         "unsafe-entry", "loop"),
        ("windows-device", zp, wbase().file(w + "/include/aux.h"), "unsafe-entry", "Windows device 'aux'"),
        ("trailing-dot", zp, wbase().file(w + "/include/cudnn_extra.h."), "unsafe-entry", "dot or a space"),
        ("no-include", tx, Files().file(t + "/lib/libcudnn.so.9.19.0"), "bad-archive", "no include/"),
        ("no-libraries", tx, Files().file(t + "/include/cudnn_version.h", version_header(9, 19, 0).encode()),
         "bad-archive", "no libraries"),
        ("empty-zip", zp, Files(), "bad-archive", "no files"),
        ("version-mismatch", tx, linux_v9(t, "9.18.0", lib_names=["libcudnn"]), "version-mismatch",
         "says 9.18.0"),
        ("no-version-macros", tx, Files().file(t + "/include/cudnn_version.h", b"/* nothing */\n")
         .file(t + "/lib/libcudnn.so.9.19.0"), "bad-archive", "does not define CUDNN_MAJOR"),
    ]
    return h


def tricky_archives():
    """Archives that install, but only as the tool's own rules say: (case, file name, Files, what the
    installed tree must show). "modes": setuid/setgid/sticky/group- and world-writable entries, whose
    installed modes must be 0644, or 0755 for executables and shared libraries."""
    t = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive"
    w = "cudnn-windows-x86_64-9.19.0.56_cuda13-archive"
    linux = (linux_v9(t, "9.19.0", lib_names=["libcudnn"])
             .mode(f"{t}/lib/libcudnn.so.9.19.0", 0o4777).mode(f"{t}/include/cudnn.h", 0o2666)
             .mode(f"{t}/include/cudnn_adv.h", 0o1777).mode(f"{t}/include/cudnn_version.h", 0)
             .mode(f"{t}/include/cudnn_ops.h", 0o6600).mode(f"{t}/include/cudnn_graph.h", 0o0620))
    linux_modes = {"lib/libcudnn.so.9.19.0": 0o755, "include/cudnn.h": 0o644, "include/cudnn_adv.h": 0o755,
                   "include/cudnn_version.h": 0o644, "include/cudnn_ops.h": 0o644, "include/cudnn_graph.h": 0o644,
                   "include/cudnn_cnn.h": 0o644}
    windows_files = (windows(w, "9.19.0", "bin/x64", "lib/x64").mode(f"{w}/bin/x64/cudnn64_9.dll", 0o4777)
                     .mode(f"{w}/lib/x64/cudnn.lib", 0o2666).mode(f"{w}/include/cudnn.h", 0o7755)
                     .mode(f"{w}/include/cudnn_version.h", 0))
    windows_modes = {"bin/x64/cudnn64_9.dll": 0o755, "lib/x64/cudnn.lib": 0o644, "include/cudnn.h": 0o755,
                     "include/cudnn_version.h": 0o644, "bin/x64/cudnn_ops64_9.dll": 0o755}
    # "too-big": a library of 8 MiB of zeros (a few KiB compressed), for a filesystem of a few MiB.
    big = bytes(8 << 20)
    linux_big = linux_v9(t, "9.19.0", lib_names=["libcudnn"])
    linux_big.items = [(n, k, big if n.endswith(".so.9.19.0") else d) for n, k, d in linux_big.items]
    windows_big = windows(w, "9.19.0", "bin/x64", "lib/x64")
    windows_big.items = [(n, k, big if n.endswith("cudnn64_9.dll") else d) for n, k, d in windows_big.items]
    # "long-name": a library whose file name (270 bytes) no common filesystem holds (NAME_MAX 255).
    long_name = linux_v9(t, "9.19.0", lib_names=["libcudnn"]).file(f"{t}/lib/libcudnn_{'x' * 250}.so.9.19.0")
    # "foreign": a cuDNN archive that also carries CUDA's own files (and a cuDNN-named link to one):
    # none of them may be installed; cuDNN's files are.
    foreign = (linux_v9(t, "9.19.0", lib_names=["libcudnn"]).file(f"{t}/lib/libcudart.so.13", b"evil cudart\n")
               .symlink(f"{t}/lib/libcudart.so", "libcudart.so.13").symlink(f"{t}/lib/libcudnn_evil.so", "libcudart.so.13")
               .file(f"{t}/include/cuda.h", b"#define CUDA_VERSION 99000 /* evil */\n"))
    foreign_w = (windows(w, "9.19.0", "bin/x64", "lib/x64").file(f"{w}/bin/x64/cudart64_13.dll", b"MZ evil cudart\n")
                 .file(f"{w}/bin/x64/zlibwapi.dll", b"MZ evil zlib\n").file(f"{w}/include/cuda.h", b"/* evil */\n"))
    not_installed = ["lib/libcudart.so.13", "lib/libcudart.so", "lib/libcudnn_evil.so", "include/cuda.h"]
    return [("long-name", t + ".tar.xz", long_name, {"refused": "holds names of at most"}),
            ("foreign", t + ".tar.xz", foreign, {"not_installed": not_installed, "installed": ["lib/libcudnn.so.9.19.0"]}),
            ("foreign", w + ".zip", foreign_w, {"not_installed": ["bin/x64/cudart64_13.dll", "bin/x64/zlibwapi.dll",
                                                                  "include/cuda.h"], "installed": ["bin/x64/cudnn64_9.dll"]}),
            ("modes", t + ".tar.xz", linux, {"modes": linux_modes}),
            ("modes", w + ".zip", windows_files, {"modes": windows_modes}),
            ("too-big", t + ".tar.xz", linux_big, {"unpacked_bytes": 8 << 20}),
            ("too-big", w + ".zip", windows_big, {"unpacked_bytes": 8 << 20})]


def corrupt_variants(outdir, exp):
    """Byte-level damage: empty file, truncated xz, flipped bytes in zip data, garbage."""
    t = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive"
    w = "cudnn-windows-x86_64-9.19.0.56_cuda13-archive"
    good_tar = os.path.join(outdir, "good", t + ".tar.xz")
    good_zip = os.path.join(outdir, "good", w + ".zip")
    tar_bytes = open(good_tar, "rb").read()
    zip_bytes = bytearray(open(good_zip, "rb").read())
    cases = {
        "zero-bytes": (t + ".tar.xz", b"", "bad-archive"),
        "truncated-xz": (t + ".tar.xz", tar_bytes[: len(tar_bytes) // 2], "bad-archive"),
        "garbage-zip": (w + ".zip", b"PK\x03\x04" + b"\xff" * 200, "bad-archive"),
        "truncated-zip": (w + ".zip", bytes(zip_bytes[: len(zip_bytes) - 30]), "bad-archive"),
    }
    # Flip a byte inside the first entry's compressed data: the CRC check must catch it.
    flipped = bytearray(zip_bytes)
    name_len = int.from_bytes(flipped[26:28], "little")
    extra_len = int.from_bytes(flipped[28:30], "little")
    data_start = 30 + name_len + extra_len
    flipped[data_start + 5] ^= 0x55
    cases["crc-zip"] = (w + ".zip", bytes(flipped), "bad-archive")
    for case, (name, data, code) in cases.items():
        d = os.path.join(outdir, "hostile", case)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, name), "wb").write(data)
        exp["hostile"].append({"case": case, "file": f"hostile/{case}/{name}", "code": code, "contains": ""})


def main():
    outdir = sys.argv[1]
    exp = {"good": [], "hostile": [], "tricky": []}
    os.makedirs(os.path.join(outdir, "good"), exist_ok=True)
    for name, files, version in good_archives():
        path = os.path.join(outdir, "good", name)
        write_zip(path, files) if name.endswith(".zip") else write_tar(path, files, "gz" if name.endswith(".tgz") else "xz")
        exp["good"].append({"file": f"good/{name}", "header_version": version})
    for case, name, files, code, fragment in hostile_archives():
        d = os.path.join(outdir, "hostile", case)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, name)
        write_zip(path, files) if name.endswith(".zip") else write_tar(path, files)
        exp["hostile"].append({"case": case, "file": f"hostile/{case}/{name}", "code": code, "contains": fragment})
    corrupt_variants(outdir, exp)
    for case, name, files, expect in tricky_archives():
        d = os.path.join(outdir, "tricky", case)
        os.makedirs(d, exist_ok=True)
        write_zip(os.path.join(d, name), files) if name.endswith(".zip") else write_tar(os.path.join(d, name), files)
        exp["tricky"].append(dict(case=case, file=f"tricky/{case}/{name}", **expect))
        write_manifest(d)
    for case, name, code in [("renamed", "cudnn.zip", "bad-name"),
                             ("wrong-extension", "cudnn-windows-x86_64-9.19.0.56_cuda13-archive.tar.xz", "bad-name")]:
        d = os.path.join(outdir, "hostile", case)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, name), "wb").write(b"x")
        exp["hostile"].append({"case": case, "file": f"hostile/{case}/{name}", "code": code, "contains": ""})
    json.dump(exp, open(os.path.join(outdir, "expectations.json"), "w"), indent=1)
    write_manifest(os.path.join(outdir, "good"))


def write_manifest(directory):
    """A redistrib-style manifest of the archives in `directory`: these test archives carry real
    NVIDIA names but other bytes, so the tool's integrity check needs their own sha256 (--manifest)."""
    import hashlib
    entries = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith((".zip", ".tar.xz", ".tgz")):
            data = open(os.path.join(directory, name), "rb").read()
            entries[name] = {"relative_path": "local/" + name, "sha256": hashlib.sha256(data).hexdigest(),
                             "size": str(len(data))}
    json.dump({"release_label": "test corpus", "cudnn": entries}, open(os.path.join(directory, "redistrib_local.json"), "w"),
              indent=1)


if __name__ == "__main__":
    main()
