"""Replaying recorded agent logs through the reference engine (``doomloop-kit replay``).

One concept per module: :mod:`.jsonstream` (reading a log as a stream of
JSON values with their lines), :mod:`.events`, :mod:`.readers` and the
:mod:`.formats` package (the log formats), :mod:`.options` (the option,
loop keys and ``--engine``), :mod:`.session` (the reference engine's
objects fed a recorded log), :mod:`.driver` (the replay), :mod:`.results`
(identical vs changed results of repeated calls), :mod:`.summary`,
:mod:`.timeline`, :mod:`.report`, :mod:`.page` (outputs), :mod:`.sweep` (a
grid of ladders), :mod:`.port` (the same replay through a harness),
:mod:`.examples` (the example logs shipped with the package); fleet mode:
:mod:`.fleet` (one file's runs), :mod:`.executors` (local processes, Dask),
:mod:`.outcomes` (labels), :mod:`.fleet_report` (the fleet summary),
:mod:`.fleet_page` and :mod:`.charts` (the fleet page), :mod:`.fleet_run`
(the command), :mod:`.problems` (problems on stderr, the first few in full),
and :mod:`.calibration` (the docs' worked calibration).
"""
