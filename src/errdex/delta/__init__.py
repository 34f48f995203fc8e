"""Re-indexing a dataset by redoing only the files that changed (see `reindex`)."""
