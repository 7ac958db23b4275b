"""Where URLs come from. Each source is a function returning an iterator of URLEntry."""

from .directory import from_directory
from .urllist import from_urllist

__all__ = ["from_directory", "from_urllist"]
