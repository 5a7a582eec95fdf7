#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus: tests/fuzz/corpus/npy/ (.npy images as
NumPy writes them, and near misses) and tests/fuzz/corpus/args/ (command
lines, words separated by NUL bytes). Run from anywhere; the files are
committed, this script only documents where they came from."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def npy(dict_text, data=b"", major=1):
    prefix = 10 if major == 1 else 12
    total = (prefix + len(dict_text) + 1 + 63) // 64 * 64
    length = total - prefix
    head = b"\x93NUMPY" + bytes([major, 0])
    head += struct.pack("<H" if major == 1 else "<I", length)
    return head + dict_text.encode().ljust(length - 1) + b"\n" + data


def d(descr, shape, fortran="False"):
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)


NPY = {
    "int32_3": npy(d("<i4", "(3,)"), struct.pack("<3i", 1, -2, 3)),
    "float32_2x2": npy(d("<f4", "(2, 2)"), struct.pack("<4f", 1.5, -0.0, float("inf"), 2)),
    "uint8_v2": npy(d("|u1", "(5,)"), bytes(range(5)), major=2),
    "float64_scalar_v3": npy(d("<f8", "()"), struct.pack("<d", 2.5), major=3),
    "half_4": npy(d("<f2", "(4,)"), struct.pack("<4H", 0x3C00, 0x7C00, 0x7E00, 0x8000)),
    "int64_empty": npy(d("<i8", "(0,)")),
    "int16_3d": npy(d("<i2", "(2, 1, 3)"), struct.pack("<6h", *range(6))),
    "fortran_row": npy(d("<u4", "(1, 3)", "True"), struct.pack("<3I", 7, 8, 9)),
    "fortran_2d": npy(d("<u4", "(2, 3)", "True"), bytes(24)),
    "native_order": npy(d("=i2", "(2,)"), b"\x01\x00\x02\x00"),
    "int8_any_order": npy(d(">i1", "(2,)"), b"\x80\x7f"),
    "python2_long": npy(d("<i4", "(2L,)"), bytes(8)),
    "double_quotes": npy('{"descr": "<u2", "fortran_order": False, "shape": (1,)}', b"\xff\xff"),
    "keys_reordered": npy("{'shape': (1,), 'fortran_order': False, 'descr': '<i4'}", bytes(4)),
    "bool": npy(d("|b1", "(2,)"), b"\x01\x00"),
    "complex": npy(d("<c8", "(1,)"), bytes(8)),
    "big_endian": npy(d(">f8", "(1,)"), bytes(8)),
    "structured": npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", bytes(4)),
    "truncated": npy(d("<f4", "(10,)"), bytes(12)),
    "extra_bytes": npy(d("<f4", "(1,)"), bytes(8)),
    "shape_overflow": npy(d("<f4", "(4294967296, 4294967296, 16)")),
    "header_past_end": npy(d("<i4", "(1,)"), bytes(4))[:30],
    "unknown_key": npy("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'x': 1}", bytes(4)),
    "not_npy": b"PK\x03\x04 not an array",
}

ARGS = {
    "devices_json": ["devices", "--format", "json"],
    "ladder_full": ["ladder", "-d", "0:0", "-n", "2^12", "-t", "float", "-o", "max", "-b", "64",
                    "--accuracy", "compensated", "--format=csv", "-v"],
    "ladder_count": ["ladder", "-n", "12345"],
    "reduce_file": ["reduce", "-k", "k6", "-b", "256", "--op=xor", "file.npy"],
    "reduce_long": ["reduce", "--device=pthread", "--kernel", "atomic", "--accuracy=fp64", "x.npy"],
    "help": ["reduce", "--help"],
    "version": ["--version"],
    "bad_count": ["ladder", "-n", "12abc"],
    "bad_block": ["ladder", "-b", "3"],
    "missing_value": ["ladder", "--format"],
    "unknown": ["frobnicate", "-x"],
    # fuzz_args found it: a line break in a quoted word made the reason two lines
    "newline_in_option": ["reduce", "--\nkernel", "x.npy"],
}


def main():
    for sub, table, ext in (("npy", NPY, ".npy"), ("args", ARGS, "")):
        folder = os.path.join(HERE, "corpus", sub)
        os.makedirs(folder, exist_ok=True)
        for name, value in table.items():
            data = value if isinstance(value, bytes) else b"\0".join(w.encode() for w in value)
            with open(os.path.join(folder, name + ext), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
