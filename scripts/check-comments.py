#!/usr/bin/env python3
"""scripts/check-comments.py - every function a comment or a doc names exists.

Reads the comments of native/, jni/ and java/src (C, headers, Java) and the whole text of
README.md and docs/*.md, and takes from them:
  - every tachy_* / tachy__* / TACHY_* name (functions, types, macros, options),
  - every name written as a call with no arguments, `name()`,
  - every other snake_case name (a C function, field or variable: `uri_acceptable`), in
    docs only inside `backticks`,
  - every Java member named as {@link Class#member}, {@link #member} or Class.member where
    Class is one of tachy's own Java classes.
Each must exist in the code of the tree (comments stripped: C, headers, Java, CMake, shell
and Python files), a member in its class's own file; names that live outside the tree
(libc, OpenSSL, zlib, JNI, the JDK) are listed in scripts/check-comments.allow. A name
that ends in `_*` or `*` (tachy_ws_*, TACHY_E*) is a prefix: some name must start with it.

Prints each failure as file:line: name, then "N passed, M failed"; exits 1 when any
failed. Takes about a second (no build needed); scripts/test.sh runs it first.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_DIRS = {".git", "build", "target", "node_modules", "results", "__pycache__", ".venv"}
CODE_EXT = (".c", ".h", ".java", ".cmake", ".sh", ".py", ".txt", ".in", ".map")
COMMENT_ROOTS = ("native", "jni", os.path.join("java", "src"))
DOCS = ["README.md"]  # and docs/*.md

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TACHY = re.compile(r"(?<![A-Za-z0-9_.\-/])((?:tachy_|TACHY_)[A-Za-z0-9_]*\*?)")
SNAKE = re.compile(r"(?<![A-Za-z0-9_.\-/$])([a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:_?\*)?)(?![A-Za-z0-9_*\-/.]*\.(?:c|h|md|sh|py|java|so|txt)\b)")
BACKTICKS = re.compile(r"`[^`\n]+`")
CALL = re.compile(r"(?<![A-Za-z0-9_.#:>$])([A-Za-z_][A-Za-z0-9_]*)\(\)")
LINK = re.compile(r"\{@link(?:plain)?\s+([A-Za-z0-9_.]*)#([A-Za-z_][A-Za-z0-9_]*)")
DOTTED = re.compile(r"(?<![A-Za-z0-9_.])([A-Z][A-Za-z0-9]*)\.([a-z][A-Za-z0-9_]*)\b")
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])'", re.S)
HASH_COMMENT = re.compile(r"#[^\n]*")


def walk(top, exts):
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith(".")]
        for f in files:
            if f.endswith(exts) or f == "CMakeLists.txt":
                yield os.path.join(d, f)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def split_c(text):
    """(code with comments blanked, [(offset, comment text)]). Strings stay code."""
    code, comments, last = [], [], 0
    for m in C_COMMENT.finditer(text):
        s = m.group(0)
        if s.startswith("/*") or s.startswith("//"):
            code.append(text[last:m.start()])
            code.append(" ")
            comments.append((m.start(), s))
            last = m.end()
    code.append(text[last:])
    return "".join(code), comments


def main():
    tokens = set()
    pasted = set()  # X_##name in a macro: every name X_... exists (TACHY__EIDX_INVAL)
    members = {}  # Java class simple name -> tokens of its file's code
    c_like = []
    for path in walk(ROOT, CODE_EXT):
        rel = os.path.relpath(path, ROOT)
        if rel == os.path.join("scripts", "check-comments.py"):
            continue  # its own docstring names stale names as examples
        text = read(path)
        if path.endswith((".c", ".h", ".java")):
            code, comments = split_c(text)
            if rel.startswith(COMMENT_ROOTS):
                c_like.append((rel, text, comments))
        elif path.endswith((".sh", ".py", ".cmake", ".txt", ".in")):
            code = HASH_COMMENT.sub(" ", text)
        else:
            code = text
        words = set(IDENT.findall(code))
        pasted.update(re.findall(r"([A-Za-z_][A-Za-z0-9_]*_)\s*##", code))
        tokens |= words
        if path.endswith(".java"):
            members.setdefault(os.path.basename(path)[:-5], set()).update(words)

    allow = set()
    allow_path = os.path.join(ROOT, "scripts", "check-comments.allow")
    for line in read(allow_path).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            allow.update(line.split())

    sorted_tokens = sorted(tokens)

    def exists(name):
        if name.endswith("*"):
            prefix = name.rstrip("*")
            return any(t.startswith(prefix) and t != prefix for t in sorted_tokens) or prefix in allow
        return name in tokens or name in allow or any(name.startswith(p) for p in pasted)

    def member_exists(cls, m):
        if cls in members:
            return m in members[cls] or f"{cls}.{m}" in allow
        return True  # not one of tachy's classes: the JDK's, not checked

    checked, failures = set(), []

    def check(rel, text, start, body):
        found = []
        for m in TACHY.finditer(body):
            name = m.group(1)
            if name.rstrip("*").endswith("_") and not name.endswith("*"):
                continue  # "tachy_ws_" in prose is cut short on purpose: not a name
            found.append((m.start(), name, exists(name)))
        snake_in = [body] if not rel.endswith(".md") else [b.group(0) for b in BACKTICKS.finditer(body)]
        for piece in snake_in:
            base = body.find(piece) if piece is not body else 0
            for m in SNAKE.finditer(piece):
                name = m.group(1)
                if name.startswith("tachy_"):
                    continue
                found.append((base + m.start(), name, exists(name)))
        for m in CALL.finditer(body):
            found.append((m.start(), m.group(1) + "()", exists(m.group(1))))
        for m in LINK.finditer(body):
            cls = m.group(1).rsplit(".", 1)[-1] or os.path.basename(rel).rsplit(".", 1)[0]
            if rel.endswith(".java") or m.group(1):
                found.append((m.start(), f"{cls}#{m.group(2)}", member_exists(cls, m.group(2))))
        for m in DOTTED.finditer(body):
            cls = m.group(1)
            if cls in members:  # one of the tree's Java classes (Native.wireEcho)
                found.append((m.start(), f"{cls}.{m.group(2)}", member_exists(cls, m.group(2))))
        for off, name, ok in found:
            key = (rel, name)
            if key in checked:
                continue
            checked.add(key)
            if not ok:
                line = text.count("\n", 0, start + off) + 1
                failures.append(f"{rel}:{line}: {name}")

    for rel, text, comments in c_like:
        for start, body in comments:
            check(rel, text, start, body)
    docs = list(DOCS) + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    for rel in docs:
        path = os.path.join(ROOT, rel)
        if os.path.exists(path):
            text = read(path)
            check(rel, text, 0, text)

    for f in failures:
        print(f"check-comments: {f}: named in a comment or doc, defined nowhere")
    print(f"check-comments: {len(checked) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
