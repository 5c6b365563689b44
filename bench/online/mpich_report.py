#!/usr/bin/env python3
"""Summarizes one pass of bench/online/mpich_suite.sh.

It reads runtests' TAP and JUnit files (PASS/tap/FOLDER.tap, .junit.xml) and the
`make -k` logs (PASS/logs/make-FOLDER[.first].log). It writes:

  PASS/summary.txt  per folder: entries listed and reported, passed, failed to build,
                    failed to run, timed out, skipped
  PASS/results.tsv  folder, test, np, outcome, first line of the failure
  PASS/reasons.txt  what failures have in common, by number of entries: identifiers
                    the compiler did not know, MPI functions the link lacked (split
                    between the suite's support code, which every test links, and the
                    tests' own code), and the messages of failed runs
"""

import argparse
import collections
import os
import re
import sys

LISTS = ("testlist", "testlist.dtp")
TIMEOUT_MARK = "simpi-mpiexec: timed out after"
# gcc quotes with ' or, in a UTF-8 locale, with curly quotes.
UNDECLARED = re.compile(r"error: ['\u2018](\w+)['\u2019] undeclared|error: unknown type name ['\u2018](\w+)['\u2019]")
UNDEFINED = re.compile(r"undefined reference to [`'\u2018](\w+)['\u2019]")
SUPPORT = re.compile(r"(^|/)(util|dtpools)/")
GENERIC_EXIT = re.compile(r"simpi: rank \d+ (failed after MPI_Finalize|ended without calling MPI_Finalize)")
ERROR_AT = re.compile(r"^(\S+?\.c):\d+:\d+: error:")


def listed_entries(src, build, folder):
    """Counts a folder's entries as runtests' LoadTests reads them."""
    n = 0
    for name in LISTS:
        path = os.path.join(build, folder, name)
        if not (os.path.isfile(path) and os.path.getsize(path) > 0):
            path = os.path.join(src, folder, name)
        if not os.path.isfile(path):
            continue
        with open(path, errors="replace") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line and not line.startswith("!"):
                    n += 1
    return n


def read_tap(path):
    """Yields (number, program, np, ok, skip reason, output lines) per TAP entry."""
    if not os.path.isfile(path):
        return
    head = None
    out = []
    entry = re.compile(r"^(not ok|ok) (\d+) - (\S+) (\d+)(.*)$")
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = entry.match(line)
            if m:
                if head:
                    yield head + (out,)
                rest = m.group(5)
                skip = rest.split("# SKIP", 1)[1].strip() if "# SKIP" in rest else None
                prog = m.group(3)[2:] if m.group(3).startswith("./") else m.group(3)
                head = (int(m.group(2)), prog, int(m.group(4)), m.group(1) == "ok", skip)
                out = []
            elif line == "## Test output (expected 'No Errors'):":
                continue
            elif line.startswith("##") and head:
                out.append(line[3:] if line.startswith("## ") else line[2:])
    if head:
        yield head + (out,)


def read_labels(path):
    """Maps a TAP number to the test's program, arguments and environment (JUnit names)."""
    labels = {}
    if not os.path.isfile(path):
        return labels
    name = re.compile(r'<testcase classname="[^"]*" name="(\d+) - (\S+) (\d+) ?([^"]*)"')
    with open(path, errors="replace") as f:
        for line in f:
            m = name.search(line)
            if m:
                prog = m.group(2)[2:] if m.group(2).startswith("./") else m.group(2)
                labels[int(m.group(1))] = " ".join((prog + " " + m.group(4)).split())
    return labels


def program_sources(makefile):
    """Maps each program of a folder's Makefile to the base names of its C sources."""
    sources = collections.defaultdict(set)
    if not os.path.isfile(makefile):
        return sources
    with open(makefile, errors="replace") as f:
        for line in f:
            m = re.match(r"^(\w+)_SOURCES = (.*)$", line)
            if m:
                sources[m.group(1)].update(os.path.basename(w) for w in m.group(2).split() if w.endswith(".c"))
    return sources


