"""The curated engine vectors: scenarios as data, and the files they become.

The brief's 58 scenarios (:mod:`.brief`), the rules its table leaves without
one (:mod:`.statements`), the behaviours the mutation job found unpinned
(:mod:`.pins`), the SDK's real run loop (:mod:`.sdk_loop`); :mod:`.vectors`
writes them, with the bad-input cases, as the ``engine-*`` curated files.

Why a Python module of plain JSON values rather than JSON files: the brief's
scenarios repeat long inputs (40 copies of a sentence, ten identical turns,
the same three-call fan-out four times), and a few builders (:mod:`.builders`)
keep each scenario a screenful that can be read against the brief's table.
Every entry is nevertheless pure JSON (a test checks the round trip), so a
later step writes them out as engine vectors without interpreting code:
``{"brief", "title", "spec", "facts", "scenario"}``, where ``scenario`` is
the input of :func:`doomloop_kit.engine.run_scenario` and ``facts`` are
checked by :mod:`.facts` against the transcript's JSON form.
"""
