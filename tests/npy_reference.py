#!/usr/bin/env python3
"""npy_reference.py: the expected results of `clfold reduce`, from NumPy.

test_cli.sh and test_cli_robust.sh (through cli_checks.sh) use it so that the
runner is judged by a reader and a reference that share no code with it: the
.npy files are read by numpy.load, not by src/cli/npy.c, and the results come
from NumPy and exact rational arithmetic, not from src/reference/.

  npy_reference.py check CASES   judges the results listed in CASES, one per
                                 line, tab-separated: FILE OP KERNEL ACCURACY
                                 GOT LABEL (GOT as the runner printed it).
                                 Prints "ok LABEL" or "FAIL: LABEL: why" for
                                 each; exits 1 if any failed or none was listed.
  npy_reference.py data DIR      writes mixed_TYPE.npy and prod_TYPE.npy for
                                 TYPE half, float and double into DIR: sums
                                 that round often, and products that round
                                 often yet never overflow or underflow.

What counts as right (docs/accuracy.md):
  - integer sums and products: NumPy's, accumulated in int64 (signed types)
    or uint64 (unsigned), wrapping; min, max and bitwise operators in the
    element type. These must match exactly.
  - float min and max: NumPy's, with -0 below +0 and any NaN giving NaN;
    half's result is a float. These must match exactly, sign of zero included.
  - float sums and products: within the documented error bound of the exact
    value, which is computed with fractions.Fraction (no rounding at all).
"""
import sys
from fractions import Fraction

import numpy as np

# Float element types and the type of their results (half gives float).
FLOAT_RESULT = {np.dtype(np.float16): np.float32, np.dtype(np.float32): np.float32,
                np.dtype(np.float64): np.float64}
OPS = ("sum", "prod", "min", "max", "and", "or", "xor")
ACCURACIES = ("default", "compensated", "fp64", "exact")
BITWISE = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def result_type(dtype, op):
    """The result type of docs/accuracy.md's table: int64/uint64 for integer sum and
    prod, the element type for the other integer operators, float for half."""
    if dtype in FLOAT_RESULT:
        return np.dtype(FLOAT_RESULT[dtype])
    if op in ("sum", "prod"):
        return np.dtype(np.int64 if dtype.kind == "i" else np.uint64)
    return dtype


def identity(dtype, op):
    """The library's result for an empty array, where NumPy has none (min, max)."""
    rtype = result_type(dtype, op)
    if op in ("min", "max"):
        if rtype.kind == "f":
            return rtype.type(np.inf if op == "min" else -np.inf)
        info = np.iinfo(rtype)
        return rtype.type(info.max if op == "min" else info.min)
    return None  # NumPy's own identity is the library's


def exact_result(a, op):
    """The one right answer for integers and for float min and max."""
    rtype = result_type(a.dtype, op)
    if a.size == 0 and identity(a.dtype, op) is not None:
        return identity(a.dtype, op)
    if op == "sum":
        return np.sum(a, dtype=rtype)
    if op == "prod":
        return np.prod(a, dtype=rtype)
    if op in BITWISE:
        return BITWISE[op].reduce(a, axis=None, dtype=rtype)
    value = np.min(a) if op == "min" else np.max(a)
    if value == 0 and a.dtype.kind == "f":
        # NumPy leaves the sign of a zero result open; the library orders -0 below +0.
        negative = np.signbit(a[a == 0])
        keep_negative = negative.any() if op == "min" else negative.all()
        value = -0.0 if keep_negative else 0.0
    return rtype.type(value)


def parse(text, rtype):
    """The runner's output as a value of the result type; ValueError if it is not one."""
    if rtype.kind == "f":
        if text.strip() != text or not text:
            raise ValueError(text)
        return rtype.type(text)  # "%.9g"/"%.17g" round-trip exactly; "nan" and "inf" parse
    if not text or not (text.isdigit() or (text[0] == "-" and text[1:].isdigit())):
        raise ValueError(text)
    return int(text)


def same(got, want):
    """Exact equality: NaN equals NaN, and -0 differs from +0."""
    if isinstance(got, int):
        return got == int(want)
    if np.isnan(got) or np.isnan(want):
        return bool(np.isnan(got) and np.isnan(want))
    return bool(got == want and np.signbit(got) == np.signbit(want))


