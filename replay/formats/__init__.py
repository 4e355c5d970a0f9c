"""The log formats the replay reads, one module per family.

Each reader turns the records of its format into the events of
:mod:`doomloop_kit.replay.events`: :mod:`.chat` (OpenAI chat messages and
Anthropic Messages, tau-bench's trajectories among them), :mod:`.responses`
(Responses API items and OpenAI Codex CLI rollouts), :mod:`.codex_exec`
(``codex exec --json`` streams), :mod:`.doomloop` (the kit's own JSON
lines), :mod:`.claude_code` (Claude Code sessions and their sub-agents, and
``claude -p`` stream-json), :mod:`.trajectories` (mini-swe-agent and
SWE-agent trajectories) and :mod:`.taubench` (tau-bench result files, many
runs in one document).
:mod:`..readers` recognises the format of a log and drives its reader.
"""
