module doomloop.invalid/ports/go

go 1.22
