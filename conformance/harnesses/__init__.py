"""In-tree protocol harnesses (spec/protocol.md). ``python_reference`` serves the reference."""
