module github.com/cosid-go/cosid/bench

go 1.26.0

require (
	github.com/bwmarrin/snowflake v0.3.0
	github.com/cosid-go/cosid v0.0.0-00010101000000-000000000000
	github.com/google/uuid v1.6.0
	github.com/sony/sonyflake v1.2.0
	github.com/tsenart/vegeta/v12 v12.13.0
)

require (
	github.com/influxdata/tdigest v0.0.1 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/rs/dnscache v0.0.0-20230804202142-fc85eb664529 // indirect
	golang.org/x/net v0.27.0 // indirect
	golang.org/x/sync v0.7.0 // indirect
	golang.org/x/text v0.16.0 // indirect
)
