module example.com/rename

go 1.26
