#!/usr/bin/env python3
"""Regenerates the model catalog's pins from the Hugging Face hub's API.

Run by hand, with network (not in CI): it reads the repositories and ggml files of
core/hub/catalog_entries.cpp, asks the hub for each repository's revision with its file list
(GET {hub}/api/models/{repo}/revision/{rev}?blobs=true: the commit `sha`, and per file its
`size` and, for LFS files, `lfs.sha256`), and reports what differs from the table:

  - a repository at "main" (its commit not known yet) gets the commit "main" is at now;
  - with --advance, every repository moves to the commit of its "main";
  - each ggml file's size and SHA-256 are compared with those of the pinned commit; unknown
    ones (0 / "") are filled in;
  - the kFiles table (each directory model's files: size and SHA-256 at the pinned commit) is
    regenerated whole; a small file kept in git rather than LFS is downloaded and hashed, the
    API naming only its git SHA-1;
  - a catalogued file missing from the revision is reported (optional files are marked "?"
    in the table and only noted).

Nothing is written without --write. The hub is $HF_ENDPOINT or --hub (default
https://huggingface.co); $HF_TOKEN is sent when set. Exit status: 0 when the table matches (or
was rewritten), 1 when it differs and --write was not given, 2 on an error.
"""

import argparse
import hashlib
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

CATALOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core", "hub", "catalog_entries.cpp")

REVISION_LINE = re.compile(r'^(\s*)\{"([^"]+)", "([^"]*)"\},\s*$')
SIZE_DECL = re.compile(r'(\w+)\{"([^"]+)", \d+')
GGML_CALL = re.compile(
    r'ggmlEntry\((\w+), "([^"]*)", ([\d\']+), "([0-9a-f]*)"(?:, "([^"]+)", "([^"]+)")?\)')
# Directory repositories' file lists: the kHfFiles / kCt2Files* vectors and the repositories
# that use them (as in build()).
FILE_LIST = re.compile(r'const std::vector<std::string> (\w+) = \{([^}]*)\};', re.S)


def fetch_revision(hub, repo, revision, token):
    url = "%s/api/models/%s/revision/%s?blobs=true" % (
        hub.rstrip("/"), repo, urllib.parse.quote(revision, safe=""))
    request = urllib.request.Request(url, headers={"User-Agent": "hearsay update_catalog"})
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)
    except urllib.error.HTTPError as e:
        code = e.headers.get("X-Error-Code", "")
        raise RuntimeError("%s at %s: HTTP %d %s" % (repo, revision, e.code, code)) from None
    except urllib.error.URLError as e:
        raise RuntimeError("%s: cannot reach %s (%s)" % (repo, hub, e.reason)) from None


def hash_of_file(hub, repo, commit, name, size, token):
    """SHA-256 of a small file at a commit, downloaded (the API names only its git SHA-1)."""
    url = "%s/%s/resolve/%s/%s" % (hub.rstrip("/"), repo, commit, urllib.parse.quote(name))
    request = urllib.request.Request(url, headers={"User-Agent": "hearsay update_catalog"})
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read()
    except (urllib.error.HTTPError, urllib.error.URLError) as e:
        raise RuntimeError("%s: %s at %s: %s" % (repo, name, commit, e)) from None
    if len(body) != size:
        raise RuntimeError("%s: %s at %s is %d bytes, the API said %d" % (repo, name, commit, len(body), size))
    return hashlib.sha256(body).hexdigest()


def ordered_repos(text):
    """The repositories of the kRevisions table, in its order."""
    lines = text.split("\n")
    return [m.group(2) for m in (REVISION_LINE.match(l) for l in lines) if m]


def siblings(info):
    """{file name: (size, sha256 or '')} of a revision."""
    out = {}
    for s in info.get("siblings", []):
        lfs = s.get("lfs") or {}
        size = lfs.get("size", s.get("size", 0)) or 0
        out[s["rfilename"]] = (int(size), lfs.get("sha256", ""))
    return out


def grouped(n):
    return "{:,}".format(n).replace(",", "'")


def parse_revisions(lines):
    """{repo: (line index, revision)} of the kRevisions table."""
    begin = next(i for i, l in enumerate(lines) if "BEGIN REVISIONS" in l)
    end = next(i for i, l in enumerate(lines) if "END REVISIONS" in l)
    revisions = {}
    for i in range(begin + 1, end):
        m = REVISION_LINE.match(lines[i])
        if m:
            revisions[m.group(2)] = (i, m.group(3))
    return revisions


