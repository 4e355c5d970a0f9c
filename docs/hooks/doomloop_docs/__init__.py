"""Build-time generators of the spec site (loaded by docs/hooks/doomloop_hook.py)."""
