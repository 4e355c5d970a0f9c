package harness

import (
	"bytes"
	"encoding/json"

	"doomloop.invalid/harness/jsvalue"
)

// runScenario answers runScenario (PROT-31) through the port's
// ScenarioRunner, with the scenario's JSON text as sent in line.
func (s *Server) runScenario(req map[string]any, line []byte) (any, *Error) {
	runner, ok := s.port.(ScenarioRunner)
	if !ok {
		return nil, unknownOp("runScenario")
	}
	scenario, has := req["scenario"]
	if !has {
		return nil, badRequest("missing member %q", "scenario")
	}
	text, found := rawMember(line, "scenario")
	if !found {
		var err error
		if text, err = jsvalue.AppendJSON(nil, scenario); err != nil {
			return nil, badRequest("member %q: %v", "scenario", err)
		}
	}
	return s.answer(runner.RunScenario(text))
}

// rawMember returns the JSON text of the member name of the object in line,
// exactly as sent (the last one when the name repeats, as JSON.parse keeps
// the last); found is false when line cannot be read that way.
func rawMember(line []byte, name string) (text []byte, found bool) {
	if line == nil {
		return nil, false
	}
	decoder := json.NewDecoder(bytes.NewReader(line))
	if open, err := decoder.Token(); err != nil || open != json.Delim('{') {
		return nil, false
	}
	for decoder.More() {
		key, err := decoder.Token()
		if err != nil {
			return nil, false
		}
		var value json.RawMessage
		if err := decoder.Decode(&value); err != nil {
			return nil, false
		}
		if key == name {
			text, found = value, true
		}
	}
	return text, found
}
