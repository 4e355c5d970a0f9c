"""The release of the kit: checks, then every artefact built into ``dist/<version>/``.

Run from a checkout as ``make release VERSION=x.y.z`` (``python -m doomloop_release``
with ``tools`` and ``docs/hooks`` on the path). Nothing is published: the
artefacts are files, the Go module tags are recorded, not created, and the
versioned site is an archive of a gh-pages branch built in a scratch repository.
"""
