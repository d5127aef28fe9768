module github.com/cosid-go/cosid/store/zkstore

go 1.26.0

require (
	github.com/cosid-go/cosid v0.0.0-00010101000000-000000000000
	github.com/go-zookeeper/zk v1.0.4
)

require go.yaml.in/yaml/v3 v3.0.6 // indirect