def bound(op, rtype, n, kernel, accuracy, exact, sum_abs):
    """docs/accuracy.md's bound on |got - exact| for a float sum or product, as a Fraction.
    u = 2^-24 for float and half results, 2^-53 for double; L = ceil(log2 n)."""
    u = Fraction(1, 2**24) if rtype == np.float32 else Fraction(1, 2**53)
    levels = (n - 1).bit_length() if n > 1 else 0
    if op == "prod":  # and half the smallest subnormal, for a result that is one
        return (n + 1) * u * abs(exact) + (Fraction(1, 2**150) if rtype == np.float32 else Fraction(1, 2**1075))
    if kernel == "atomic":  # a sequential order, whatever the accuracy
        return (n + 1) * u * sum_abs
    if accuracy == "compensated":
        return 2 * u * abs(exact) + ((levels + 2) ** 2 + Fraction(n, 8192)) * u * u * sum_abs
    if accuracy == "fp64":
        return u * abs(exact) + (levels + 4) * Fraction(1, 2**53) * sum_abs
    return (levels + 4) * u * sum_abs


def correctly_rounded(value, rtype):
    """The Fraction `value` rounded once, to nearest-even, to rtype (float32 or
    float64), with subnormals and overflow to infinity as IEEE 754 rounds."""
    precision, lowest, top = (24, -149, 128) if rtype == np.float32 else (53, -1074, 1024)
    if value == 0:
        return rtype.type(0.0)
    magnitude = abs(value)
    exponent = max(magnitude.numerator.bit_length() - magnitude.denominator.bit_length() - precision - 1,
                   lowest)
    while magnitude >= Fraction(2) ** (exponent + precision):
        exponent += 1
    while exponent > lowest and magnitude < Fraction(2) ** (exponent + precision - 1):
        exponent -= 1
    rounded = round(magnitude / Fraction(2) ** exponent) * Fraction(2) ** exponent  # half to even
    if rounded >= Fraction(2) ** top:
        result = rtype.type(np.inf)
    else:
        result = rtype.type(float(rounded))  # exact: rounded fits rtype
    return -result if value < 0 else result


class Reference:
    """Arrays and their exact sums and products, each computed once."""

    def __init__(self):
        self.arrays, self.exact = {}, {}

    def array(self, path):
        if path not in self.arrays:
            # The values as NumPy reads them, in the host's byte order, as clfold returns them.
            a = np.load(path, allow_pickle=False)
            self.arrays[path] = a.astype(a.dtype.newbyteorder("="), copy=False)
        return self.arrays[path]

    def exact_float(self, path, op):
        """(exact value, sum of |x|) of a float sum or product, or None if
        the data hold an infinity or a NaN."""
        key = (path, op)
        if key not in self.exact:
            values = self.array(path).astype(np.float64).ravel()  # exact for half and float
            if not np.isfinite(values).all():
                self.exact[key] = None
            else:
                fractions = [Fraction(x) for x in values.tolist()]
                if op == "sum":
                    self.exact[key] = (sum(fractions, Fraction(0)), sum(map(abs, fractions), Fraction(0)))
                else:
                    product = Fraction(1)
                    for x in fractions:
                        product *= x
                    self.exact[key] = (product, None)
        return self.exact[key]

    def judge(self, path, op, kernel, accuracy, text):
        """None if `text` is the right result of OP over the file, else why not."""
        a = self.array(path)
        rtype = result_type(a.dtype, op)
        try:
            got = parse(text, rtype)
        except ValueError:
            return f"'{text}' is not a {rtype} value"
        if a.dtype.kind == "f" and op in BITWISE:
            return "a bitwise operator on floats has no result"
        if a.dtype.kind != "f" or op in ("min", "max"):
            want = exact_result(a, op)
            return None if same(got, want) else f"got {text}, NumPy says {want}"
        exact = self.exact_float(path, op)
        if exact is None:  # infinities or NaN: the special value NumPy gives
            values = a.astype(np.float64)
            want = rtype.type(np.sum(values) if op == "sum" else np.prod(values))
            return None if same(got, want) else f"got {text}, NumPy says {want}"
        value, sum_abs = exact
        if accuracy == "exact" and op == "sum":
            want = correctly_rounded(value, rtype)
            return None if same(got, want) or (value == 0 and got == 0) else \
                f"got {text}, the correctly rounded sum is {want!r}"
        if not np.isfinite(got):
            return f"got {text}, exact {float(value)!r}"
        error = abs(Fraction(float(got)) - value)
        limit = bound(op, rtype, a.size, kernel, accuracy, value, sum_abs)
        if error > limit:
            return (f"got {text}, exact {float(value)!r}: error {float(error):.3g} "
                    f"is above the documented bound {float(limit):.3g}")
        return None


