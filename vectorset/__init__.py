"""The vector set: the file model, loading, comparison and the oracle (spec/vectors.md)."""
