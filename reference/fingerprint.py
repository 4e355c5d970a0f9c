"""Fingerprints of key material and of tool calls (spec section 6, FP-01..FP-08)."""

from __future__ import annotations

import hashlib

from doomloop_kit.jsvalue import utf16

from .canonical import canonicalize


def fingerprint_key_material(key_material: object) -> str:
    """Lowercase hex SHA-256 of the UTF-8 canonical form (FP-01, FP-03).

    Raises :class:`~.canonical.CanonicalizationError` like :func:`canonicalize`.
    """
    return hashlib.sha256(utf16.utf8_bytes(canonicalize(key_material))).hexdigest()


def fingerprint_tool_call(tool_name: str, key_material: object) -> str:
    """Lowercase hex SHA-256 of ``tool_name + "\\n" + canonical form`` in UTF-8 (FP-02).

    The tool name is not escaped (FP-04): a lone surrogate in it is encoded as
    U+FFFD (FP-06).
    """
    text = tool_name + "\n" + canonicalize(key_material)
    return hashlib.sha256(utf16.utf8_bytes(text)).hexdigest()
