"""``python -m doomloop_kit.conformance.sdk_replay --port CMD FILE...``."""

from . import main

raise SystemExit(main())
