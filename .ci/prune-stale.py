#!/usr/bin/env python3
"""Remove test and example binaries that the current build no longer makes.

Cargo names each test binary `<name>-<hash>` and never deletes the old one when the hash
changes (a dependency's features, the workspace's path, the profile), so a CI machine that keeps
its target folder piled up copies of every test binary run after run (seven of each, 25 GB, was
seen) until the disk was full. Reads `cargo test --no-run --message-format=json` on stdin: the
executables it lists are the current ones (compared by inode: cargo lists a binary by the
hard link it copies it to, `target/debug/gpuledger`); every other `<name>-<16 hex>` executable
(and its `.d` file) in the folders given is removed.
"""
import json
import os
import re
import sys

DRY = os.environ.get("PRUNE_DRY_RUN") == "1"

current = set()
built = False
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    built |= msg.get("reason") == "build-finished" and msg.get("success") is True
    if msg.get("reason") == "compiler-artifact" and msg.get("executable"):
        st = os.stat(msg["executable"])
        current.add((st.st_dev, st.st_ino))
if not built or not current:
    # A failed or partial build lists only some of the current binaries.
    sys.exit("prune-stale: the build did not finish; nothing removed")

hashed = re.compile(r"^[A-Za-z0-9_]+-[0-9a-f]{16}$")
freed = removed = 0
for folder in sys.argv[1:]:
    for entry in os.scandir(folder):
        path = entry.path
        if not (hashed.match(entry.name) and entry.is_file(follow_symlinks=False)):
            continue
        st = entry.stat(follow_symlinks=False)
        if not os.access(path, os.X_OK) or (st.st_dev, st.st_ino) in current:
            continue
        freed += st.st_size
        removed += 1
        if DRY:
            print(f"would remove {path}")
            continue
        os.remove(path)
        if os.path.exists(path + ".d"):
            os.remove(path + ".d")
print(f"prune-stale: removed {removed} old binaries, {freed / 2**30:.1f} GiB")
