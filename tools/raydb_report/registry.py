"""bench/registry.toml: the experiments' labels and targets, shared with bench/gpu/*.sh.

The report names labels by their registry key (`REG.label("paper_points")`), never by the
text a script writes, so renaming a label is one edit in the registry.
"""
import pathlib
import re
import tomllib

DEFAULT = pathlib.Path(__file__).resolve().parents[2] / "bench" / "registry.toml"


class RegistryError(KeyError):
    def __str__(self):
        return self.args[0]


class Registry:
    def __init__(self, data, path):
        self.path = path
        self.labels = data.get("labels", {})
        self.families = data.get("families", {})
        self.tables = data.get("tables", {})
        self.targets = data.get("targets", {})

    def label(self, key, fill=None):
        """The label of `key`; `fill` replaces the {} of a template."""
        if key not in self.labels:
            raise RegistryError(f"{self.path}: no label '{key}' in [labels]")
        value = self.labels[key]
        if ("{}" in value) != (fill is not None):
            raise RegistryError(f"{self.path}: label '{key}' ({value}) "
                                + ("needs a fill for {}" if fill is None else f"has no {{}} for '{fill}'"))
        return value if fill is None else value.replace("{}", str(fill), 1)

    def prefix(self, family):
        """The prefix every label of [families].`family` starts with."""
        if family not in self.families:
            raise RegistryError(f"{self.path}: no family '{family}' in [families]")
        return self.families[family]

    def in_family(self, family, label):
        return str(label or "").startswith(self.prefix(family))

    def table(self, name):
        """[tables].`name` as labels: `key` or `key:fill` for a template."""
        if name not in self.tables:
            raise RegistryError(f"{self.path}: no list '{name}' in [tables]")
        return tuple(self.label(*ref.split(":", 1)) for ref in self.tables[name])

    def target(self, name):
        if name not in self.targets:
            raise RegistryError(f"{self.path}: no [targets.{name}]")
        return self.targets[name]

    def registered(self, label):
        """Whether `label` is a registered label or a fill of a template."""
        return any(re.fullmatch(".+".join(map(re.escape, v.split("{}"))), label)
                   for v in self.labels.values())


def load(path=DEFAULT):
    path = pathlib.Path(path)
    try:
        with path.open("rb") as f:
            return Registry(tomllib.load(f), path)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SystemExit(f"{path}: {e}") from None


REG = load()
