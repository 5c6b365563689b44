#!/usr/bin/env python3
"""Derives the argument layout of every DUMPI call record from sst-dumpi's sources.

Usage: layouts.py <sst-dumpi checkout>  (prints the table of crates/trace/src/dumpi/layouts.rs)

The function ids are the order of `dumpi_function` in dumpi/common/funclabels.h; each
call's fields, in stream order, are those its reader in dumpi/common/dumpiio.c takes.
One letter per field (see layouts.rs for their meaning)."""
import re
import sys

root = sys.argv[1]
labels = open(f"{root}/dumpi/common/funclabels.h").read()
enum = labels[labels.index("typedef enum dumpi_function"):]
enum = enum[enum.index("{") + 1:enum.index("DUMPI_ALL_FUNCTIONS")]
names = re.findall(r"(DUMPIO?)_(\w+)", re.sub(r"/\*.*?\*/", "", enum, flags=re.S))
src = open(f"{root}/dumpi/common/dumpiio.c").read()
readers = dict(re.findall(r"^int (dumpio?_read_\w+)\(.*?\{(.*?)^\}", src, flags=re.S | re.M))

CODE = [
    ("GET_DUMPI_DATATYPE_ARRAY_1", "H"), ("GET_DUMPI_INFO_ARRAY_1", "H"),
    ("GET_DUMPI_DISTRIBUTION_ARRAY_1", "B"), ("GET_DUMPI_REQUEST_ARRAY_1", "I"),
    ("GET_DUMPIO_REQUEST_ARRAY_1", "I"), ("GET_DUMPI_ERRCODE_ARRAY_1", "I"),
    ("GET_INT_ARRAY_1", "I"), ("GET_INT_ARRAY_2", "J"), ("GET_CHAR_ARRAY_1", "C"),
    ("GET_CHAR_ARRAY_2", "D"), ("GET_CHAR_ARRAY_3", "E"),
    ("GET_DUMPI_STATUS_ARRAY_1", "S"), ("GET_DUMPI_STATUS", "S"),
    ("GET_INT64_T", "l"), ("GET_INT16", "h"), ("GET_INT8", "b"),
]
WIDE = {"COMM", "DATATYPE", "GROUP", "INFO", "ERRHANDLER", "FILE", "KEYVAL", "COMM_KEYVAL",
        "TYPE_KEYVAL", "WIN_KEYVAL", "WIN"}
NARROW = {"OP", "COMBINER", "COMPARISON", "DISTRIBUTION", "FILEMODE", "LOCKTYPE", "ORDERING",
          "THREADLEVEL", "TOPOLOGY", "TYPECLASS", "WHENCE", "WIN_ASSERT"}
INT = {"DEST", "SOURCE", "TAG", "REQUEST"}


def code(stmt):
    for k, c in CODE:
        if k + "(" in stmt:
            return c
    m = re.search(r"GET_DUMPIO?_(\w+)\(", stmt)
    if m:
        k = m.group(1)
        return "h" if k in WIDE else "b" if k in NARROW else "i" if k in INT else None
    if "GET_INT(" in stmt:
        return "i"
    return None


out = []
for i, (pre, n) in enumerate(names):
    fn = ("dumpio_read_" if pre == "DUMPIO" else "dumpi_read_") + n.lower()
    if fn not in readers:
        lay = "!"  # no reader: the library never writes this call
    elif fn == "dumpi_read_init":
        lay = "A"
    elif fn == "dumpi_read_init_thread":
        lay = "abb"
    else:
        lay = ""
        body = re.sub(r"/\*.*?\*/", "", readers[fn], flags=re.S)
        for stmt in body.split(";"):
            if "have_version" in stmt and "0, 6, 9" in stmt:
                lay += "V"
                continue
            if "have_version" in stmt and "0, 6, 8" in stmt:
                lay += "W"
                continue
            c = code(stmt)
            if c is None:
                continue
            if "val->root = " in stmt:
                c = "r"
            if re.search(r"if\(val->(old)?commrank == val->root\)", stmt):
                c = "?" + c
            lay += c
        # A versioned branch: its else reads one int where newer versions read an array.
        lay = lay.replace("Vi", "V").replace("Wi", "W")
    mpi = ("MPIO_" if pre == "DUMPIO" else "MPI_") + n
    out.append(f'    ("{mpi}", "{lay}"), // {i}')
print("\n".join(out))
