"""The versions stage: many datasets of one repo in one index, and what changed between them.

- `identity`: at index time, recognise renamed files/functions and reworded
  messages as the same site, so the id survives (`errdex.identity` says how);
- `diff`: added / removed / changed (which fields) / unchanged between two datasets;
- `history`: the versions holding a site, and for git ranges the commits
  that introduced it and last changed its message and guard;
- `gitrange`: index every commit of `A..B` with git plumbing, sharing
  per-file results across commits by content.
"""

from errdex.versions.diff import DatasetDiff, diff_datasets
from errdex.versions.gitrange import RangeReport, index_git_range
from errdex.versions.history import SiteHistory, site_history
from errdex.versions.identity import link_identities, link_to_previous

__all__ = ["DatasetDiff", "RangeReport", "SiteHistory", "diff_datasets", "index_git_range",
           "link_identities", "link_to_previous", "site_history"]
