module doomloop.invalid/ports/go

go 1.22

require doomloop.invalid/harness v0.0.0

// The harness library lives in this repository (see harness/README.md).
replace doomloop.invalid/harness => ./harness
