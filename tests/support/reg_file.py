#!/usr/bin/env python3
"""Registry values as bytes, through .reg files (what `reg export` writes and `reg import` reads),
for the Wine end-to-end test of the release (tests/release_e2e_wine.sh).

  reg_file.py write FILE (KEY NAME TYPE TEXT)...
                                             a .reg file that sets each KEY\\NAME: TYPE is REG_SZ
                                             or REG_EXPAND_SZ, TEXT the value (UTF-16LE, one NUL
                                             at the end, as Windows stores it)
  reg_file.py read FILE NAME                 prints "TYPE HEX" of NAME in an exported .reg file
  reg_file.py one-added BEFORE AFTER ENTRY   exit 0 when AFTER ("TYPE HEX", as read prints) is
                                             BEFORE with exactly the PATH entry ENTRY added (its
                                             type and every other byte kept)
"""
import sys

TYPES = {"REG_SZ": 1, "REG_EXPAND_SZ": 2}


def hex_bytes(data):
    return ",".join(f"{b:02x}" for b in data)


def write(path, values):
    body = "Windows Registry Editor Version 5.00\r\n"
    for key, name, type_name, text in values:
        data = (text + "\0").encode("utf-16-le")
        body += f"\r\n[{key}]\r\n\"{name}\"=hex({TYPES[type_name]:x}):{hex_bytes(data)}\r\n"
    open(path, "wb").write(b"\xff\xfe" + body.encode("utf-16-le"))


def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append(s[i + 1])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def read(path, name):
    raw = open(path, "rb").read()
    text = raw.decode("utf-16") if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else raw.decode("utf-8")
    lines = text.replace("\r\n", "\n").split("\n")
    joined, current = [], ""
    for line in lines:  # hex values continue on the next line after a trailing backslash
        if current:
            line = line.lstrip()
        current += line
        if current.endswith("\\") and "=hex" in current:
            current = current[:-1]
            continue
        joined.append(current)
        current = ""
    prefix = f'"{name}"='
    for line in joined:
        if not line.lower().startswith(prefix.lower()):
            continue
        value = line[len(prefix):]
        if value.startswith('"'):
            return 1, (unescape(value[1:-1]) + "\0").encode("utf-16-le")
        if value.startswith("hex("):
            t = int(value[4:value.index(")")], 16)
            digits = value[value.index(":") + 1:]
            return t, bytes(int(h, 16) for h in digits.split(",") if h)
        if value.startswith("hex:"):
            return 3, bytes(int(h, 16) for h in value[4:].split(",") if h)
        raise SystemExit(f"{path}: unreadable value of {name}: {value[:40]}")
    raise SystemExit(f"{path}: no value {name}")


def parse(s):
    t, h = s.split(" ", 1) if " " in s else (s, "")
    return int(t), bytes.fromhex(h.strip())


def one_added(before, after, entry):
    bt, bb = parse(before)
    at, ab = parse(after)
    if bt != at:
        print(f"the type changed: {bt} -> {at}")
        return 1
    b, a = bb.decode("utf-16-le"), ab.decode("utf-16-le")
    for inserted in (entry + ";", ";" + entry):
        start = a.find(inserted)
        while start != -1:
            if a[:start] + a[start + len(inserted):] == b:
                return 0
            start = a.find(inserted, start + 1)
    print(f"not the value before with only '{entry}' added:\n  before: {b!r}\n  after:  {a!r}")
    return 1


def main(argv):
    if argv[1] == "write":
        args = argv[3:]
        if not args or len(args) % 4:
            raise SystemExit(__doc__)
        write(argv[2], [args[i:i + 4] for i in range(0, len(args), 4)])
    elif argv[1] == "read":
        t, data = read(argv[2], argv[3])
        print(t, data.hex())
    elif argv[1] == "one-added":
        return one_added(argv[2], argv[3], argv[4])
    else:
        raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
