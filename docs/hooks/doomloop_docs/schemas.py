"""Field-by-field reference pages generated from spec/schema/**/*.json.

Each schema file becomes one page: its root object, then one section per
``$defs`` entry (anchor ``def-<name>``), each with a table of fields (name,
type and constraints, required or not, description) and the schema's
conditional rules in words. Statement ids in descriptions link to the spec.
Nothing here is written by hand: the pages follow the JSON files.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .util import STATEMENT_ID, md_cell, md_text

SCHEMA_SUFFIXES = (".schema.json", ".json")

CONSTRAINT_WORDS = [
    ("minLength", "length ≥ {}"),
    ("maxLength", "length ≤ {}"),
    ("minimum", "≥ {}"),
    ("exclusiveMinimum", "> {}"),
    ("maximum", "≤ {}"),
    ("exclusiveMaximum", "< {}"),
    ("multipleOf", "multiple of {}"),
    ("minItems", "at least {} items"),
    ("maxItems", "at most {} items"),
    ("minProperties", "at least {} members"),
    ("maxProperties", "at most {} members"),
]


def code(text: str) -> str:
    """An inline code span that survives any backticks in ``text``."""
    ticks = "`"
    while ticks in text:
        ticks += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def jcode(value: Any) -> str:
    return code(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))


def page_uri_for(rel: str) -> str:
    """``protocol/hello.schema.json`` -> ``schemas/protocol/hello.md``."""
    for suffix in SCHEMA_SUFFIXES:
        if rel.endswith(suffix):
            return "schemas/" + rel[: -len(suffix)] + ".md"
    return "schemas/" + rel + ".md"


@dataclass
class SchemaFile:
    rel: str
    """Path under spec/schema/, POSIX style."""
    data: Any
    page_uri: str

    @property
    def json_uri(self) -> str:
        return "spec/schema/" + self.rel

    @property
    def title(self) -> str:
        if isinstance(self.data, dict) and isinstance(self.data.get("title"), str):
            return str(self.data["title"])
        return self.rel


def load(schema_dir: Path) -> tuple[list[SchemaFile], list[str]]:
    """Every schema file under ``schema_dir`` (sorted), and the problems found."""
    files: list[SchemaFile] = []
    problems: list[str] = []
    for path in sorted(schema_dir.rglob("*.json")):
        rel = path.relative_to(schema_dir).as_posix()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            problems.append(f"spec/schema/{rel}: not readable JSON ({error})")
            continue
        files.append(SchemaFile(rel=rel, data=data, page_uri=page_uri_for(rel)))
    return files, problems


class Renderer:
    """Renders one schema file; resolves ``$ref``s to links between the pages."""

    def __init__(
        self,
        schema: SchemaFile,
        all_files: list[SchemaFile],
        statement_page: Callable[[str], str | None],
    ) -> None:
        self.schema = schema
        self.by_rel = {f.rel: f for f in all_files}
        self.by_id = {
            f.data["$id"].split("#")[0]: f
            for f in all_files
            if isinstance(f.data, dict) and isinstance(f.data.get("$id"), str)
        }
        self.statement_page = statement_page
        self.page_dir = posixpath.dirname(schema.page_uri)
        self.problems: list[str] = []

    # -- links ------------------------------------------------------------------------

    def link(self, target_uri: str, anchor: str | None = None) -> str:
        rel = posixpath.relpath(target_uri, self.page_dir)
        return rel + (f"#{anchor}" if anchor else "")

    def text(self, description: str) -> str:
        """A description as Markdown: specials escaped, statement ids linked."""
        escaped = md_text(description)

        def link_id(match: re.Match[str]) -> str:
            page = self.statement_page(match.group(1))
            if page is None:
                return match.group(1)
            return f"[{match.group(1)}]({self.link(page, match.group(1))})"

        return STATEMENT_ID.sub(link_id, escaped)

    def ref(self, ref: str) -> str:
        base, _, pointer = ref.partition("#")
        if base:
            target = self.by_id.get(base)
            if target is None:
                folder = posixpath.dirname(self.schema.rel)
                joined = posixpath.normpath(posixpath.join(folder, base))
                target = self.by_rel.get(joined)
            if target is None:
                return f"see {code(ref)}"
        else:
            target = self.schema
        anchor = None
        label = target.rel if base else "the root object"
        match = re.fullmatch(r"/\$defs/([^/]+)", pointer)
        if match:
            name = match.group(1).replace("~1", "/").replace("~0", "~")
            anchor = "def-" + re.sub(r"[^A-Za-z0-9_-]", "-", name)
            label = name if not base else f"{target.rel} {name}"
        elif pointer not in ("", "/"):
            return f"see {code(ref)}"
        if target is self.schema:
            return f"[{label}](#{anchor or 'schema-root'})"
        return f"[{label}]({self.link(target.page_uri, anchor or 'schema-root')})"

    # -- types ----------------------------------------------------------------------

    def describe(self, node: Any) -> str:
        """The type and constraints of a schema node, as one line of Markdown."""
        if node is True or node == {}:
            return "any value"
        if node is False:
            return "nothing (must be absent)"
        if not isinstance(node, dict):
            return code(json.dumps(node))
        if _is_required_only(node):
            return "has " + ", ".join(code(str(r)) for r in node["required"])
        parts: list[str] = []
        if "$ref" in node:
            parts.append(self.ref(node["$ref"]))
        if "const" in node:
            parts.append("exactly " + jcode(node["const"]))
        if "enum" in node:
            parts.append("one of " + ", ".join(jcode(v) for v in node["enum"]))
        types = node.get("type")
        type_list = [types] if isinstance(types, str) else list(types or [])
        if not type_list and "properties" in node:
            type_list = ["object"]
        if not type_list and ("items" in node or "prefixItems" in node):
            type_list = ["array"]
        words = [self._type_word(t, node) for t in type_list]
        if words:
            parts.append(" or ".join(words))
        if "format" in node:
            parts.append(f"format {code(str(node['format']))}")
        if "pattern" in node:
            parts.append(f"matching {code(str(node['pattern']))}")
        for key, template in CONSTRAINT_WORDS:
            if key in node:
                parts.append(template.format(code(json.dumps(node[key]))))
        if node.get("uniqueItems"):
            parts.append("items unique")
        for key, word in (("oneOf", "exactly one of"), ("anyOf", "any of"), ("allOf", "all of")):
            options = node.get(key)
            if isinstance(options, list) and not _is_conditional_list(options):
                parts.append(f"{word}: " + "; ".join(f"({self.describe(o)})" for o in options))
        if "not" in node and not _is_required_only(node["not"]):
            parts.append(f"not ({self.describe(node['not'])})")
        if "default" in node:
            parts.append("default " + jcode(node["default"]))
        return ", ".join(p for p in parts if p) or "any value"

    def _type_word(self, kind: str, node: dict[str, Any]) -> str:
        if kind == "array":
            if "prefixItems" in node:
                inner = ", ".join(self.describe(i) for i in node["prefixItems"])
                return f"array [{inner}]"
            items = node.get("items")
            if items is None or items is True:
                return "array"
            if isinstance(items, dict) and "properties" in items and "$ref" not in items:
                return "array of objects (fields below)"
            return f"array of ({self.describe(items)})"
        if kind == "object":
            if "properties" in node:
                return "object (fields below)"
            extra = node.get("additionalProperties")
            keys = ""
            if isinstance(node.get("propertyNames"), dict):
                keys = f" ({self.describe(node['propertyNames'])})"
            if isinstance(extra, dict):
                if "properties" in extra and "$ref" not in extra:
                    return f"map from name{keys} to objects (fields below)"
                return f"map from name{keys} to ({self.describe(extra)})"
            return "object"
        return kind

    # -- fields ---------------------------------------------------------------------

    def fields(self, node: Any, prefix: str = "") -> Iterator[tuple[str, Any, bool]]:
        """(dotted path, schema, required) for every field, nested inline objects too."""
        if not isinstance(node, dict):
            return
        required = set(node.get("required", []))
        for name, sub in node.get("properties", {}).items():
            path = prefix + name
            yield path, sub, name in required
            yield from self._nested(sub, path)
        for pattern, sub in node.get("patternProperties", {}).items():
            path = f"{prefix}<name matching {pattern}>"
            yield path, sub, False
            yield from self._nested(sub, path)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and "properties" in node:
            path = prefix + "<any other name>"
            yield path, extra, False
            yield from self._nested(extra, path)

    def _nested(self, sub: Any, path: str) -> Iterator[tuple[str, Any, bool]]:
        if not isinstance(sub, dict) or "$ref" in sub:
            return
        if "properties" in sub:
            yield from self.fields(sub, path + ".")
        items = sub.get("items")
        if isinstance(items, dict) and "properties" in items and "$ref" not in items:
            yield from self.fields(items, path + "[].")
        extra = sub.get("additionalProperties")
        if isinstance(extra, dict) and "properties" in extra and "properties" not in sub:
            yield from self.fields(extra, path + ".<name>.")

    def field_table(self, node: Any) -> list[str]:
        rows = list(self.fields(node))
        if not rows:
            return []
        out = [
            "| Field | Type and constraints | Required | Description |",
            "| --- | --- | --- | --- |",
        ]
        for path, sub, required in rows:
            description = sub.get("description", "") if isinstance(sub, dict) else ""
            cell = self.describe(sub)
            extra = self.rules(sub) if isinstance(sub, dict) and "properties" not in sub else []
            if extra:
                cell += "; " + "; ".join(r.removeprefix("- ") for r in extra)
            out.append(
                f"| {code(path)} | {cell} | {'yes' if required else 'no'} | "
                f"{md_cell(self.text(description)) if isinstance(description, str) else ''} |"
            )
        out.append("")
        return out

    # -- rules ----------------------------------------------------------------------

    def condition(self, node: Any) -> str:
        if isinstance(node, dict):
            props = node.get("properties", {})
            parts = []
            for name, sub in props.items():
                if isinstance(sub, dict) and "const" in sub:
                    parts.append(f"{code(name)} is {jcode(sub['const'])}")
                elif isinstance(sub, dict) and "enum" in sub:
                    values = ", ".join(jcode(v) for v in sub["enum"])
                    parts.append(f"{code(name)} is one of {values}")
                elif isinstance(sub, dict) and "contains" in sub:
                    parts.append(
                        f"{code(name)} contains an item where {self.condition(sub['contains'])}"
                    )
                else:
                    parts.append(f"{code(name)} is {self.describe(sub)}")
            required = [r for r in node.get("required", []) if r not in props]
            parts += [f"{code(r)} is present" for r in required]
            if parts and set(node) <= {"properties", "required", "type"}:
                return " and ".join(parts)
        return f"the value matches {jcode(node)}"

    def consequence(self, node: Any) -> str:
        if isinstance(node, dict):
            if set(node) == {"$ref"}:
                return f"it must also match {self.ref(node['$ref'])}"
            if set(node) == {"required"}:
                return ", ".join(code(r) for r in node["required"]) + " required"
            if set(node) == {"properties"} and isinstance(node["properties"], dict):
                return "; ".join(
                    f"{code(name)} must be {self.describe(sub)}"
                    for name, sub in node["properties"].items()
                )
            if _is_required_only(node.get("not")) and set(node) == {"not"}:
                return ", ".join(code(r) for r in node["not"]["required"]) + " must be absent"
        return f"it must match {self.describe(node)}"

    def rules(self, node: dict[str, Any]) -> list[str]:
        out: list[str] = []

        def conditional(item: dict[str, Any]) -> None:
            if "if" not in item:
                return
            line = f"- If {self.condition(item['if'])}: {self.consequence(item.get('then', True))}"
            if "else" in item:
                line += f"; otherwise {self.consequence(item['else'])}"
            out.append(line + ".")

        conditional(node)
        for key in ("allOf", "anyOf", "oneOf"):
            items = node.get(key)
            if isinstance(items, list) and _is_conditional_list(items):
                for item in items:
                    conditional(item)
        for name, needed in node.get("dependentRequired", {}).items():
            out.append(
                f"- When {code(name)} is present, "
                + ", ".join(code(n) for n in needed)
                + " must be present too."
            )
        if _is_required_only(node.get("not")):
            out.append(
                "- "
                + ", ".join(code(r) for r in node["not"]["required"])
                + " must not all be present."
            )
        if node.get("additionalProperties") is False and "properties" in node:
            out.append("- No other members are allowed.")
        return out

    # -- page -----------------------------------------------------------------------

    def section(self, node: Any) -> list[str]:
        out: list[str] = []
        if isinstance(node, dict) and isinstance(node.get("description"), str):
            out += [self.text(node["description"]), ""]
        out += [f"**Type:** {self.describe(node)}", ""]
        out += self.field_table(node)
        if isinstance(node, dict):
            rules = self.rules(node)
            if rules:
                out += ["**Rules:**", "", *rules, ""]
        return out

    def page(self) -> str:
        data = self.schema.data
        json_link = posixpath.relpath(self.schema.json_uri, self.page_dir)
        out = [
            f"# {self.schema.title.replace('#', '')}",
            "",
            f"Reference generated from [`spec/schema/{self.schema.rel}`]({json_link}) "
            "when the site is built.",
            "",
        ]
        meta = []
        if isinstance(data, dict):
            for key in ("$id", "$schema"):
                if isinstance(data.get(key), str):
                    meta.append(f"| {code(key)} | {code(data[key])} |")
        if meta:
            out += ["| Keyword | Value |", "| --- | --- |", *meta, ""]
        out += ["## Root {#schema-root}", "", *self.section(data)]
        defs = data.get("$defs", {}) if isinstance(data, dict) else {}
        if defs:
            out += ["## Definitions {#definitions}", ""]
            out += [
                "Definitions: "
                + ", ".join(f"[{name}](#def-{_anchor(name)})" for name in defs)
                + ".",
                "",
            ]
        for name, sub in defs.items():
            out += [f"### {name} {{#def-{_anchor(name)}}}", "", *self.section(sub)]
        pretty = json.dumps(data, indent=2, ensure_ascii=False)
        out += [
            "## Source {#schema-source}",
            "",
            '??? note "The schema as JSON"',
            "",
            "    ```json",
            *("    " + line for line in pretty.splitlines()),
            "    ```",
            "",
        ]
        return "\n".join(out) + "\n"


def _anchor(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", name)


def _is_required_only(node: Any) -> bool:
    return isinstance(node, dict) and set(node) == {"required"}


def _is_conditional_list(items: list[Any]) -> bool:
    return bool(items) and all(isinstance(i, dict) and "if" in i for i in items)


def index_page(files: list[SchemaFile], problems: list[str]) -> str:
    out = [
        "# JSON Schemas",
        "",
        "The machine-readable companions of the specification (JSON Schema draft "
        "2020-12), rendered field by field from `spec/schema/` when the site is built. "
        "Each page links the raw file.",
        "",
        "| Schema | File | Describes |",
        "| --- | --- | --- |",
    ]
    for f in files:
        page = posixpath.relpath(f.page_uri, "schemas")
        describes = ""
        if isinstance(f.data, dict) and isinstance(f.data.get("description"), str):
            describes = f.data["description"].split(". ")[0].rstrip(".")
            describes = md_cell(md_text(describes))
            if len(describes) > 160:
                describes = describes[:159].rstrip() + "…"
        title = f.title.replace("|", "/").replace("[", "(").replace("]", ")")
        out.append(f"| [{title}]({page}) | {code(f.rel)} | {describes} |")
    if not files:
        out.append("| (no schema files found) | | |")
    out.append("")
    return "\n".join(out) + "\n"
