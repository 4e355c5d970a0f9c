module doomloop.invalid/gomutate

go 1.22
