module github.com/cosid-go/cosid

go 1.26.0

require go.yaml.in/yaml/v3 v3.0.6
