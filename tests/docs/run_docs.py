#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The docs say what the program does, where a machine can tell.

- Every relative link and #anchor in README.md and docs/*.md resolves: the file or
  folder exists, and the anchor is a heading of the file it points to, named as GitHub
  names it (lower case, punctuation but '-' and '_' dropped, spaces to '-', a repeated
  heading '-1', '-2' ...), or an HTML id/name in it.
- Every flag `psnrhvs --help` lists is in docs/cli.md and in the man page docs/psnrhvs.1,
  and every command of its usage lines is in the man page's SYNOPSIS.
- The backend the README's table calls the default is the one `psnrhvs --help` calls
  the default, and so is the man page's.
- Every column of a batch summary (a one-job batch run here) is named in cli.md.

Usage: run_docs.py PSNRHVS SOURCE_DIR"""
import os
import re
import subprocess
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def strip_code(text):
    """Markdown without fenced code blocks and inline code spans (links there are text)."""
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.S | re.M)
    return re.sub(r"`+[^`\n]*`+", "", text)


def github_anchor(heading):
    text = re.sub(r"<[^>]+>", "", heading)           # inline HTML
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)             # \w: letters, digits, _ (Unicode)
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path in cache:
        return cache[path]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    names, seen = set(), {}
    # headings outside fenced code
    body = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.S | re.M)
    for m in re.finditer(r"^(#{1,6})\s+(.*?)\s*#*\s*$", body, flags=re.M):
        a = github_anchor(m.group(2))
        n = seen.get(a, 0)
        seen[a] = n + 1
        names.add(a if n == 0 else "%s-%d" % (a, n))
    for m in re.finditer(r"<[^>]+\b(?:id|name)=\"([^\"]+)\"", text):
        names.add(m.group(1))
    cache[path] = names
    return names


def check_links(src):
    files = [os.path.join(src, "README.md")] + sorted(
        os.path.join(src, "docs", n) for n in os.listdir(os.path.join(src, "docs"))
        if n.endswith(".md"))
    count = 0
    for md in files:
        with open(md, encoding="utf-8") as f:
            text = strip_code(f.read())
        targets = re.findall(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", text)
        targets += re.findall(r"^\s*\[[^\]]+\]:\s*(\S+)", text, flags=re.M)
        targets += re.findall(r"<a\s[^>]*href=\"([^\"]+)\"", text)
        rel_md = os.path.relpath(md, src)
        for t in targets:
            if re.match(r"^[a-z][a-z0-9+.-]*:", t, flags=re.I):  # http:, mailto: ...
                continue
            count += 1
            path, _, anchor = t.partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            if not os.path.exists(target):
                fail("%s: link %s: %s does not exist" % (rel_md, t, os.path.relpath(target, src)))
                continue
            if anchor:
                if not target.endswith(".md"):
                    fail("%s: link %s: an anchor in a file that is not Markdown" % (rel_md, t))
                elif anchor not in anchors_of(target):
                    fail("%s: link %s: %s has no heading with the anchor #%s" % (
                        rel_md, t, os.path.relpath(target, src), anchor))
    if count < 20:
        fail("only %d relative links found: the link scanner is broken" % count)
    print("%d relative links checked" % count)


def man_text(src):
    with open(os.path.join(src, "docs", "psnrhvs.1"), encoding="utf-8") as f:
        man = f.read()
    # roff: \- is a minus, \: \& \fB... are markup
    man = man.replace("\\-", "-").replace("\\:", "").replace("\\&", "")
    man = re.sub(r"\\f[BIRP]", "", man)
    return man


def check_flags(cli, src):
    p = subprocess.run([cli, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    if p.returncode != 0:
        fail("psnrhvs --help: exit %d" % p.returncode)
        return None
    help_text = p.stdout.decode()
    flags = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9_-]*|-[a-zA-Z])(?![\w-])",
                                  help_text)))
    if len(flags) < 30:
        fail("only %d flags found in --help: %r" % (len(flags), flags))
    with open(os.path.join(src, "docs", "cli.md"), encoding="utf-8") as f:
        cli_md = f.read()
    man = man_text(src)
    for flag in flags:
        pat = re.compile(r"(?<![\w-])%s(?![\w-])" % re.escape(flag))
        if not pat.search(cli_md):
            fail("--help lists %s; docs/cli.md does not" % flag)
        if not pat.search(man):
            fail("--help lists %s; the man page docs/psnrhvs.1 does not" % flag)
    print("%d flags of --help checked" % len(flags))
    # the commands of the usage lines, in the man page's SYNOPSIS
    usage = re.findall(r"^(?:Usage:)?\s+psnrhvs ([a-z]+)\b", help_text, flags=re.M)
    if len(usage) < 3:
        fail("the usage lines of --help name %r" % usage)
    m = re.search(r"^\.SH SYNOPSIS\n(.*?)^\.SH ", man, flags=re.S | re.M)
    synopsis = m.group(1) if m else ""
    if not synopsis:
        fail("the man page has no SYNOPSIS")
    for cmd in usage:
        if not re.search(r"^\.B psnrhvs %s\b" % cmd, synopsis, flags=re.M):
            fail("--help's usage names 'psnrhvs %s'; the man page's SYNOPSIS does not" % cmd)
    return help_text


def check_default_backend(help_text, src):
    m = re.search(r"--backend B\s+(\w+) \(default", help_text)
    if not m:
        fail("--help does not say which backend is the default")
        return
    default = m.group(1)
    with open(os.path.join(src, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    rows = re.findall(r"^\| `(\w+)` \(default\) \|", readme, flags=re.M)
    if rows != [default]:
        fail("README's backend table calls %r the default; --help says %s" % (rows, default))
    man = man_text(src)
    m = re.search(r"^\.BI --backend \" B\"\n(.*?)^\.TP", man, flags=re.S | re.M)
    said = re.findall(r"^\.B (\w+)\n\(default\)", m.group(1), flags=re.M) if m else []
    if said != [default]:
        fail("the man page's --backend calls %r the default; --help says %s" % (said, default))
    print("default backend: %s" % default)


def check_summary_columns(cli, src):
    """Every column of a batch summary (a one-job batch, run here) is named in cli.md's
    Summary paragraph; the chroma and combined pooled columns as "the same for"."""
    import csv
    import tempfile
    data = os.path.join(src, "tests", "data")
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "jobs.csv"), "w") as f:
            f.write("reference,distorted,output\n%s,%s,out.json\n" % (
                os.path.join(data, "yuv420p_176x144_ref.y4m"),
                os.path.join(data, "yuv420p_176x144_dist.y4m")))
        p = subprocess.run([cli, "batch", "-q", "jobs.csv"], cwd=tmp, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        path = os.path.join(tmp, "jobs.summary.csv")
        if p.returncode != 0 or not os.path.exists(path):
            fail("psnrhvs batch: exit %d: %s" % (p.returncode, p.stderr.decode()[-500:]))
            return
        with open(path, newline="") as f:
            columns = next(csv.reader(f))
    with open(os.path.join(src, "docs", "cli.md"), encoding="utf-8") as f:
        cli_md = f.read()
    m = re.search(r"\*\*Summary\.\*\*(.*?)\n\n", cli_md, flags=re.S)
    para = m.group(1) if m else ""
    if not para:
        fail("docs/cli.md has no **Summary.** paragraph")
    for c in columns:
        if re.fullmatch(r"psnr_hvs(_cb|_cr)?_(min|max|mean|harmonic_mean)", c):
            continue  # "and the same for psnr_hvs_cb, psnr_hvs_cr and psnr_hvs"
        if "`%s`" % c not in para:
            fail("the batch summary has a column %s; docs/cli.md's Summary does not name it" % c)
    print("%d summary columns checked" % len(columns))


def main():
    cli, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    check_links(src)
    help_text = check_flags(cli, src)
    if help_text:
        check_default_backend(help_text, src)
    check_summary_columns(cli, src)
    print("%d failures" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
