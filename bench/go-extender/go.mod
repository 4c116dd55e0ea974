module headroom.dev/bench/go-extender

go 1.22