def parse_ggml(text):
    """The ggmlEntry(...) calls: repository, file name, recorded size and SHA-256."""
    sizes = dict(SIZE_DECL.findall(text))
    ggml = []
    for m in GGML_CALL.finditer(text):
        var, quant, size, sha, repo, file = m.groups()
        name = sizes[var] + ("-" + quant if quant else "")
        ggml.append({
            "match": m,
            "repo": repo or "ggerganov/whisper.cpp",
            "file": file or "ggml-%s.bin" % name,
            "size": int(size.replace("'", "")),
            "sha256": sha,
        })
    return ggml


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hub", default=os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    parser.add_argument("--catalog", default=CATALOG)
    parser.add_argument("--advance", action="store_true", help="move every repository to its main's commit")
    parser.add_argument("--write", action="store_true", help="rewrite the catalog file")
    parser.add_argument("--verbose", action="store_true", help="also list the optional files a repository lacks")
    args = parser.parse_args()
    token = os.environ.get("HF_TOKEN", "").strip()

    with open(args.catalog, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    revisions = parse_revisions(lines)
    changes = 0
    commits = {}      # repo -> the commit to pin
    files = {}        # repo -> siblings at that commit
    try:
        for repo, (index, revision) in sorted(revisions.items()):
            asked = "main" if args.advance or revision == "main" else revision
            info = fetch_revision(args.hub, repo, asked, token)
            commit = info.get("sha", "")
            if not commit:
                raise RuntimeError("%s at %s: the hub named no commit" % (repo, asked))
            commits[repo] = commit
            files[repo] = siblings(info)
            if commit != revision:  # "main", a prefix, or an older commit with --advance
                print("%s: %s -> %s" % (repo, revision, commit))
                indent = REVISION_LINE.match(lines[index]).group(1)
                lines[index] = '%s{"%s", "%s"},' % (indent, repo, commit)
                changes += 1
    except RuntimeError as e:
        print("update_catalog: %s" % e, file=sys.stderr)
        return 2

    text = "\n".join(lines)
    ggml = parse_ggml(text)
    # ggml files: size and SHA-256 at the pinned commit (rewritten from the end, offsets stay valid).
    for g in sorted(ggml, key=lambda g: g["match"].start(), reverse=True):
        there = files.get(g["repo"], {}).get(g["file"])
        if there is None:
            print("%s: %s is not in %s at %s" % (g["repo"], g["file"], g["repo"], commits.get(g["repo"], "?")))
            changes += 1
            continue
        size, sha = there
        if size == g["size"] and (sha == g["sha256"] or not sha):
            continue
        print("%s: %s: %d bytes %s -> %d bytes %s" % (g["repo"], g["file"], g["size"], g["sha256"] or "(no hash)",
                                                       size, sha or "(no hash)"))
        old = g["match"].group(0)
        new = old.replace(", %s, \"%s\"" % (g["match"].group(3), g["sha256"]),
                          ", %s, \"%s\"" % (grouped(size), sha or g["sha256"]), 1)
        text = text[:g["match"].start()] + new + text[g["match"].end():]
        changes += 1

    # Directory repositories: every catalogued file's size and SHA-256 at the pinned commit (the
    # kFiles table, regenerated whole), and the catalogued files that commit lacks.
    lists = {name: re.findall(r'"([^"]+)"', body) for name, body in FILE_LIST.findall(text)}
    pins = []
    try:
        for repo in ordered_repos(text):
            there = files.get(repo, {})
            if repo.endswith("whisper.cpp") or repo.endswith("-ggml"):
                continue
            wanted = lists["kHfFiles"] if repo.startswith(("openai/", "distil-whisper/")) and not repo.endswith("-ct2") \
                else (lists["kCt2Files"] if repo.startswith("Systran/faster-whisper-") and "large-v3" not in repo
                      else lists["kCt2FilesV3"])
            for f in wanted:
                optional = f.endswith("?")
                name = f.rstrip("?")
                if name not in there:
                    if args.verbose or not optional:
                        print("%s: %s %s missing at %s" % (repo, "optional" if optional else "REQUIRED", name,
                                                           commits[repo]))
                        if not optional:
                            changes += 1
                    continue
                size, sha = there[name]
                if not sha:  # a small file kept in git, not LFS: the API gives its git SHA-1 only
                    sha = hash_of_file(args.hub, repo, commits[repo], name, size, token)
                pins.append('    {"%s", "%s", %s, "%s"},' % (repo, name, grouped(size), sha))
    except RuntimeError as e:
        print("update_catalog: %s" % e, file=sys.stderr)
        return 2
    lines = text.split("\n")
    begin = next(i for i, l in enumerate(lines) if "BEGIN FILES" in l)
    end = next(i for i, l in enumerate(lines) if "END FILES" in l)
    if lines[begin + 1:end] != pins:
        print("kFiles: %d file pin(s) rewritten" % len(pins))
        lines[begin + 1:end] = pins
        text = "\n".join(lines)
        changes += 1

    if changes == 0:
        print("the catalog matches the hub")
        return 0
    if not args.write:
        print("%d difference(s); run again with --write to rewrite %s" % (changes, args.catalog))
        return 1
    with open(args.catalog, "w", encoding="utf-8") as f:
        f.write(text)
    print("rewrote %s: %d change(s); review the diff, build and run core_tst_model_hub" % (args.catalog, changes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
