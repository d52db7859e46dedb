"""Where each key and value of a TOML document stands: the line of every path in it.

The standard library's ``tomllib`` parses TOML exactly but keeps no positions, and an error in a
scenario file must name its line. This module scans the same text once more, after ``tomllib``
has accepted it, and records for every path of the parsed document (``("card", 1, "name")``,
``("start", "stack", 0)``) the line where its key, or its array element, begins. Table headers
(``[start]``, ``[[card]]``) record the line of the header. It understands what a valid document
can hold: comments, basic and literal strings (multi-line too), dotted and quoted keys, arrays and
inline tables across lines, and arrays of tables, nested ones included.

>>> lines = locate('format = 1\\n[[card]]\\nname = "Shock"\\n[[card]]\\nname = "Pump"\\n')
>>> lines[("card", 1, "name")]
5
>>> line_of(lines, ("card", 1, "counters", "loyalty"))  # absent: the nearest enclosing path
4
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

Path = tuple[str | int, ...]

_BARE = re.compile(r"[^\s\[\]{},=#\"']+")
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", re.DOTALL)
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class _Token:
    kind: str  # "[", "]", "{", "}", ",", "=", "nl", "str", "bare"
    text: str
    line: int


def _unescape(body: str) -> str:
    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        if code[0] in "uU":
            return chr(int(code[1:], 16))
        return _SIMPLE_ESCAPES.get(code, code)

    return _ESCAPE.sub(one, body)


def _tokens(text: str) -> Iterator[_Token]:
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            yield _Token("nl", c, line)
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c in "[]{},=":
            yield _Token(c, c, line)
            i += 1
        elif c in "\"'":
            triple = text.startswith(c * 3, i)
            quote = c * 3 if triple else c
            j = i + len(quote)
            while True:
                k = text.find(quote, j)
                if k < 0:  # cannot happen once tomllib accepted the text
                    k = n
                if c == '"' and _escaped(text, k):
                    j = k + 1
                    continue
                break
            if triple:  # up to two more quotes may belong to the string
                while text.startswith(c, k + len(quote)):
                    k += 1
            body = text[i + len(quote) : k]
            start = line
            line += body.count("\n")
            value = _unescape(body) if c == '"' else body
            yield _Token("str", value, start)
            i = k + len(quote)
        else:
            m = _BARE.match(text, i)
            end = m.end() if m else i + 1
            yield _Token("bare", text[i:end], line)
            i = end


def _escaped(text: str, k: int) -> bool:
    """The quote at ``k`` follows an odd number of backslashes."""
    count = 0
    while k - count - 1 >= 0 and text[k - count - 1] == "\\":
        count += 1
    return count % 2 == 1


class _Scanner:
    def __init__(self, text: str) -> None:
        self.toks = list(_tokens(text))
        self.pos = 0
        self.lines: dict[Path, int] = {}
        self.aot: dict[Path, int] = {}

    def peek(self) -> _Token | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def take(self) -> _Token:
        tok = self.toks[self.pos]
        self.pos += 1
        return tok

    def skip_blank(self) -> None:
        while (t := self.peek()) is not None and t.kind in ("nl", ","):
            self.pos += 1

    def record(self, path: Path, line: int) -> None:
        self.lines.setdefault(path, line)

    def key(self, stop: str) -> list[str]:
        """A (dotted) key, up to the token ``stop``, which is left in place."""
        parts: list[str] = []
        while (t := self.peek()) is not None and t.kind != stop:
            self.pos += 1
            if t.kind == "str":
                parts.append(t.text)
            elif t.kind == "bare":
                parts.extend(p for p in t.text.split(".") if p)
        return parts

    def resolve(self, parts: list[str]) -> Path:
        """The path of a table header: an array of tables on the way means its latest element."""
        path: Path = ()
        for part in parts:
            path = path + (part,)
            if path in self.aot:
                path = path + (self.aot[path] - 1,)
        return path

    def value(self, path: Path) -> None:
        t = self.peek()
        if t is None:
            return
        if t.kind == "[":
            self.take()
            index = 0
            while True:
                self.skip_blank()
                t = self.peek()
                if t is None or t.kind == "]":
                    self.pos += 1
                    return
                self.record(path + (index,), t.line)
                self.value(path + (index,))
                index += 1
        elif t.kind == "{":
            self.take()
            while True:
                self.skip_blank()
                t = self.peek()
                if t is None or t.kind == "}":
                    self.pos += 1
                    return
                self.pair(path)
        else:
            self.take()  # a scalar

    def pair(self, table: Path) -> None:
        first = self.peek()
        line = first.line if first is not None else 0
        parts = self.key("=")
        self.pos += 1  # "="
        for k in range(1, len(parts) + 1):
            self.record(table + tuple(parts[:k]), line)
        self.value(table + tuple(parts))

    def document(self) -> dict[Path, int]:
        table: Path = ()
        while (t := self.peek()) is not None:
            if t.kind == "nl":
                self.pos += 1
            elif t.kind == "[":
                self.take()
                array = (n := self.peek()) is not None and n.kind == "["
                if array:
                    self.take()
                parts = self.key("]")
                self.pos += 2 if array else 1
                if array:
                    base = self.resolve(parts[:-1]) + (parts[-1],)
                    self.aot[base] = self.aot.get(base, 0) + 1
                    table = base + (self.aot[base] - 1,)
                    self.record(base, t.line)
                else:
                    table = self.resolve(parts)
                for k in range(1, len(table) + 1):
                    self.record(table[:k], t.line)
            else:
                self.pair(table)
        return self.lines


def locate(text: str) -> dict[Path, int]:
    """The line (1-based) of every path of the TOML document ``text``, which must be valid
    TOML (parse it with ``tomllib`` first)."""
    return _Scanner(text).document()


def line_of(lines: Mapping[Path, int], path: Path) -> int | None:
    """The line of ``path``, or of the nearest enclosing path that has one (a value that is
    missing is reported where its table is); ``None`` for the document itself."""
    for k in range(len(path), 0, -1):
        found = lines.get(tuple(path[:k]))
        if found is not None:
            return found
    return None
