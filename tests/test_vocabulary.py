"""The vector files' vocabulary: operations, features and expected errors, each named
once (vectorset/vocabulary.py) and checked here against spec/schema/vectors.schema.json."""

from __future__ import annotations

from doomloop_kit.vectorset import files, oracle, vocabulary


def test_the_step_operations_are_the_schemas() -> None:
    """Every ``op-X`` of the vector schema is a step operation, and back (runScenario is
    an engine vector's one step, stored without ``op``)."""
    defined = {
        name.removeprefix("op-") for name in files.load_schema()["$defs"] if name.startswith("op-")
    }
    named = {*vocabulary.MONITOR_OPS, *vocabulary.FUNCTION_OPS, vocabulary.RESUME_OP}
    assert defined == named - {vocabulary.ENGINE_OP}


def test_the_features_are_the_schemas_in_order() -> None:
    assert list(vocabulary.FEATURES) == files.load_schema()["$defs"]["feature"]["enum"]
    assert set(vocabulary.FEATURES) > vocabulary.MEMBER_RULES
    assert set(vocabulary.OP_FEATURES) <= set(vocabulary.MONITOR_OPS)
    assert set(vocabulary.OP_FEATURES.values()) <= set(vocabulary.FEATURES)


def test_the_oracle_answers_exactly_the_vocabularys_operations() -> None:
    assert tuple(oracle.MONITOR_OPS) == vocabulary.MONITOR_OPS
    assert tuple(oracle.FUNCTION_OPS) == vocabulary.FUNCTION_OPS


def test_features_of() -> None:
    assert vocabulary.features_of({"a": [1, "x", None]}) == set()
    assert vocabulary.features_of({"$js": "object", "value": {}}) == set()
    assert vocabulary.features_of(
        [
            {"$js": "undefined"},
            {"$js": "number", "value": "-0"},
            {"$js": "number", "value": "NaN"},
            {"$js": "bigint", "value": "1"},
            {"$js": "symbol"},
            {"$js": "function", "throws": "x"},
            {"$js": "ref", "up": 1},
            {"$js": "nest", "depth": 70, "value": 1},
            {"\ud800": 2**60},
        ]
    ) == {
        "undefined",
        "negative-zero",
        "non-finite-numbers",
        "bigint",
        "function-values",
        "loop-key-functions",
        "circular-references",
        "deep-nesting",
        "lone-surrogates",
        "large-integers",
    }
