#!/usr/bin/env python3
"""Writes a data directory shaped like HttpArena's data/: dataset.json (an array of items
with id, name, category, price, quantity, active, tags, rating{score,count}) and static/
(the 20 file names the static profiles request, text files also as .gz and, when the
brotli module or CLI exists, .br).

    gen_data.py DIR [--seed N] [--items N]

Deterministic for a given seed. tachy-arena ships the output of `gen_data.py data`
(examples/httparena/data); the validation generates a fresh tree with another seed so
nothing can be prepared for it.
"""
import argparse
import gzip
import json
import os
import random
import shutil
import subprocess

TEXT = ["reset.css", "layout.css", "theme.css", "components.css", "utilities.css",
        "analytics.js", "helpers.js", "app.js", "vendor.js", "router.js",
        "header.html", "footer.html", "logo.svg", "icon-sprite.svg", "manifest.json"]
BINARY = ["regular.woff2", "bold.woff2", "hero.webp", "thumb1.webp", "thumb2.webp"]
# Sizes roughly like a small web app's assets (bytes).
SIZES = {"reset.css": 1800, "layout.css": 6200, "theme.css": 9400, "components.css": 24000,
         "utilities.css": 15000, "analytics.js": 7100, "helpers.js": 4300, "app.js": 38000,
         "vendor.js": 96000, "router.js": 5200, "header.html": 2100, "footer.html": 1400,
         "logo.svg": 3300, "icon-sprite.svg": 12500, "manifest.json": 640,
         "regular.woff2": 21000, "bold.woff2": 22000, "hero.webp": 68000,
         "thumb1.webp": 9000, "thumb2.webp": 11000}


def text_body(name, size, rnd):
    words = ["margin", "padding", "display", "flex", "grid", "color", "const", "return",
             "function", "let", "div", "span", "path", "fill", "stroke", "width", "height"]
    lines = []
    total = 0
    i = 0
    while total < size:
        w = " ".join(rnd.choice(words) for _ in range(rnd.randint(3, 9)))
        line = f"/* {name} {i} */ .c{rnd.randint(0, 999)} {{ {w}: {rnd.randint(0, 4096)}; }}\n"
        lines.append(line)
        total += len(line)
        i += 1
    return "".join(lines).encode()[:size]


def brotli_bytes(data):
    try:
        import brotli  # Debian python3-brotli
        return brotli.compress(data, quality=11)
    except ImportError:
        pass
    if shutil.which("brotli"):
        return subprocess.run(["brotli", "-c", "-q", "11"], input=data, check=True,
                              stdout=subprocess.PIPE).stdout
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--items", type=int, default=100)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    os.makedirs(os.path.join(a.dir, "static"), exist_ok=True)
    cats = ["electronics", "books", "garden", "toys", "sports", "home", "music"]
    tags = ["new", "sale", "fast", "eco", "gift", "popular", "limited", "classic"]
    items = []
    for i in range(a.items):
        items.append({
            "id": i + 1,
            "name": f"Item {i + 1} {rnd.choice(['Alpha', 'Beta', 'Gamma', 'Delta'])}",
            "category": rnd.choice(cats),
            "price": rnd.randint(1, 500),
            "quantity": rnd.randint(1, 100),
            "active": rnd.random() < 0.7,
            "tags": rnd.sample(tags, rnd.randint(1, 4)),
            "rating": {"score": rnd.randint(10, 50), "count": rnd.randint(0, 5000)},
        })
    with open(os.path.join(a.dir, "dataset.json"), "w") as f:
        json.dump(items, f, indent=1)
        f.write("\n")
    for name in TEXT + BINARY:
        path = os.path.join(a.dir, "static", name)
        if name in TEXT:
            body = text_body(name, SIZES[name], rnd)
        else:
            body = bytes(rnd.getrandbits(8) for _ in range(SIZES[name]))
        with open(path, "wb") as f:
            f.write(body)
        if name in TEXT:
            with open(path + ".gz", "wb") as f:
                f.write(gzip.compress(body, 9, mtime=0))
            br = brotli_bytes(body)
            if br is not None:
                with open(path + ".br", "wb") as f:
                    f.write(br)


if __name__ == "__main__":
    main()
