"""Engine scenarios as data: the brief's 58 (:mod:`.brief`) and more (:mod:`.statements`).

Why a Python module of plain JSON values rather than JSON files: the brief's
scenarios repeat long inputs (40 copies of a sentence, ten identical turns,
the same three-call fan-out four times), and a few builders (:mod:`.build`)
keep each scenario a screenful that can be read against the brief's table.
Every entry is nevertheless pure JSON (a test checks the round trip), so a
later step writes them out as engine vectors without interpreting code:
``{"brief", "title", "spec", "facts", "scenario"}``, where ``scenario`` is
the input of :func:`doomloop_kit.engine.run_scenario` and ``facts`` are
checked by :mod:`.facts` against the transcript's JSON form.
"""
