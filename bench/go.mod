module github.com/cosid-go/cosid/bench

go 1.26.0

require (
	github.com/bwmarrin/snowflake v0.3.0
	github.com/cosid-go/cosid v0.0.0-00010101000000-000000000000
	github.com/sony/sonyflake v1.2.0
)
