#!/usr/bin/env python3
"""Compares the kernels two clperm disk caches hold, kernel by kernel.

    tools/cache_diff.py OLD_DIR NEW_DIR [--rename OLD=NEW ...]

OLD_DIR and NEW_DIR are CLPERM_CACHE_DIR folders filled by two builds of clperm running the same
work on the same device (for instance the tile tests before and after a change). Entries are
paired by device, driver and build options, whatever the program's name or texts; in each pair
every kernel both binaries hold is compared, where the binaries are text (NVIDIA's PTX: one
`.entry` block per kernel, with the global and constant data it names). --rename maps an
identifier of the old binaries to the new one's (a renamed constant table, say) before comparing.
Prints one line per kernel compared and exits 1 when any differs or when nothing was compared.

File layout (src/runtime/diskcache.c): "CLPERMC1", three little-endian u64 (key length, binary
length, checksum), the key text, the binary.
"""
import argparse
import os
import re
import struct
import sys


def entries(folder):
    """(device, driver, options) -> the binary texts of the entries built with them (programs of
    different texts may share options)."""
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        if len(data) < 32 or data[:8] != b"CLPERMC1":
            continue
        klen, blen, _ = struct.unpack("<QQQ", data[8:32])
        key = data[32:32 + klen].decode("utf-8", "replace")
        binary = data[32 + klen:32 + klen + blen]
        fields = dict(line.split(" ", 1) for line in key.splitlines() if " " in line)
        try:
            text = binary.decode("ascii")
        except UnicodeDecodeError:
            continue  # not PTX: nothing this tool can compare
        out.setdefault((fields.get("device", ""), fields.get("driver", ""), fields.get("options", "")), []).append(text)
    return out


def block(ptx, start):
    """The text from start to the brace that closes the first one after it."""
    depth = 0
    for j in range(ptx.index("{", start), len(ptx)):
        depth += {"{": 1, "}": -1}.get(ptx[j], 0)
        if depth == 0:
            return ptx[start:j + 1]
    return ptx[start:]


def kernels(ptx):
    """Kernel name -> its .entry block, with the module-level data and the functions (not
    inlined) it refers to, directly or through those functions."""
    decls = {}
    for m in re.finditer(r"^\.(?:global|const|shared)[^;\n]*?([A-Za-z_$][\w$.]*)(?:\[[^\]]*\])?\s*(?:=[^;]*)?;",
                         ptx, re.M):
        decls[m.group(1)] = m.group(0)
    for m in re.finditer(r"^(?:\.visible |\.weak )?\.func\s*(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)\(", ptx, re.M):
        if ptx.find("{", m.end()) >= 0 and ptx.find(";", m.end()) > ptx.find("{", m.end()):
            decls[m.group(1)] = block(ptx, m.start())
    out = {}
    for m in re.finditer(r"^\.visible \.entry (\w+)\(", ptx, re.M):
        body = block(ptx, m.start())
        used, todo = set(), [body]
        while todo:
            text = todo.pop()
            for n in decls:
                if n not in used and re.search(r"\b" + re.escape(n) + r"\b", text):
                    used.add(n)
                    todo.append(decls[n])
        out[m.group(1)] = "\n".join([decls[n] for n in sorted(used)] + [body])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rename", action="append", default=[], metavar="OLD=NEW")
    args = ap.parse_args()
    renames = [r.split("=", 1) for r in args.rename]
    old, new = entries(args.old), entries(args.new)
    compared = differ = 0
    for key in sorted(set(old) & set(new)):
        ko, kn = {}, {}
        for text in old[key]:
            ko.update(kernels(text))
        for text in new[key]:
            kn.update(kernels(text))
        for name in sorted(set(ko) & set(kn)):
            a = ko[name]
            for o, n in renames:
                a = re.sub(r"\b" + re.escape(o) + r"\b", n, a)
            same = a == kn[name]
            compared += 1
            differ += not same
            print("%s %s  [%s]" % ("same   " if same else "DIFFERS", name, key[2]))
    print("%d kernels compared, %d differ" % (compared, differ))
    return 1 if differ or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
