#!/usr/bin/env python3
"""Counts lines of catalog logic that have a twin in the other dialect, two ways.

A line is a twin when, normalised, it also occurs in the other backend's sources:
whitespace, punctuation and bind markers (`?`, `:name`, `$1::type`) removed, the words
SQLite/Postgres/GRDB and the connection names (db, tx, connection) dropped, lowercased.
Lines of fewer than 12 normalised characters (braces, `}`, `return nil`, `try`) are not
counted, nor imports.

A function is a twin when the other backend defines a function of the same name: its lines
(declaration to closing brace) count as twinned logic. Usage: twin-lines.py [ROOT] — prints both sides' totals and the twinned lines.
"""
import pathlib, re, sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
SQLITE = ["Sources/StenoSQLite", "Sources/StenoStore/SQLite"]  # before and after the split
POSTGRES = ["Sources/StenoPostgres"]

def normalise(line):
    text = line.strip().lower()
    text = re.sub(r"\$\d+(::\w+)?", " ", text)
    text = re.sub(r"(?<![\w])[:@]\w+", " ", text)
    text = re.sub(r"\b(sqlite|postgres|grdb|pg|db|tx|connection|database)\b", " ", text)
    text = re.sub(r"sqlite|postgres", "", text)
    return re.sub(r"[^a-z0-9]", "", text)

def lines(folders):
    out = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.swift")):
            for line in path.read_text().splitlines():
                if line.startswith(("import ", "@testable import ")):
                    continue
                key = normalise(line)
                if len(key) >= 12:
                    out.append(key)
    return out

sqlite, postgres = lines(SQLITE), lines(POSTGRES)
sqlite_keys, postgres_keys = set(sqlite), set(postgres)
twinned_sqlite = sum(1 for key in sqlite if key in postgres_keys)
twinned_postgres = sum(1 for key in postgres if key in sqlite_keys)
print(f"SQLite: {len(sqlite)} counted lines, {twinned_sqlite} with a twin in PostgreSQL")
print(f"PostgreSQL: {len(postgres)} counted lines, {twinned_postgres} with a twin in SQLite")

def functions(folders):
    """Each function's name and line count, by brace matching from `func NAME`."""
    found = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.swift")):
            lines = path.read_text().splitlines()
            for index, line in enumerate(lines):
                match = re.search(r"\bfunc (\w+)", line)
                if not match or line.strip().startswith("//"):
                    continue
                depth, end, opened = 0, index, False
                for end in range(index, len(lines)):
                    depth += lines[end].count("{") - lines[end].count("}")
                    opened = opened or "{" in lines[end]
                    if opened and depth <= 0:
                        break
                found.append((match.group(1), end - index + 1))
    return found

sqlite_functions, postgres_functions = functions(SQLITE), functions(POSTGRES)
postgres_names = {name for name, _ in postgres_functions}
sqlite_names = {name for name, _ in sqlite_functions}
twins = [(name, count) for name, count in sqlite_functions if name in postgres_names]
print(f"SQLite: {len(sqlite_functions)} functions, {sum(c for _, c in sqlite_functions)} lines; "
      f"{len(twins)} with a namesake in PostgreSQL, {sum(c for _, c in twins)} lines")
twins = [(name, count) for name, count in postgres_functions if name in sqlite_names]
print(f"PostgreSQL: {len(postgres_functions)} functions, {sum(c for _, c in postgres_functions)} lines; "
      f"{len(twins)} with a namesake in SQLite, {sum(c for _, c in twins)} lines")
