"""Mermaid flowchart text for a :class:`~sgdebug.runtime._draw_model.DrawableGraph`.

The output is byte for byte what LangGraph 1.2 (through langchain-core) prints for the same
nodes and edges: YAML front matter, node lines, edge lines grouped into ``subgraph`` blocks
by ``:`` id prefixes, then ``classDef`` lines. Nothing here imports LangChain or PyYAML.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sgdebug.runtime._draw_parts import Edge, Node, NodeStyles

__all__ = ["MermaidOptions", "render_mermaid", "yaml_block"]

_MARKDOWN_CHARS = ("*", "_", "`")
_LABEL_ESCAPES = (
    ("#", "#35;"),
    ("[", "#91;"),
    ("]", "#93;"),
    ("(", "#40;"),
    (")", "#41;"),
    ("{", "#123;"),
    ("}", "#125;"),
    ('"', "#quot;"),
    ("<", "#60;"),
    (">", "#62;"),
    ("|", "#124;"),
)
_SAFE_ID_CHARS = frozenset(string.ascii_letters + string.digits + "_-")


@dataclass(frozen=True, slots=True)
class MermaidOptions:
    """How to render: which nodes are styled first/last, styles, label wrapping."""

    first_node: str | None
    """Id of the unique entry node, drawn as a stadium with class ``first``."""
    last_node: str | None
    """Id of the unique exit node, drawn as a stadium with class ``last``."""
    with_styles: bool
    """Emit front matter, node lines and ``classDef`` lines (else edges only)."""
    curve: str
    """Mermaid ``flowchart.curve`` value."""
    node_styles: NodeStyles
    """The three ``classDef`` styles."""
    wrap_label_n_words: int
    """Edge labels longer than this many words are broken every that many words."""
    frontmatter_config: dict[str, Any] | None
    """Extra Mermaid front matter; ``config.flowchart.curve`` is always set from ``curve``."""


def render_mermaid(nodes: dict[str, Node], edges: list[Edge], options: MermaidOptions) -> str:
    """The Mermaid text of ``nodes`` and ``edges``."""
    out: list[str] = []
    if options.with_styles:
        out.append("---\n" + yaml_block(_frontmatter(options)) + "---\ngraph TD;\n")
    else:
        out.append("graph TD;\n")
    top_nodes = {k: n for k, n in nodes.items() if ":" not in k}
    nested_nodes: dict[str, dict[str, Node]] = {}
    for key, node in nodes.items():
        if ":" in key:
            nested_nodes.setdefault(key.rsplit(":", 1)[0], {})[key] = node
    if options.with_styles:
        out.extend(_node_line(k, n, options) for k, n in top_nodes.items())
    groups: dict[str, list[Edge]] = {}
    for edge in edges:
        groups.setdefault(_common_prefix(edge.source, edge.target), []).append(edge)
    writer = _BlockWriter(out, groups, nested_nodes, options)
    writer.block(groups.get("", []), "")
    for prefix, group in groups.items():
        if prefix and ":" not in prefix:
            writer.block(group, prefix)
            writer.seen.add(prefix)
    if options.with_styles:
        for prefix, members in nested_nodes.items():
            if ":" not in prefix and prefix not in writer.seen:
                out.append(f"\tsubgraph {prefix}\n")
                out.extend(_node_line(k, n, options) for k, n in members.items())
                out.append("\tend\n")
                writer.seen.add(prefix)
        styles = options.node_styles
        out.append(f"\tclassDef default {styles.default}\n")
        out.append(f"\tclassDef first {styles.first}\n")
        out.append(f"\tclassDef last {styles.last}\n")
    return "".join(out)


@dataclass(slots=True)
class _BlockWriter:
    """Writes edge groups, nesting ``subgraph`` blocks by id prefix."""

    out: list[str]
    groups: dict[str, list[Edge]]
    nested_nodes: dict[str, dict[str, Node]]
    options: MermaidOptions
    seen: set[str] = field(default_factory=set)
    """Names of the subgraph blocks already written."""

    def block(self, edges: list[Edge], prefix: str) -> None:
        """Write ``edges`` (in a ``subgraph`` block when ``prefix`` is set), then nested groups."""
        seen = self.seen
        self_loop = len(edges) == 1 and edges[0].source == edges[0].target
        opened = bool(prefix) and not self_loop
        if opened:
            name = prefix.rsplit(":", 1)[-1]
            if name in seen:
                raise ValueError(
                    f"Found duplicate subgraph '{name}' -- this likely means that "
                    "you're reusing a subgraph node with the same name. "
                    "Please adjust your graph to have subgraph nodes with unique names."
                )
            seen.add(name)
            self.out.append(f"\tsubgraph {name}\n")
            if self.options.with_styles:
                members = self.nested_nodes.get(prefix, {})
                self.out.extend(_node_line(k, n, self.options) for k, n in members.items())
        self.out.extend(_edge_line(e, self.options.wrap_label_n_words) for e in edges)
        for nested, group in self.groups.items():
            if nested == prefix or not nested.startswith(prefix + ":"):
                continue
            if ":" in nested[len(prefix) + 1 :]:
                continue
            self.block(group, nested)
        if opened:
            self.out.append("\tend\n")


def _common_prefix(source: str, target: str) -> str:
    pairs = zip(source.split(":"), target.split(":"), strict=False)
    return ":".join(s for s, t in pairs if s == t)


def _frontmatter(options: MermaidOptions) -> dict[str, Any]:
    given = options.frontmatter_config or {}
    config = given.get("config", {})
    flowchart = {**config.get("flowchart", {}), "curve": options.curve}
    return {**given, "config": {**config, "flowchart": flowchart}}


def safe_id(label: str) -> str:
    """``label`` with every character outside ``[A-Za-z0-9_-]`` as ``\\`` + hex code point."""
    return "".join(c if c in _SAFE_ID_CHARS else "\\" + format(ord(c), "x") for c in label)


def _node_line(key: str, node: Node, options: MermaidOptions) -> str:
    name = node.name.split(":")[-1]
    label = f"<p>{name}</p>" if _is_markdown_wrapped(name) else name
    meta = _metadata_lines(node.metadata or {})
    if meta:
        label = f"{label}<hr/><small><em>" + "\n".join(meta) + "</em></small>"
    if key == options.last_node:  # a lone node is both: LangGraph styles it last
        shape = f"{safe_id(key)}([{label}]):::last"
    elif key == options.first_node:
        shape = f"{safe_id(key)}([{label}]):::first"
    else:
        shape = f"{safe_id(key)}({label})"
    return f"\t{shape}\n"


def _is_markdown_wrapped(name: str) -> bool:
    return name.startswith(_MARKDOWN_CHARS) and name.endswith(_MARKDOWN_CHARS)


def _metadata_lines(metadata: dict[str, Any]) -> list[str]:
    lines = []
    for key, value in metadata.items():
        text = _metadata_value(value)
        if text is not None:
            lines.append(_escape_label(f"{key} = {text}"))
    return lines


def _metadata_value(value: Any) -> str | None:
    scalars = (str, int, float, bool)
    if isinstance(value, scalars):
        return str(value)
    if isinstance(value, list | tuple | set) and all(isinstance(v, scalars) for v in value):
        items = [str(v) for v in value]
        return ", ".join(sorted(items) if isinstance(value, set) else items)
    return None


def _escape_label(text: str) -> str:
    for char, entity in _LABEL_ESCAPES:
        text = text.replace(char, entity)
    return text


def _edge_line(edge: Edge, wrap_words: int) -> str:
    if edge.data is None:
        arrow = " -.-> " if edge.conditional else " --> "
    else:
        label = str(edge.data)
        words = label.split()
        if len(words) > wrap_words:
            label = "&nbsp<br>&nbsp".join(
                " ".join(words[i : i + wrap_words]) for i in range(0, len(words), wrap_words)
            )
        arrow = (
            f" -. &nbsp;{label}&nbsp; .-> " if edge.conditional else f" -- &nbsp;{label}&nbsp; --> "
        )
    return f"\t{safe_id(edge.source)}{arrow}{safe_id(edge.target)};\n"


# --- a small YAML block emitter (what PyYAML's ``dump`` prints for plain config values) ---

_YAML_BOOLS = "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
_YAML_IMPLICIT = re.compile(
    rf"^(?:{_YAML_BOOLS}|~|null|Null|NULL|<<|="
    r"|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
    r"|[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$"
)


_YAML_WIDTH = 80
"""PyYAML folds scalars with spaces that run past this column."""
_YAML_ESCAPES = {
    "\0": "0",
    "\x07": "a",
    "\x08": "b",
    "\t": "t",
    "\n": "n",
    "\x0b": "v",
    "\x0c": "f",
    "\r": "r",
    "\x1b": "e",
    '"': '"',
    "\\": "\\",
    "\x85": "N",
    "\xa0": "_",
    "\u2028": "L",
    "\u2029": "P",
}


class _FoldedScalar(Exception):
    """A scalar PyYAML would fold over several lines: left to PyYAML itself."""


def yaml_block(value: dict[str, Any]) -> str:
    """``value`` as PyYAML's block style (sorted keys, two-space indent), ending in a newline.

    Scalars PyYAML would fold across lines (line breaks, long texts) are rare in Mermaid
    configs; for those PyYAML itself is used when installed, else they stay on one line.
    """
    try:
        return _YamlEmitter(exact=True).document(value)
    except _FoldedScalar:
        pass
    try:
        import yaml  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return _YamlEmitter(exact=False).document(value)
    return str(yaml.dump(value, default_flow_style=False))


@dataclass(slots=True)
class _YamlEmitter:
    """Block-style YAML of plain config values; ``exact`` refuses what it cannot match."""

    exact: bool
    lines: list[str] = field(default_factory=list)

    def document(self, value: dict[str, Any]) -> str:
        self.mapping(value, "")
        return "".join(line + "\n" for line in self.lines)

    def mapping(self, value: dict[Any, Any], indent: str) -> None:
        for key in sorted(value):
            self.entry(f"{indent}{self.scalar(key)}:", value[key], indent)

    def entry(self, head: str, value: Any, indent: str) -> None:
        if isinstance(value, dict) and value:
            self.lines.append(head)
            self.mapping(value, indent + "  ")
        elif isinstance(value, list | tuple) and value:
            self.lines.append(head)
            for item in value:
                self.item(item, indent)
        else:
            line = f"{head} {self.scalar(value)}"
            if self.exact and len(line) > _YAML_WIDTH and isinstance(value, str) and " " in value:
                raise _FoldedScalar(line)
            self.lines.append(line)

    def item(self, item: Any, indent: str) -> None:
        if isinstance(item, dict) and item:
            sub = _YamlEmitter(self.exact)
            sub.mapping(item, "")
            self.lines.append(f"{indent}- {sub.lines[0]}")
            self.lines.extend(f"{indent}  {line}" for line in sub.lines[1:])
        else:
            self.lines.append(f"{indent}- {self.scalar(item)}")

    def scalar(self, value: Any) -> str:
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return _yaml_float(value)
        if isinstance(value, dict):
            return "{}"
        if isinstance(value, list | tuple):
            return "[]"
        text = str(value)
        if self.exact and "\n" in text:
            raise _FoldedScalar(text)
        return _yaml_string(text)


def _yaml_float(value: float) -> str:
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    if "." not in text and "e" in text:
        text = text.replace("e", ".0e", 1)
    return text


def _yaml_string(text: str) -> str:
    if not text.isascii() or not text.isprintable():
        return '"' + "".join(_yaml_escape(c) for c in text) + '"'
    if _yaml_plain_ok(text):
        return text
    return "'" + text.replace("'", "''") + "'"


def _yaml_escape(char: str) -> str:
    if char in _YAML_ESCAPES:
        return "\\" + _YAML_ESCAPES[char]
    if " " <= char <= "~":
        return char
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02X}"
    return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def _yaml_plain_ok(text: str) -> bool:
    if not text or text != text.strip() or _YAML_IMPLICIT.match(text):
        return False
    if text[0] in "#,[]{}&*!|>'\"%@`" or text.startswith(("---", "...")):
        return False
    if text[0] in "-?:" and (len(text) == 1 or text[1] == " "):
        return False
    return ": " not in text and " #" not in text and not text.endswith(":")
