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
	var text []byte
	if line != nil {
		// the text as sent: member order is observable (ENG-105)
		raw, found := rawMember(line, "scenario")
		if !found {
			return nil, badRequest("member %q: cannot read its text as sent", "scenario")
		}
		text = raw
	} else {
		var err error
		if text, err = jsvalue.AppendJSON(nil, scenario); err != nil {
			return nil, badRequest("member %q: %v", "scenario", err)
		}
	}
	return s.answer(runner.RunScenario(text))
}

// rawMember returns the JSON text of the member name of the object in line,
// exactly as sent (the last one when the name repeats, as JSON.parse keeps
// the last); found is false when line cannot be read that way. It reads
// token by token, so it has no depth limit of its own (ParseJSON's holds).
func rawMember(line []byte, name string) (text []byte, found bool) {
	decoder := json.NewDecoder(bytes.NewReader(line))
	if open, err := decoder.Token(); err != nil || open != json.Delim('{') {
		return nil, false
	}
	for decoder.More() {
		key, err := decoder.Token()
		if err != nil {
			return nil, false
		}
		from := decoder.InputOffset() // before the colon
		for depth := 0; ; {
			token, err := decoder.Token()
			if err != nil {
				return nil, false
			}
			switch token {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if key == name {
			value := bytes.TrimLeft(line[from:decoder.InputOffset()], " \t\r\n")
			text, found = bytes.TrimLeft(value[1:], " \t\r\n"), true // value[0] is the colon
		}
	}
	return text, found
}
