"""Reading a params YAML file as untrusted input, with the line of every key.

:func:`load_params_file` parses with PyYAML's safe loader (plain data only: mappings, lists,
strings, numbers, booleans, null) and adds three checks the safe loader lacks:

* **alias budget** — an alias (``*name``) repeats its anchor's whole subtree; a file of a few
  lines can nest aliases to stand for billions of values (the "billion laughs" file), which then
  hangs or exhausts memory in whatever walks the data. While composing, every node's size *with
  aliases expanded* is counted (each anchored subtree once, so counting is linear in the file);
  a document larger than :data:`MAX_NODES` values is refused.
* **duplicate keys** — PyYAML keeps the last of two equal keys silently; here it is an error.
* **tags** — ``!!python/...`` and every other non-standard tag is refused by name.

Every problem is a :class:`ParamsFileError` (a ``ValueError``) with a one-line message naming
the file and line. :meth:`ParamsFile.line_of` maps a key path such as
``trainer.fit.train_dataloader.batch_size`` or ``trainer[1].trainer.init.loop`` to the line it
was written on, so configuration errors can point at it.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, List, Optional, Union

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from .errors import UserError, short_repr

__all__ = ["MAX_NODES", "ParamsFile", "ParamsFileError", "load_params_file", "safe_load_limited",
           "split_key_path"]

#: Largest number of values (alias expansions counted) a params file may stand for. Real
#: trainer configs have a few hundred.
MAX_NODES = 100_000

_STANDARD_TAGS = {f"tag:yaml.org,2002:{t}" for t in (
    "str", "int", "float", "bool", "null", "seq", "map", "timestamp", "binary", "set", "omap",
    "pairs", "merge", "value")}


class ParamsFileError(UserError, ValueError):
    """A params file that cannot be read: not a file, invalid YAML, refused content."""


def _where(name, mark) -> str:
    if mark is None:
        return str(name)
    return f"{name}, line {mark.line + 1}"


class _LimitedLoader(yaml.SafeLoader):
    """SafeLoader that counts expanded nodes, refuses duplicate keys and unknown tags."""

    def __init__(self, stream, name, max_nodes):
        super().__init__(stream)
        self._name = name
        self._max_nodes = max_nodes
        self._sizes = {}

    def compose_node(self, parent, index):
        node = super().compose_node(parent, index)
        key = id(node)
        if key in self._sizes:  # an alias: its anchor was counted already
            return node
        if node.tag not in _STANDARD_TAGS:
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            raise ParamsFileError(
                f"{_where(self._name, node.start_mark)}: the tag {tag} is not allowed: only plain "
                f"data is read (mappings, lists, strings, numbers, booleans, null)")
        size = 1
        if isinstance(node, SequenceNode):
            size += sum(self._sizes.get(id(c), 1) for c in node.value)
        elif isinstance(node, MappingNode):
            seen = {}
            for k, v in node.value:
                size += self._sizes.get(id(k), 1) + self._sizes.get(id(v), 1)
                if isinstance(k, ScalarNode) and k.tag != "tag:yaml.org,2002:merge":
                    ident = (k.tag, k.value)
                    if ident in seen:
                        raise ParamsFileError(
                            f"{_where(self._name, k.start_mark)}: the key {short_repr(k.value)} "
                            f"appears twice in the same mapping (first on line {seen[ident]}); "
                            f"keep one of them")
                    seen[ident] = k.start_mark.line + 1
        self._sizes[key] = size
        if size > self._max_nodes:
            raise ParamsFileError(
                f"{_where(self._name, node.start_mark)}: this value expands to more than "
                f"{self._max_nodes:,} values through YAML aliases (*name); a params file that "
                f"large is refused: write the values out, or use fewer nested aliases")
        return node


def safe_load_limited(text: Union[str, bytes], name="<string>", max_nodes: int = MAX_NODES):
    """``(data, root node)`` of one YAML document, with the checks of this module.

    Raises:
        ParamsFileError: invalid YAML (with its line and column), a refused tag, a duplicate
            key, or more than ``max_nodes`` values once aliases are expanded.
    """
    loader = _LimitedLoader(text, name, max_nodes)
    try:
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        except yaml.MarkedYAMLError as e:
            raise ParamsFileError(_yaml_error(name, e)) from None
        except yaml.YAMLError as e:
            raise ParamsFileError(f"{name}: invalid YAML: "
                                  f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") \
                from None
    finally:
        loader.dispose()
    return data, node


def _yaml_error(name, e) -> str:
    mark = e.problem_mark or e.context_mark
    where = name if mark is None else f"{name}, line {mark.line + 1}, column {mark.column + 1}"
    problem = " ".join((e.problem or e.context or "invalid YAML").split())
    hint = ""
    if "mapping values are not allowed" in problem or "expected <block end>" in problem \
            or "did not find expected key" in problem:
        hint = " (check the indentation of this line and of the lines above it)"
    elif "found character '\\t'" in problem:
        hint = " (YAML indents with spaces, not tabs)"
    elif "could not find expected ':'" in problem:
        hint = " (a key needs ': ' after it)"
    return f"{where}: invalid YAML: {problem}{hint}"


_COMPONENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def split_key_path(path: str) -> List[Union[str, int]]:
    """``"trainer[0].trainer.init.loop"`` -> ``["trainer", 0, "trainer", "init", "loop"]``."""
    out = []
    for m in _COMPONENT.finditer(path or ""):
        out.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
    return out


class ParamsFile:
    """A parsed params file: ``data`` (plain Python) and the line of each key path."""

    def __init__(self, path, data: Any, root):
        self.path = Path(path)
        self.data = data
        self._root = root

    def line_of(self, key_path: str) -> Optional[int]:
        """The 1-based line of the deepest part of ``key_path`` written in the file (a key
        path the file does not contain fully points at its nearest written parent)."""
        node, line = self._root, None
        if node is None:
            return None
        for part in split_key_path(key_path):
            nxt = None
            if isinstance(part, int) and isinstance(node, SequenceNode):
                if 0 <= part < len(node.value):
                    nxt = node.value[part]
                    line = nxt.start_mark.line + 1
            elif isinstance(part, int) and isinstance(node, MappingNode) and part == 0:
                continue  # a single mapping given where a list is allowed
            elif isinstance(node, MappingNode):
                for k, v in node.value:
                    if isinstance(k, ScalarNode) and k.value == str(part):
                        nxt = v
                        line = k.start_mark.line + 1
                        break
            if nxt is None:
                break
            node = nxt
        if line is None and self._root is not None:
            line = self._root.start_mark.line + 1
        return line

    def where(self, key_path: str) -> str:
        """``"params.yaml, line 14"`` (or just the file name when the line is unknown)."""
        line = self.line_of(key_path)
        return f"{self.path}, line {line}" if line else str(self.path)


def load_params_file(path, max_nodes: int = MAX_NODES) -> ParamsFile:
    """Read and parse a params YAML file (see the module doc).

    Raises:
        ParamsFileError: the path is missing, a directory or unreadable, or its content is
            refused (invalid YAML, a tag, a duplicate key, an alias bomb).
    """
    path = Path(path)
    if not path.exists():
        raise ParamsFileError(f"{path}: no such file; pass the path of a params YAML file "
                              f"(e.g. examples/fc_mnist.yaml)")
    if path.is_dir():
        raise ParamsFileError(f"{path}: is a directory; pass the path of a params YAML file "
                              f"inside it" + _yaml_files_hint(path))
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ParamsFileError(f"{path}: cannot be read: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ParamsFileError(f"{path}: is not a UTF-8 text file (byte {e.start}); pass a params "
                              f"YAML file") from None
    data, root = safe_load_limited(text, str(path), max_nodes)
    return ParamsFile(path, data, root)


def _yaml_files_hint(directory: Path) -> str:
    try:
        names = sorted(p.name for p in directory.iterdir()
                       if p.suffix in (".yaml", ".yml") and p.is_file())
    except OSError:
        return ""
    if not names:
        return ""
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return f" ({shown})"
