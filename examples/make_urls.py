"""Write a gzipped URL list of N catalogue URLs for the demo (deterministic output).

Usage: python examples/make_urls.py OUT.txt.gz N
"""

import gzip
import io
import sys
from pathlib import Path


def main() -> None:
    out, count = Path(sys.argv[1]), int(sys.argv[2])
    if out.exists():
        return
    with (
        gzip.GzipFile(out, "wb", mtime=0) as raw,
        io.TextIOWrapper(raw, encoding="utf-8") as urls,
    ):
        urls.write("# demo catalogue: one URL a line, lastmod after it\n")
        for i in range(count):
            day = 1 + i % 28
            urls.write(
                f"https://www.example.com/catalog/item-{i}?color=red&size={i % 7}"
                f" lastmod=2024-05-{day:02d}\n"
            )


if __name__ == "__main__":
    main()
