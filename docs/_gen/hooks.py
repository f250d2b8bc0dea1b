"""MkDocs hooks (``mkdocs.yml``): a link from a page to a file of the repository outside
``docs/`` (``../bench/README.md``) reads well on GitHub but has no page on the site, which has
no source host; on the site it becomes the file's path, in code. A link to a file that does not
exist is left alone, so the strict build still reports it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    docs = Path(config["docs_dir"]).resolve()
    root = docs.parent
    here = (docs / page.file.src_path).parent

    def outside(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        if "://" in target or target.startswith(("mailto:", "/")):
            return match.group(0)
        resolved = (here / target).resolve()
        if resolved.is_relative_to(docs) or not resolved.exists():
            return match.group(0)
        path = f"`{resolved.relative_to(root).as_posix()}`"
        return path if text.strip("`") == target or text.strip("`") in path else f"{text} ({path})"

    return LINK.sub(outside, markdown)