def compile_errors(log, folder):
    """Maps the C files of `folder` that a `make -k` log failed to compile to the
    identifiers the compiler did not know, and gathers those of the support code."""
    own = collections.defaultdict(set)
    support = set()
    if not os.path.isfile(log):
        return own, support
    with open(log, errors="replace") as f:
        for line in f:
            m = UNDECLARED.search(line)
            at = ERROR_AT.match(line)
            if not (m and at):
                continue
            ident = m.group(1) or m.group(2)
            if SUPPORT.search(at.group(1)):
                support.add(ident)
            elif os.path.basename(os.path.dirname(at.group(1))) == folder:
                own[os.path.basename(at.group(1))].add(ident)
    return own, support


def link_errors(log):
    """Maps each program linked in a `make -k` log to the MPI symbols its link lacked,
    as (symbol, in support code?) pairs."""
    missing = collections.defaultdict(set)
    if not os.path.isfile(log):
        return missing
    target = None
    out = re.compile(r"\s-o\s+(\S+)")
    with open(log, errors="replace") as f:
        for line in f:
            if "--mode=link" in line or line.startswith("libtool: link:"):
                m = out.search(line)
                target = os.path.basename(m.group(1)) if m else None
                continue
            m = UNDEFINED.search(line)
            if m and target and "MPI" in m.group(1):
                missing[target].add((m.group(1), bool(SUPPORT.search(line))))
    return missing


def first_failure(outcome, out, src):
    """The line that says best why an entry failed."""
    lines = [l.replace(src + "/", "").strip() for l in out if l.strip()]
    if outcome == "failed to build":
        for pat in ("error:", "undefined reference", "No rule to make target"):
            for l in lines:
                if pat in l:
                    return l
    elif outcome == "timed out":
        for l in lines:
            if TIMEOUT_MARK in l:
                return l
    else:
        # simpi's own diagnosis first, then the program's words, then simpi's report
        # that a rank exited badly (which follows the program's words).
        for l in lines:
            if l.startswith("simpi") and not GENERIC_EXIT.match(l):
                return l
        for l in lines:
            if not GENERIC_EXIT.match(l):
                return l
    rest = [l for l in lines if not l.startswith("Failed to build")]
    return rest[0] if rest else (lines[0] if lines else "(no output)")


