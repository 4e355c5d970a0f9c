package harness

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"unicode/utf8"

	"doomloop.invalid/harness/jsvalue"
)

// Version is the protocol version this package speaks.
const Version = 1

// Revision is the revision of that version the package follows (PROT-30:
// documented, never sent): 1.2 adds shared objects and object identity, 1.3
// the decode depth limit and bad-request as an expected outcome (PROT-40).
const Revision = "1.3"

// maxSafeInteger is 2^53 - 1: a request id beyond it cannot be told apart
// from its neighbours once read as a double.
const maxSafeInteger = 1<<53 - 1

// Serve runs the harness for port on the process's stdin, stdout and stderr
// until stdin closes, and returns the exit status (0, or 1 when a stream
// fails). Typical use: func main() { os.Exit(harness.Serve(myPort{})) }.
func Serve(port Port) int {
	return Run(port, os.Stdin, os.Stdout, os.Stderr)
}

// jsonWhitespace is what a blank line holds (RFC 8259 whitespace): it gets
// no answer (PROT-44). Other Unicode spaces make a line that is not JSON.
const jsonWhitespace = " \t\r\n"

// MaxLineBytes and MaxLineDepth are the bounds of a protocol line, the same
// in every harness (PROT-45, PROT-46): a request line longer than
// MaxLineBytes (its line feed aside), or nesting arrays and objects deeper
// than MaxLineDepth levels (the request object is the first), is answered
// bad-request with id null before it is parsed; a response is never written
// deeper than MaxLineDepth levels (such a result is answered internal).
const (
	MaxLineBytes = 64 << 20
	MaxLineDepth = 10000
)

// readLine reads one line (its line feed included, when there is one) with
// at most MaxLineBytes of it held: a longer line is read to its end and
// dropped, tooLong set.
func readLine(in *bufio.Reader) (line []byte, tooLong bool, err error) {
	size := 0
	for {
		chunk, readErr := in.ReadSlice('\n')
		size += len(chunk)
		content := size
		if readErr == nil {
			content-- // the line feed
		}
		if content > MaxLineBytes {
			tooLong, line = true, nil
		} else {
			line = append(line, chunk...)
		}
		if readErr != bufio.ErrBufferFull {
			return line, tooLong, readErr
		}
	}
}

