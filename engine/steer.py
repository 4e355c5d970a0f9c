"""The steer queue: messages waiting for the next follow-up dispatch (ENG-63..ENG-68)."""

from __future__ import annotations


class SteerQueue:
    """De-duplicated by exact text while queued; forgotten once flushed (ENG-64)."""

    def __init__(self) -> None:
        self._messages: list[str] = []

    def add(self, message: str) -> None:
        """Queue a message unless an equal string is already queued (ENG-63, ENG-64)."""
        if message not in self._messages:
            self._messages.append(message)

    def requeue(self, pending: object) -> None:
        """Re-queue a restored ``pendingSteer``: strings only, in order (ENG-171)."""
        if isinstance(pending, list):
            for message in pending:
                if isinstance(message, str):
                    self.add(message)

    def flush(self) -> str | None:
        """Empty the queue into one text joined by ``"\\n"``; None when empty (ENG-66)."""
        if not self._messages:
            return None
        joined = "\n".join(self._messages)
        self._messages.clear()
        return joined

    def persisted(self) -> list[str] | None:
        """The ``pendingSteer`` copy, or None when the queue is empty (ENG-68, ENG-114)."""
        return list(self._messages) if self._messages else None
