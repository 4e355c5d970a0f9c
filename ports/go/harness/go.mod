module doomloop.invalid/harness

go 1.22
