"""JavaScript values in Python: the layer below the reference (spec/02-data-model.md).

The monitor is specified over the values a JS program holds; this package
gives them a Python form and nothing else, so that ``reference/`` reads as the
monitor alone:

* :mod:`.values` -- ``undefined``, functions, bigints, and the JS rules for
  numbers and coercion (DATA-*);
* :mod:`.utf16` -- strings as UTF-16 code units, lone surrogates included;
* :mod:`.wire` -- the tagged JSON that carries JS-only values in vector files
  and protocol messages (spec/features.md, PROT-05);
* :mod:`.jsjson` -- JSON text as JS ``JSON.parse`` reads it and
  ``JSON.stringify`` writes it (PROT-44, ENG-105).

The Go port has the same layer (``ports/go/harness/jsvalue``).
"""
