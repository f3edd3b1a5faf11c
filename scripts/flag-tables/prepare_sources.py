#!/usr/bin/env python3
"""Lay out the engines' Python sources at the commits in sources.json, for extract_flags.py to read.

    python3 scripts/flag-tables/prepare_sources.py --vllm-git <dir> --sglang-git <dir> --out /work/engine-src

--vllm-git / --sglang-git are git directories that hold the release commits (any clone or fork with the tags,
e.g. a `git clone --bare` of vllm-project/vllm).  For each version it runs `git archive <commit> <package dir>`
and keeps the .py files, plus a COMMIT file.  Only source is copied; nothing is built or installed.
TensorRT-LLM trees are not made here: they were assembled by hand from single files (see README.md).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def archive(git_dir: str, commit: str, path: str, dest: str) -> int:
    data = subprocess.run(["git", "--git-dir", git_dir, "archive", commit, path], check=True,
                          capture_output=True).stdout
    n = 0
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.endswith(".py"):
                target = os.path.join(dest, m.name)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as fh:
                    fh.write(tar.extractfile(m).read())  # type: ignore[union-attr]
                n += 1
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vllm-git")
    ap.add_argument("--sglang-git")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(os.path.join(HERE, "sources.json"), encoding="utf-8") as fh:
        manifest = json.load(fh)
    jobs = [("vllm", args.vllm_git, "vllm"), ("sglang", args.sglang_git, "python/sglang")]
    for engine, git_dir, path in jobs:
        if not git_dir:
            continue
        for entry in manifest[engine]["versions"]:
            dest = os.path.join(args.out, engine, entry["version"])
            n = archive(git_dir, entry["commit"], path, dest)
            with open(os.path.join(dest, "COMMIT"), "w", encoding="utf-8") as fh:
                fh.write(entry["commit"] + "\n")
            print(f"{engine} {entry['version']}: {n} files at {entry['commit'][:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
