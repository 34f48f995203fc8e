"""The versions stage: many datasets of one repo in one index, and what changed between them.

- `identity`: at index time, recognise renamed files/functions and reworded
  messages as the same site, so the id survives (`errdex.identity` says how);
- `diff`: added / removed / changed (which fields) / unchanged between two datasets;
- `history`: the versions holding a site, and for git ranges the commits
  that introduced it and last changed its message and guard;
- `gitrange`: index every commit of `A..B` with git plumbing, sharing
  per-file results across commits by content.
"""

from importlib import import_module

_HOME = {"DatasetDiff": "diff", "diff_datasets": "diff", "RangeReport": "gitrange", "index_git_range": "gitrange",
         "SiteHistory": "history", "site_history": "history", "link_identities": "identity",
         "link_to_previous": "identity"}
__all__ = sorted(_HOME)


def __getattr__(name: str) -> object:
    """Load submodules on first use: indexing needs `identity` only, not git or HTTP."""
    if name not in _HOME:
        raise AttributeError(f"module 'errdex.versions' has no attribute {name!r}")
    return getattr(import_module(f"errdex.versions.{_HOME[name]}"), name)
