"""Where URLs come from. Each source is a function returning an iterator of URLEntry."""

from .accesslog import from_access_log
from .directory import from_directory
from .urllist import from_urllist

__all__ = ["from_access_log", "from_directory", "from_urllist"]
