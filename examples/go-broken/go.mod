module example.com/gobroken

go 1.22
