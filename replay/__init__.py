"""Replaying a recorded agent log through the reference monitor (``doomloop-kit replay``).

One concept per module: :mod:`.jsonstream` (reading a log as a stream of
JSON values with their lines), :mod:`.events` and :mod:`.readers` (the log
formats), :mod:`.options` (the option and loop keys), :mod:`.session` (the
monitor, optionally writing a transcript), :mod:`.driver` (the replay),
:mod:`.summary`, :mod:`.timeline`, :mod:`.report`, :mod:`.page` (outputs),
:mod:`.sweep` (a grid of ladders), :mod:`.port` (the same replay through a
harness), :mod:`.examples` (the example logs shipped with the package).
"""
