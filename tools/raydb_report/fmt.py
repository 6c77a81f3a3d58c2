"""How numbers print in the tables: the same rules in every section."""


def fmt_ms(x):
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}" if x >= 1 else f"{x:.3f}"


def gb(b):
    return f"{b / 1e9:.2f}"


def device_line(r):
    return f"{r['device']} ({r['driver']} {r['driver_info']}, Vulkan {r['vulkan_api']})"


def pow2(n):
    """2^k for powers of two, the number otherwise."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def rows_e(n):
    """1e+08 as 1e8."""
    m, e = f"{n:.0e}".split("e")
    return f"{m}e{int(e)}" if float(f"{m}e{int(e)}") == n else str(n)