def normalize(message):
    """A message with its numbers and addresses blotted out, to count alike ones."""
    message = re.sub(r"0x[0-9a-fA-F]+", "0x_", message)
    return re.sub(r"\d+", "N", message)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="the suite's source (test/mpi)")
    ap.add_argument("--pass-dir", required=True, help="a pass's directory (build/, tap/, logs/)")
    ap.add_argument("--folders", required=True, help="folders, separated by spaces")
    ap.add_argument("--lib", required=True, help="libsimpi_mpi.so used")
    a = ap.parse_args()
    src = os.path.abspath(a.src)
    pdir = os.path.abspath(a.pass_dir)
    build = os.path.join(pdir, "build")
    folders = a.folders.split()

    rows = []
    table = []
    undeclared = collections.Counter()
    support_idents = set()
    undefined = {True: collections.Counter(), False: collections.Counter()}
    undefined_any = collections.Counter()
    runtime = collections.Counter()
    stubs = collections.Counter()
    for d in folders:
        labels = read_labels(os.path.join(pdir, "tap", d + ".junit.xml"))
        logs = os.path.join(pdir, "logs", "make-%s" % d)
        first_log = logs + ".first.log" if os.path.isfile(logs + ".first.log") else logs + ".log"
        links = link_errors(first_log)
        sources = program_sources(os.path.join(build, d, "Makefile"))
        own_errors, support = compile_errors(first_log, d)
        support_idents |= support
        counts = collections.Counter()
        for num, prog, np, ok, skip, out in read_tap(os.path.join(pdir, "tap", d + ".tap")):
            if ok:
                outcome = "skipped" if skip is not None else "passed"
            elif out and out[0].startswith("Failed to build"):
                outcome = "failed to build"
            elif any(TIMEOUT_MARK in l for l in out):
                outcome = "timed out"
            else:
                outcome = "failed to run"
            counts[outcome] += 1
            why = "" if ok else first_failure(outcome, out, src)
            if skip:
                why = skip
            rows.append((d, labels.get(num, prog), str(np), outcome, why))
            if outcome == "failed to build":
                seen = set()
                for src_file in sources.get(prog, {prog + ".c"}):
                    seen |= own_errors.get(src_file, set())
                for l in out:
                    m = UNDECLARED.search(l)
                    if m:
                        if SUPPORT.search(l):
                            support_idents.add(m.group(1) or m.group(2))
                        else:
                            seen.add(m.group(1) or m.group(2))
                undeclared.update(seen)
            syms = set(links.get(prog, ()))
            for l in out:
                m = UNDEFINED.search(l)
                if m and "MPI" in m.group(1):
                    syms.add((m.group(1), bool(SUPPORT.search(l))))
            for sym, support in syms:
                undefined[support][sym] += 1
            undefined_any.update({sym for sym, _ in syms})
            if outcome == "failed to run":
                runtime[normalize(why)] += 1
                m = re.match(r"simpi-mpich-stub: (\w+)", why)
                if m:
                    stubs[m.group(1)] += 1
        stop = os.path.join(pdir, "tap", d + ".stop")
        secs = os.path.join(pdir, "tap", d + ".seconds")
        listed = listed_entries(src, build, d)
        entries = sum(counts.values())
        note = ""
        if entries < listed:
            note = "partial: " + (open(stop).read().strip() if os.path.isfile(stop) else "runtests stopped early")
        elapsed = open(secs).read().strip() + " s" if os.path.isfile(secs) else ""
        table.append((d, listed, entries, counts, elapsed, note))

    with open(os.path.join(pdir, "results.tsv"), "w") as f:
        f.write("folder\ttest\tnp\toutcome\tfirst line of the failure\n")
        for r in rows:
            f.write("\t".join(c.replace("\t", " ") for c in r) + "\n")

    kinds = ("passed", "failed to build", "failed to run", "timed out", "skipped")
    with open(os.path.join(pdir, "summary.txt"), "w") as f:
        source = os.path.join(src, "MPICH_SOURCE")
        f.write("MPICH test suite (%s) against %s\n" % (
            open(source).read().strip() if os.path.isfile(source) else src, a.lib))
        f.write("runtests lists: %s; per-test limit MPITEST_TIMEOUT=%s s\n\n" % (
            ", ".join(LISTS), os.environ.get("MPITEST_TIMEOUT", "60")))
        head = "%-9s %7s %8s %7s %9s %9s %9s %8s  %s\n"
        f.write(head % ("folder", "listed", "entries", "passed", "no build", "run fail",
                        "timed out", "skipped", "runtests time"))
        tot = collections.Counter()
        listed_total = entries_total = 0
        for d, listed, entries, c, elapsed, note in table:
            f.write(head % ((d, listed, entries) + tuple(c[k] for k in kinds) + ((elapsed + " " + note).strip(),)))
            tot.update(c)
            listed_total += listed
            entries_total += entries
        f.write(head % (("total", listed_total, entries_total) + tuple(tot[k] for k in kinds) + ("",)))

    with open(os.path.join(pdir, "reasons.txt"), "w") as f:
        def block(title, counter, limit):
            f.write("%s (%d distinct)\n" % (title, len(counter)))
            for name, n in counter.most_common(limit):
                f.write("  %5d  %s\n" % (n, name))
            f.write("\n")

        f.write("Counts are entries of the testlists (a program listed twice counts twice).\n\n")
        f.write("Identifiers unknown to the compiler in the suite's support code (util/, dtpools/),\n"
                "which every test links: %s\n\n" % (", ".join(sorted(support_idents)) or "none"))
        block("Identifiers unknown to the compiler in the tests' own code, by entries", undeclared, 100)
        block("MPI functions missing at link time, needed by the support code every test links",
              undefined[True], 200)
        block("MPI functions missing at link time, called by the tests' own code", undefined[False], 200)
        block("MPI functions missing at link time, from either", undefined_any, 200)
        block("Failed runs, by message (numbers blotted out)", runtime, 60)
        block("Failed runs that called a stubbed function, by the first one called", stubs, 100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
