// Command doomloop-harness speaks version 1 of the doom-loop conformance
// protocol over stdin/stdout for this port, through the harness library
// (doomloop.invalid/harness): one JSON request per line in, one JSON
// response per line out. It exits 0 when stdin closes. Bad input never
// stops it: every request gets a response, an error one if need be.
package main

import (
	"os"

	"doomloop.invalid/harness"
)

func main() {
	os.Exit(harness.Serve(newPort()))
}
