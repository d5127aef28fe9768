module github.com/cosid-go/cosid/examples/extstore

go 1.26.0

require github.com/cosid-go/cosid v0.0.0-00010101000000-000000000000