def check(cases_path):
    reference, checked, failed = Reference(), 0, 0
    with open(cases_path, encoding="utf-8") as cases:
        for line in cases:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 6 or fields[1] not in OPS or fields[3] not in ACCURACIES:
                print(f"FAIL: npy_reference.py: a malformed case: {line!r}")
                failed += 1
                continue
            path, op, kernel, accuracy, text, label = fields
            try:
                why = reference.judge(path, op, kernel, accuracy, text)
            except (OSError, ValueError) as e:  # numpy.load could not read the file
                why = f"NumPy cannot read {path}: {e}"
            checked += 1
            if why is None:
                print(f"ok {label}")
            else:
                print(f"FAIL: {label}: {why}")
                failed += 1
    if checked == 0:
        print("FAIL: npy_reference.py: no case to check")
        return 1
    return 1 if failed else 0


def write_data(folder):
    """Writes two kinds of float data, as half, float and double:
    mixed_TYPE.npy: mixed signs and magnitudes with full mantissas, so that
      every order of summation rounds often and the sum (far smaller than
      the sum of |x|) tells a compensated sum from a plain one;
    prod_TYPE.npy: mostly +-1, so that the partial products of any order stay
      within 2^-37..2^54, far inside float's range; the factors 3/2, 3/4, 5/4
      and 1 + 2^-10 make the mantissas grow, so that float and double both
      round many times (the exact product, about 1e5, has hundreds of bits);
    range_TYPE.npy, range_zero_TYPE.npy: products whose partial products
      leave the type's range in most orders, without and with a zero."""
    rng = np.random.default_rng(20240610)
    n = 10007
    factors = [1.5] * 40 + [0.75] * 40 + [1.25] * 30 + [2.0] * 20 + [0.5] * 20 + [1 + 2**-10] * 100
    product = np.ones(n)
    product[: len(factors)] = factors
    product *= rng.choice([-1.0, 1.0], size=n)
    rng.shuffle(product)
    mantissas = rng.uniform(-1, 1, n)
    for name, dtype, exponents in (("half", np.float16, 6), ("float", np.float32, 30),
                                   ("double", np.float64, 30)):
        mixed = np.ldexp(mantissas, rng.integers(-exponents, exponents + 1, n)).astype(dtype)
        np.save(f"{folder}/mixed_{name}.npy", mixed)
        data = product.astype(dtype)
        assert (data.astype(np.float64) == product).all()  # every factor is exact in every type
        np.save(f"{folder}/prod_{name}.npy", data)
        # Factors near 2^E and 2^-E, alternating, whose pairs multiply to about 1:
        # strided runs and trees meet many large ones together (docs/accuracy.md,
        # "Float products"); then the same with one zero, whose product is 0.
        e = {"half": 13, "float": 100, "double": 1000}[name]
        significands = rng.uniform(1, 2, n // 2).astype(dtype).astype(np.float64)
        big = np.ldexp(significands, e).astype(dtype)
        small = np.ldexp(1 / significands, -e).astype(dtype)
        ranged = np.empty(2 * (n // 2), dtype)
        ranged[0::2], ranged[1::2] = big, small
        assert np.isfinite(ranged).all() and (ranged != 0).all()
        np.save(f"{folder}/range_{name}.npy", ranged)
        ranged[rng.integers(len(ranged))] = 0
        np.save(f"{folder}/range_zero_{name}.npy", ranged)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "check":
        return check(argv[2])
    if len(argv) == 3 and argv[1] == "data":
        return write_data(argv[2])
    print("usage: npy_reference.py check CASES | npy_reference.py data DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
