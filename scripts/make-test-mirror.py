#!/usr/bin/env python3
"""Writes a mirror tree laid out like NVIDIA's redist directory, for the download tests
(scripts/mirror-server.py serves it):
  redistrib_9.99.0.json  a release the built-in table lacks: cuda12 and cuda13 archives for
                         linux-x86_64 and windows-x86_64, all present (real layouts, small, one
                         file of incompressible bytes so that a transfer can be cut in the middle)
  redistrib_9.98.0.json  a release whose archive is missing (404)
  redistrib_9.10.2.json  a liar: it gives a release the table knows a fake archive's sha256
  redistrib_9.19.0.json  alone, with --real-only, where this machine has cuDNN 9.19 (/usr/local/cuda*):
                         that real cuDNN packed by make-test-archive.sh --full (every sub-library, as NVIDIA
                         ships it: the verify checks them all) as build 9.19.0.99, a release the
                         table lacks (newer than its 9.19.0.56, older than its 9.19.1.2), so that
                         `cudnn-install 9.19` installs, and verifies, real libraries; ~350 MB,
                         ~30 s to pack
                         or, with --windows-stand-in DLL, a windows-x86_64 cuda13 zip of build 9.19.0.99
                         whose every DLL is that loadable stand-in (tests/windows/fake_cudnn.cpp built
                         as 9.19.0.99), so that the Windows build's `cudnn-install 9.19` verifies
                         under Wine what it downloaded
Usage: make-test-mirror.py OUTDIR [--real-only | --windows-stand-in DLL]
       (tests/fetch_e2e.sh, tests/fetch_real_e2e.sh)
"""
import hashlib, importlib.util, json, os, random, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("corpus", os.path.join(here, "make-test-archives.py"))
corpus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(corpus)


def archive(out, platform, version, build, cuda):
    ext = ".zip" if platform.startswith("windows") else ".tar.xz"
    top = f"cudnn-{platform}-{version}.{build}_cuda{cuda}-archive"
    rel = f"cudnn/{platform}/{top}{ext}"
    if platform.startswith("windows"):
        files = corpus.windows(top, version, "bin/x64", "lib/x64")
    else:
        files = corpus.linux_v9(top, version)
    noise = random.Random(f"{top}").randbytes(300_000)  # incompressible: the transfer is long enough to cut
    files.file(f"{top}/include/cudnn_noise_v9.h", noise)
    return rel, publish(out, rel, files)


def publish(out, rel, files):
    """Writes the archive at OUT/REL; returns its manifest entry."""
    path = os.path.join(out, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    (corpus.write_zip if rel.endswith(".zip") else corpus.write_tar)(path, files)
    data = open(path, "rb").read()
    return {"relative_path": rel, "sha256": hashlib.sha256(data).hexdigest(), "size": str(len(data))}


def manifest(out, label, full_version, entries):
    body = {"release_date": "2026-12-01", "release_label": label, "release_product": "cudnn",
            "cudnn": {"name": "NVIDIA CUDA Deep Neural Network library", "license": "cudnn",
                      "version": full_version, "cuda_variant": ["12", "13"]}}
    for platform, cuda, entry in entries:
        body["cudnn"].setdefault(platform, {})[f"cuda{cuda}"] = entry
    json.dump(body, open(os.path.join(out, f"redistrib_{label}.json"), "w"), indent=4)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if "--real-only" in sys.argv[2:]:
        add_real(out)
        return
    if "--windows-stand-in" in sys.argv[2:]:
        add_windows_stand_in(out, sys.argv[sys.argv.index("--windows-stand-in") + 1])
        return
    entries = []
    for platform in ["linux-x86_64", "windows-x86_64"]:
        for cuda in ["12", "13"]:
            entries.append((platform, cuda, archive(out, platform, "9.99.0", 1, cuda)[1]))
    manifest(out, "9.99.0", "9.99.0.1", entries)
    _, fake = archive(out, "linux-x86_64", "9.98.0", 1, "13")
    os.remove(os.path.join(out, fake["relative_path"]))
    manifest(out, "9.98.0", "9.98.0.1", [("linux-x86_64", "13", fake)])
    _, liar = archive(out, "linux-x86_64", "9.10.2", 21, "12")
    manifest(out, "9.10.2", "9.10.2.21", [("linux-x86_64", "12", liar)])


def add_windows_stand_in(out, dll_path):
    dll = open(dll_path, "rb").read()
    top = "cudnn-windows-x86_64-9.19.0.99_cuda13-archive"
    files = corpus.windows(top, "9.19.0", "bin/x64", "lib/x64")
    files.items = [(name, kind, dll if name.endswith(".dll") else data) for name, kind, data in files.items]
    entry = publish(out, f"cudnn/windows-x86_64/{top}.zip", files)
    manifest(out, "9.19.0", "9.19.0.99", [("windows-x86_64", "13", entry)])


def add_real(out):  # exit 77 (a test's skip) where this machine has no cuDNN 9.19
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(["bash", os.path.join(here, "make-test-archive.sh"), "--full", tmp],
                             env={**os.environ, "CUDNN_BUILD": "99"}, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"no real cuDNN packed ({run.returncode}): {run.stderr.strip()}", file=sys.stderr)
            sys.exit(77 if run.returncode == 77 else 1)
        path = run.stdout.strip().splitlines()[0]
        name = os.path.basename(path)
        if "-9.19.0.99_cuda" not in name:
            print(f"the real cuDNN here is {name}, not 9.19: not served", file=sys.stderr)
            sys.exit(77)
        cuda = name.split("_cuda")[1].split("-")[0]
        rel = f"cudnn/linux-x86_64/{name}"
        os.makedirs(os.path.join(out, "cudnn/linux-x86_64"), exist_ok=True)
        os.replace(path, os.path.join(out, rel))
        digest, size = hashlib.sha256(), 0
        with open(os.path.join(out, rel), "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
                size += len(block)
        entry = {"relative_path": rel, "sha256": digest.hexdigest(), "size": str(size)}
        manifest(out, "9.19.0", "9.19.0.99", [("linux-x86_64", cuda, entry)])


if __name__ == "__main__":
    main()