// deeperThan reports whether JSON text nests arrays and objects deeper than
// limit levels (brackets inside strings aside), in one pass.
func deeperThan(text []byte, limit int) bool {
	depth, inString := 0, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString && c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > limit {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// Run is Serve over the given streams. Every non-blank input line gets
// exactly one response line, in order, flushed at once; bad input never
// stops it. The port's logs (WarnFunc) go to stderr, one line each.
func Run(port Port, stdin io.Reader, stdout, stderr io.Writer) int {
	in := bufio.NewReaderSize(stdin, 1<<20)
	out := bufio.NewWriterSize(stdout, 1<<16)
	server := NewServer(port)
	server.Log = stderr
	for {
		line, tooLong, readErr := readLine(in)
		if tooLong || len(bytes.Trim(line, jsonWhitespace)) > 0 {
			if tooLong {
				out.Write(errorLine(nil, badRequest("a line longer than %d MiB (PROT-45)", MaxLineBytes>>20)))
			} else {
				out.Write(server.HandleLine(bytes.TrimRight(line, "\r\n")))
			}
			out.WriteByte('\n')
			if err := out.Flush(); err != nil {
				fmt.Fprintf(stderr, "harness: writing a response: %v\n", err)
				return 1
			}
		}
		if readErr == io.EOF {
			return 0
		}
		if readErr != nil {
			fmt.Fprintf(stderr, "harness: reading a request: %v\n", readErr)
			return 1
		}
	}
}

// Server holds the sessions of one harness process.
type Server struct {
	port     Port
	sessions map[string]Monitor
	next     int
	// Log, when set, receives the port's logs (one line per WarnFunc call)
	// and diagnostics (the stack of an internal error).
	Log io.Writer
}

// NewServer returns a server for port with no sessions.
func NewServer(port Port) *Server {
	return &Server{port: port, sessions: map[string]Monitor{}}
}

// warn writes one log line, as console.warn would.
func (s *Server) warn(message string, err error) {
	if s.Log == nil {
		return
	}
	if err != nil {
		message += " " + err.Error()
	}
	fmt.Fprintln(s.Log, message)
}

func badRequest(format string, args ...any) *Error {
	return &Error{Code: CodeBadRequest, Message: fmt.Sprintf(format, args...)}
}

// HandleLine answers one request line with one response line (no newline,
// never empty). A panic inside an operation is an "internal" error.
func (s *Server) HandleLine(line []byte) []byte {
	var id any
	result, opErr := func() (result any, opErr *Error) {
		defer func() {
			if p := recover(); p != nil {
				opErr = &Error{Code: CodeInternal, Message: fmt.Sprintf("panic: %v", p)}
				if s.Log != nil {
					fmt.Fprintf(s.Log, "internal error: %v\n%s\n", p, debug.Stack())
				}
			}
		}()
		if !utf8.Valid(line) { // not UTF-8, so not JSON: never read with U+FFFD (PROT-44)
			return nil, badRequest("not JSON: the line is not UTF-8")
		}
		if deeperThan(line, MaxLineDepth) { // unparsed, id unread (PROT-45)
			return nil, badRequest("a line nested deeper than %d levels (PROT-45)", MaxLineDepth)
		}
		parsed, err := jsvalue.ParseJSON(line)
		if err != nil {
			return nil, badRequest("%v", err)
		}
		req, ok := parsed.(map[string]any)
		if !ok {
			return nil, badRequest("a request must be a JSON object")
		}
		raw, ok := req["id"].(float64)
		if !ok || raw != math.Trunc(raw) || math.Abs(raw) > maxSafeInteger {
			return nil, badRequest("member \"id\" must be an integer")
		}
		id = raw + 0 // -0 is the integer 0
		op, ok := req["op"].(string)
		if !ok {
			return nil, badRequest("a request needs a string op")
		}
		return s.dispatch(op, req, line)
	}()
	if opErr != nil {
		return errorLine(id, opErr)
	}
	out, err := jsvalue.AppendJSON(nil, map[string]any{"id": id, "result": jsvalue.EncodeTagged(result)})
	if err != nil {
		return errorLine(id, &Error{Code: CodeInternal, Message: "unencodable result: " + err.Error()})
	}
	if deeperThan(out, MaxLineDepth) { // never written deeper than a request may be (PROT-46)
		return errorLine(id, &Error{Code: CodeInternal,
			Message: fmt.Sprintf("a result nested deeper than %d levels (PROT-46)", MaxLineDepth)})
	}
	return out
}

// errorLine is the response line of an error (never empty).
func errorLine(id any, e *Error) []byte {
	out, err := jsvalue.AppendJSON(nil, map[string]any{"id": id,
		"error": map[string]any{"code": e.Code, "message": e.Message}})
	if err != nil || len(out) == 0 {
		out = []byte(`{"id":null,"error":{"code":"internal","message":"unencodable response"}}`)
	}
	return out
}

// failure turns an error of the port into an error response.
func (s *Server) failure(err error) *Error {
	if coder, ok := s.port.(ErrorCoder); ok {
		return &Error{Code: coder.ErrorCode(err), Message: err.Error()}
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

// Dispatch runs one operation of an already parsed request; the result is
// a wire value before tagging. A runScenario request's scenario is passed
// on re-encoded, its members in code-unit order; HandleLine passes it as
// sent.
func (s *Server) Dispatch(op string, req map[string]any) (any, *Error) {
	return s.dispatch(op, req, nil)
}

// dispatch runs one operation; line is the request as sent, when known.
func (s *Server) dispatch(op string, req map[string]any, line []byte) (any, *Error) {
	switch op {
	case "runScenario":
		return s.runScenario(req, line)
	case "hello":
		return s.hello(req)
	case "close":
		name, err := s.session(req)
		if err != nil {
			return nil, err
		}
		delete(s.sessions, name)
		return nil, nil
	}
	if fn, ok := monitorOps[op]; ok {
		if _, ok := s.port.(MonitorFactory); !ok {
			return nil, unknownOp(op)
		}
		name, err := s.session(req)
		if err != nil {
			return nil, err
		}
		return fn(s, s.sessions[name], req)
	}
	if fn, ok := functionOps[op]; ok {
		return fn(s, req)
	}
	return nil, unknownOp(op)
}

func unknownOp(op string) *Error {
	return &Error{Code: CodeUnknownOp, Message: fmt.Sprintf("unknown op %q", op)}
}

// IsMonitorOp reports whether op needs a monitor (a session).
func IsMonitorOp(op string) bool {
	_, ok := monitorOps[op]
	return ok
}

func (s *Server) hello(req map[string]any) (any, *Error) {
	if v, ok := req["protocol"].(float64); !ok || v != Version {
		return nil, &Error{Code: CodeUnsupportedProtocol,
			Message: "this harness speaks protocol " + strconv.Itoa(Version) + " only"}
	}
	impl := s.port.Implementation()
	features := []any{}
	for _, f := range s.port.Features() {
		features = append(features, f)
	}
	return map[string]any{
		"protocol":       float64(Version),
		"implementation": map[string]any{"name": impl.Name, "language": impl.Language, "version": impl.Version},
		"features":       features,
	}, nil
}

func (s *Server) session(req map[string]any) (string, *Error) {
	name, ok := req["session"].(string)
	if !ok {
		return "", badRequest("member \"session\" must be a string")
	}
	if _, open := s.sessions[name]; !open {
		return "", &Error{Code: CodeUnknownSession, Message: fmt.Sprintf("no open session %q", name)}
	}
	return name, nil
}

// declares reports whether the port declares a feature.
func (s *Server) declares(feature string) bool {
	return slices.Contains(s.port.Features(), feature)
}
