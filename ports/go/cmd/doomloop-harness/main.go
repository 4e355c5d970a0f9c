// Command doomloop-harness speaks version 1 of the doom-loop conformance
// protocol over stdin/stdout: one JSON request per line in, one JSON
// response per line out. It exits 0 when stdin closes. Bad input never
// stops it: every request gets a response, an error one if need be.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"doomloop.invalid/ports/go/internal/protocol"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr))
}

func run(stdin io.Reader, stdout, stderr io.Writer) int {
	in := bufio.NewReaderSize(stdin, 1<<20)
	out := bufio.NewWriterSize(stdout, 1<<16)
	server := protocol.NewServer()
	server.Log = stderr
	// the SDK's console.warn, as text lines on stderr
	server.Warn = func(message string, err error) {
		if err != nil {
			message += " " + err.Error()
		}
		fmt.Fprintln(stderr, message)
	}
	for {
		line, readErr := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			response := server.HandleLine(bytes.TrimRight(line, "\r\n"))
			out.Write(response)
			out.WriteByte('\n')
			if err := out.Flush(); err != nil {
				fmt.Fprintf(stderr, "doomloop-harness: writing a response: %v\n", err)
				return 1
			}
		}
		if readErr == io.EOF {
			return 0
		}
		if readErr != nil {
			fmt.Fprintf(stderr, "doomloop-harness: reading a request: %v\n", readErr)
			return 1
		}
	}
}
