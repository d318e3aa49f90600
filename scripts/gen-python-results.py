#!/usr/bin/env python3
"""Writes the Python result classes (python/latscope/results/<kind>.py) from the JSON
Schemas in docs/, which are generated from the Rust result types
(crates/cli/tests/it/result_schemas.rs). So the Python classes follow the Rust types through
one chain: Rust type -> schema -> dataclass, and nothing is typed by hand twice.

    python3 scripts/gen-python-results.py --write   # regenerate after a schema changed
    python3 scripts/gen-python-results.py --check   # exit 1 when a generated file is stale

tests/python/test_schemas.py runs --check. Each object of a schema becomes a frozen
dataclass, each property a field (a Python keyword gets a trailing underscore and keeps
its JSON key in the field's metadata); a property that may be absent or null is
Optional. Reading a document into these classes is python/latscope/results/_decode.py."""
import argparse
import json
import keyword
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "python" / "latscope" / "results"
# The kinds the Python API returns, with the document class each one is read into.
KINDS = {
    "trace": "TraceDocument",
    "analyze": "AnalyzeDocument",
    "simulate": "SimulateDocument",
    "measure": "MeasureDocument",
    "fit": "FitDocument",
}
SCALARS = {"integer": "int", "number": "float", "string": "str", "boolean": "bool"}


class Gen:
    def __init__(self, kind, schema):
        self.kind = kind
        self.schema = schema
        self.defs = schema.get("$defs", {})
        self.names = {d: d for d in self.defs}
        # The document class takes the kind's name; a definition of that name is renamed.
        top = KINDS[kind]
        if top in self.names:
            self.names[top] = top + "Def"

    def ref(self, r):
        name = r.rsplit("/", 1)[-1]
        if name not in self.defs:
            sys.exit(f"docs/{self.kind}.schema.json: unknown $ref {r}")
        return self.names[name]

    def type_of(self, s, where):
        """(python type, nullable) of a property schema."""
        if s is True or s == {}:
            return "Any", False
        if "$ref" in s:
            return self.ref(s["$ref"]), False
        for key in ("anyOf", "oneOf"):
            if key in s:
                alts = [a for a in s[key] if a.get("type") != "null"]
                nullable = len(alts) < len(s[key])
                if len(alts) == 1:
                    t, n = self.type_of(alts[0], where)
                    return t, nullable or n
                return "Any", nullable
        t = s.get("type")
        nullable = False
        if isinstance(t, list):
            nullable = "null" in t
            rest = [x for x in t if x != "null"]
            if len(rest) != 1:
                return "Any", nullable
            t = rest[0]
        if t in SCALARS:
            return SCALARS[t], nullable
        if t == "array":
            inner, n = self.type_of(s.get("items", {}), where + "[]")
            return f"List[{'Optional[' + inner + ']' if n else inner}]", nullable
        if t == "object":
            if "properties" in s:
                sys.exit(f"docs/{self.kind}.schema.json: {where}: an inline object; name it")
            inner, n = self.type_of(s.get("additionalProperties", {}), where + "{}")
            return f"Dict[str, {'Optional[' + inner + ']' if n else inner}]", nullable
        if t is None:
            return "Any", nullable
        sys.exit(f"docs/{self.kind}.schema.json: {where}: type {t!r} is not handled")

    def klass(self, name, s):
        lines = ["", "", "@dataclass(frozen=True)", f"class {name}(Doc):"]
        desc = (s.get("description") or "").strip()
        title = s.get("title")
        doc = desc or (f"The Rust type {title}." if title else "")
        if doc:
            doc = doc.replace("\\", "\\\\").replace('"' * 3, "'" * 3)
            text = "\n".join(("    " + d).rstrip() for d in doc.splitlines())
            lines.append(f'    """{text.lstrip()}"""')
            lines.append("")
        props = s.get("properties", {})
        required = s.get("required", [])
        # Required fields first, in the order the schema lists them (the Rust field
        # order), then the ones that may be absent (they default to None).
        order = [p for p in required if p in props] + [p for p in props if p not in required]
        if not order:
            lines.append("    pass")
        for p in order:
            ps = props[p]
            t, nullable = self.type_of(ps, f"{name}.{p}")
            optional = nullable or p not in required
            ann = f"Optional[{t}]" if optional and t != "Any" else t
            pname = p + "_" if keyword.iskeyword(p) else p
            if not pname.isidentifier():
                sys.exit(f"docs/{self.kind}.schema.json: {name}.{p}: not a Python name")
            for d in (ps.get("description") or "").strip().splitlines():
                lines.append(f"    #: {d}".rstrip())
            if pname != p and optional:
                lines.append(f"    {pname}: {ann} = field(default=None, metadata={{JSON_KEY: {p!r}}})")
            elif pname != p:
                lines.append(f"    {pname}: {ann} = field(metadata={{JSON_KEY: {p!r}}})")
            elif p not in required:
                lines.append(f"    {pname}: {ann} = None")
            else:
                lines.append(f"    {pname}: {ann}")
        return lines

    def module(self):
        out = [
            f'"""The `{self.kind}` result document as Python classes: generated by',
            f"scripts/gen-python-results.py from docs/{self.kind}.schema.json (itself generated from",
            'the Rust types); do not edit. Read a document with ``read(dict)``."""',
            "",
            "from __future__ import annotations",
            "",
            "from dataclasses import dataclass, field",
            "from typing import Any, Dict, List, Mapping, Optional",
            "",
            "from ._decode import JSON_KEY, Doc, decode",
        ]
        # Definitions first, in the schema's (alphabetical) order; annotations are
        # strings (the __future__ import), so the order does not matter to Python.
        aliases = []
        for d, s in self.defs.items():
            if s.get("type") == "object" and "properties" in s:
                out += self.klass(self.names[d], s)
            else:
                t, n = self.type_of(s, d)
                aliases.append((self.names[d], "Optional[" + t + "]" if n else t, s, d))
        # Aliases (definitions that are not objects) run when the module loads: after the
        # classes, each after the aliases it names.
        done = set()
        while aliases:
            ready = [a for a in aliases if not any(
                b[0] != a[0] and b[0] not in done and re.search(rf"\b{b[0]}\b", a[1])
                for b in aliases)]
            if not ready:
                sys.exit(f"docs/{self.kind}.schema.json: aliases refer to each other")
            for name, t, s, d in ready:
                out += ["", "", f"#: {(s.get('description') or d).strip().splitlines()[0]}"]
                out.append(f"{name} = {t}")
                done.add(name)
            aliases = [a for a in aliases if a[0] not in done]
        out += self.klass(KINDS[self.kind], self.schema)
        out += [
            "",
            "",
            f"def read(value: Mapping[str, Any]) -> {KINDS[self.kind]}:",
            f'    """A `{self.kind}` document (the dict of its JSON) as {KINDS[self.kind]}; raises',
            '    InputError naming the first field that does not fit."""',
            f"    return decode({KINDS[self.kind]}, value)",
            "",
        ]
        return "\n".join(out)


def generated():
    files = {}
    for kind in KINDS:
        schema = json.loads((ROOT / "docs" / f"{kind}.schema.json").read_text(encoding="utf-8"))
        files[OUT / f"{kind}.py"] = Gen(kind, schema).module()
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    args = ap.parse_args()
    stale = []
    for path, text in generated().items():
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old == text:
            continue
        if args.write:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
        else:
            stale.append(str(path.relative_to(ROOT)))
    if stale:
        sys.exit(
            "stale (the schemas changed; run python3 scripts/gen-python-results.py --write): "
            + ", ".join(stale)
        )


if __name__ == "__main__":
    main()
