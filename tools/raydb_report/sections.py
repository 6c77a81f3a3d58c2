"""The named result sections and the markers that hold them in a Markdown file.

Each section lies between `<!-- results:<name>:begin -->` and `<!-- results:<name>:end -->`; today
all of them are in RESULTS.md. Moving some to another file (RESULTS.md) needs only the markers
moved and cli.FILES told which file holds which section.
"""
from .cgrx import cgrx_section
from .e2e import e2e_section
from .join import join_section
from .optix import optix_section
from .rtscan import rtscan_section
from .rx import rx_section
from .scaling import scaling_section
from .scans import bandwidth_section
from .sql import sql_section
from .ssb import ssb_section
from .ssb_geometry import ssb_geometry_section
from .thesis import thesis_section

# name -> the function making its lines from bench/results (a pathlib.Path); in RESULTS.md order.
SECTIONS = {
    "rx": rx_section,
    "e2e": e2e_section,
    "optix": optix_section,
    "cgrx": cgrx_section,
    "join": join_section,
    "rtscan": rtscan_section,
    "ssb": ssb_section,
    "ssb_geometry": ssb_geometry_section,
    "sql": sql_section,
    "scaling": scaling_section,
    "bandwidth": bandwidth_section,
    "thesis": thesis_section,
}


class MarkerError(ValueError):
    pass


def markers(name):
    return f"<!-- results:{name}:begin -->", f"<!-- results:{name}:end -->"


def generate(results, names=None):
    """{name: the section's lines} for `names` (default: all, in order)."""
    return {n: SECTIONS[n](results) for n in (names or SECTIONS)}


def extract(text, name, source="text"):
    """The text between a section's markers (what `replace` put there)."""
    b, e = markers(name)
    if b not in text or e not in text:
        raise MarkerError(f"{source} lacks the {b} / {e} markers")
    body = text.split(b, 1)[1].split(e, 1)[0]
    return body[1:-1] if body.startswith("\n") and body.endswith("\n") else body


def replace(text, sections, source="text"):
    """`text` with each named section's lines put between its markers."""
    for name, body in sections.items():
        b, e = markers(name)
        if b not in text or e not in text:
            raise MarkerError(f"{source} lacks the {b} / {e} markers")
        head, rest = text.split(b, 1)
        _, tail = rest.split(e, 1)
        text = head + b + "\n" + "\n".join(body) + "\n" + e + tail
    return text


def write(path, sections):
    """Rewrites the named sections in the file at `path`."""
    path.write_text(replace(path.read_text(), sections, source=path.name))
